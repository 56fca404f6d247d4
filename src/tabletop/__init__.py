"""tabletop: Reversi/Othello, Gomoku/Renju and Tic-tac-toe — rules, engines, records, protocols, server."""

__version__ = "0.1.0"
