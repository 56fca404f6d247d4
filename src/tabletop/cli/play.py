"""``tabletop play GAME``: play in the terminal against a person or the computer.

The board is drawn with rich; moves are typed in the game's notation (``b2``,
``f5``, ``h8``).  ``u`` undoes, ``r`` redoes, ``n`` starts a new game, ``h``
asks the engine for a hint, ``q`` quits.  Unreadable or illegal input gets a
one-line explanation and the same prompt.  All turn logic is the
:class:`~tabletop.match.Match`'s; this module only draws and reads.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
from rich.text import Text

from tabletop.ai.base import Limit
from tabletop.cli import CliError
from tabletop.games import GAMES, new_board
from tabletop.games.core import BLACK, WHITE, BaseBoard, Color
from tabletop.match import Event, Match, MatchError
from tabletop.players import SpecError, player

HELP = "moves like {example}; u undo, r redo, n new game, h hint, q quit"
EXAMPLES = {"tictactoe": "b2", "reversi": "f5", "gomoku": "h8"}


def register(sub: Any) -> None:
    p = sub.add_parser("play", help="play a game in the terminal")
    p.add_argument("game", help="tictactoe, reversi or gomoku")
    p.add_argument("--black", default="human", metavar="SPEC", help="who plays Black: human (default) or a player SPEC")
    p.add_argument("--white", default=None, metavar="SPEC",
                   help="who plays White: human or a player SPEC (default level:5, or human if Black is a computer)")
    p.add_argument("--size", type=int, default=None, help="board size (reversi: even 4..16; gomoku: 5..26)")
    p.add_argument("--rule", default=None, help="gomoku rule: freestyle, standard, renju or caro")
    p.add_argument("--position", default=None, metavar="TEXT", help="start from this position text")
    p.add_argument("--think", type=float, default=None, metavar="SECONDS", help="computer time per move")
    p.set_defaults(func=run)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    if args.size is not None:
        opts["size"] = args.size
    if args.rule is not None:
        if args.game != "gomoku":
            raise CliError(f"--rule applies to gomoku, not {args.game}")
        opts["rule"] = args.rule
    return opts


def run(args: argparse.Namespace) -> int:
    if args.game not in GAMES:
        raise CliError(f"unknown game {args.game!r} (known: {', '.join(GAMES)})")
    white = args.white if args.white is not None else ("level:5" if args.black == "human" else "human")
    seats = {BLACK: args.black, WHITE: white}
    for color, spec in seats.items():
        if spec != "human":
            try:
                player(spec, game=args.game)
            except SpecError as exc:
                raise CliError(f"--{color.label}: {exc}") from None
    options = _options(args)
    board = new_board(args.game, options, args.position)  # ValueError -> one line, exit 2
    ui = TerminalGame(Console(highlight=False), args.game, options, args.position, seats, args.think)
    return ui.loop(board)


class TerminalGame:
    def __init__(self, console: Console, game: str, options: dict[str, Any], position: str | None,
                 seats: dict[Color, str], think: float | None) -> None:
        self.console = console
        self.game = game
        self.options = options
        self.position = position
        self.seats = seats
        self.limit = Limit(seconds=think) if think is not None else None

    def new_match(self, board: BaseBoard | None = None) -> Match:
        match = Match(board or new_board(self.game, self.options, self.position), self.seats, local=True)
        match.subscribe(self.on_event)
        return match

    def on_event(self, event: Event) -> None:
        if event.kind == "turn_changed" and event.data.get("passing"):
            self.console.print(f"[bold]{str(event.data['turn']).capitalize()} has no move and passes.[/]")
        elif event.kind == "move_played" and event.data["move"] != "pass":
            self.console.print(f"{str(event.data['color']).capitalize()} plays {event.data['move']}")

    def loop(self, board: BaseBoard) -> int:
        match = self.new_match(board)
        match.start()
        while True:
            self.draw(match)
            if match.is_over():
                outcome = match.outcome()
                assert outcome is not None
                self.console.print(Text(_result_line(outcome.winner, outcome.reason, outcome.score), style="bold"))
                answer = self.ask("n new game, u undo, q quit> ")
                if answer is None or answer == "q":
                    return 0
                if answer == "n":
                    match = self.new_match()
                    match.start()
                elif answer == "u":
                    self.undo(match)
                else:
                    self.console.print("[red]the game is over: n for a new game, u to undo, q to quit[/]")
                continue
            if match.computer_to_move():
                self.console.print(f"{match.board.turn.label.capitalize()} ({match.seats[match.board.turn].kind}) is thinking...")
                match.think(self.limit)
                continue
            prompt = f"{match.board.turn.label.capitalize()} to move ({HELP.format(example=EXAMPLES.get(self.game, 'a1'))})> "
            answer = self.ask(prompt)
            if answer is None or answer == "q":
                return 0
            if answer in ("u", "undo"):
                self.undo(match)
            elif answer in ("r", "redo"):
                try:
                    match.redo()
                except MatchError as exc:
                    self.console.print(f"[red]{exc}[/]")
            elif answer in ("n", "new"):
                match = self.new_match()
                match.start()
            elif answer in ("h", "hint"):
                self.hint(match)
            elif answer == "":
                self.console.print("[red]type a move, or h for a hint[/]")
            else:
                try:
                    match.play(match.board.turn, answer)
                except MatchError as exc:
                    self.console.print(f"[red]{exc}[/]")

    def ask(self, prompt: str) -> str | None:
        try:
            return self.console.input(prompt).strip().lower()
        except EOFError:
            return None

    def undo(self, match: Match) -> None:
        try:
            undone = match.undo()
            self.console.print(f"took back {' '.join(str(m) for m in undone)}")
        except MatchError as exc:
            self.console.print(f"[red]{exc}[/]")

    def hint(self, match: Match) -> None:
        from tabletop.ai import analyse

        analysis = analyse(match.board.copy(), self.limit or Limit(seconds=1.0))
        best = ", ".join(f"{s.move} ({s.score:+g}{'' if not s.exact else ' exact'})" for s in analysis.scores[:3])
        self.console.print(f"hint: {best}")

    def draw(self, match: Match) -> None:
        self.console.print(render(match.board))
        b = match.board
        status = Text()
        if match.is_over():
            status.append("game over")
        else:
            status.append(f"{b.turn.label.capitalize()} to move")
        discs = getattr(b, "discs", None)
        if callable(discs):
            black, white = discs()
            status.append(f"   Black {black} - White {white}")
        self.console.print(status)


def render(board: BaseBoard) -> Text:
    """The board as rich text: coordinates, last move, legal moves (Reversi),
    forbidden points (Renju) and the winning line highlighted."""
    w, h = board.width, board.height
    last = board.peek()
    outcome = board.outcome()
    winning = {(m.col, m.row) for m in outcome.cells} if outcome is not None else set()
    forbidden: set[tuple[int, int]] = set()
    if board.turn is BLACK and not board.is_game_over() and hasattr(board, "forbidden_points"):
        forbidden = {(m.col, m.row) for m in board.forbidden_points()}
    hints: set[tuple[int, int]] = set()
    if board.game == "reversi" and not board.is_game_over():
        hints = {(m.col, m.row) for m in board.legal_moves if not m.is_pass}
    text = Text()
    label_w = max(len(board.move_at(0, r).name) - 1 for r in range(h))
    text.append(" " * (label_w + 1) + " ".join(chr(97 + c) for c in range(w)) + "\n", style="dim")
    for row in range(h):
        num = board.move_at(0, row).name[1:]
        text.append(num.rjust(label_w) + " ", style="dim")
        for col in range(w):
            piece = board.piece_at(col, row)
            style = ""
            if piece is BLACK:
                ch = "X" if board.game == "tictactoe" else "●"
                style = "bold"
            elif piece is WHITE:
                ch = "O" if board.game == "tictactoe" else "○"
                style = "bold"
            elif (col, row) in forbidden:
                ch, style = "×", "red"
            elif (col, row) in hints:
                ch, style = "•", "green"
            else:
                ch = "·"
            if (col, row) in winning:
                style += " black on yellow"
            elif last is not None and (last.col, last.row) == (col, row):
                style += " underline"
            text.append(ch, style=style.strip() or None)
            if col < w - 1:
                text.append(" ")
        text.append("\n")
    return text


def _result_line(winner: Color | None, reason: str, score: tuple[int, int]) -> str:
    if winner is None:
        return f"Draw ({reason})."
    extra = f" {score[0]}-{score[1]}" if reason == "discs" else ""
    why = {"line": "", "discs": "", "resign": " by resignation", "time": " on time", "forbidden": " (Black's forbidden move)"}
    return f"{winner.label.capitalize()} wins{why.get(reason, ' (' + reason + ')')}{extra}."
