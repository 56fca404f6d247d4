"""The board as SVG: one drawing for Jupyter (``_repr_svg_``) and the web app.

Reversi is drawn as discs on a green grid with squares; m,n,k games as stones
on the intersections of a wooden grid (Tic-tac-toe as marks in cells).  Options
mark the last move, legal moves, forbidden points and a winning line.  Every
square carries ``data-move`` and an ``aria-label`` so the web app can use the
same picture.
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.sax.saxutils import escape

from tabletop.games.core import BaseBoard, Color, Move

CELL = 40
MARGIN = 24


def board_svg(
    board: BaseBoard,
    *,
    last: Move | None = None,
    legal: Iterable[Move] | None = None,
    forbidden: Iterable[Move] | None = None,
    winning: Iterable[Move] | None = None,
) -> str:
    """An SVG string of ``board``.  ``last`` defaults to the last move pushed,
    ``winning`` to the cells of the outcome."""
    w, h = board.width, board.height
    if last is None:
        last = board.peek()
    outcome = board.outcome()
    if winning is None and outcome is not None:
        winning = outcome.cells
    win_set = {(m.col, m.row) for m in (winning or ())}
    legal_set = {(m.col, m.row) for m in (legal or ()) if not m.is_pass}
    forb_set = {(m.col, m.row) for m in (forbidden or ())}
    intersections = board.game == "gomoku" or board.game == "mnk" and max(w, h) > 5
    size_w = MARGIN * 2 + CELL * w
    size_h = MARGIN * 2 + CELL * h
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size_w} {size_h}" '
        f'width="{size_w}" height="{size_h}" role="img" aria-label="{escape(board.game)} board">'
    ]
    if board.game == "reversi":
        bg, line = "#1f7a3a", "#0b3d1c"
    elif intersections:
        bg, line = "#e3b86b", "#5a3d12"
    else:
        bg, line = "#f4efe6", "#444444"
    out.append(f'<rect x="0" y="0" width="{size_w}" height="{size_h}" fill="{bg}" rx="6"/>')
    # coordinates
    for col in range(w):
        x = MARGIN + CELL * col + CELL // 2
        out.append(f'<text x="{x}" y="{MARGIN - 8}" font-size="11" text-anchor="middle" fill="{line}">{chr(97 + col)}</text>')
    for row in range(h):
        y = MARGIN + CELL * row + CELL // 2 + 4
        name = board.move_at(0, row).name[1:]
        out.append(f'<text x="{MARGIN - 12}" y="{y}" font-size="11" text-anchor="middle" fill="{line}">{name}</text>')
    # grid
    if intersections:
        for col in range(w):
            x = MARGIN + CELL * col + CELL // 2
            out.append(f'<line x1="{x}" y1="{MARGIN + CELL // 2}" x2="{x}" y2="{MARGIN + CELL * h - CELL // 2}" stroke="{line}"/>')
        for row in range(h):
            y = MARGIN + CELL * row + CELL // 2
            out.append(f'<line x1="{MARGIN + CELL // 2}" y1="{y}" x2="{MARGIN + CELL * w - CELL // 2}" y2="{y}" stroke="{line}"/>')
    else:
        for i in range(w + 1):
            x = MARGIN + CELL * i
            out.append(f'<line x1="{x}" y1="{MARGIN}" x2="{x}" y2="{MARGIN + CELL * h}" stroke="{line}"/>')
        for i in range(h + 1):
            y = MARGIN + CELL * i
            out.append(f'<line x1="{MARGIN}" y1="{y}" x2="{MARGIN + CELL * w}" y2="{y}" stroke="{line}"/>')
    # squares
    for row in range(h):
        for col in range(w):
            cx = MARGIN + CELL * col + CELL // 2
            cy = MARGIN + CELL * row + CELL // 2
            piece = board.piece_at(col, row)
            name = board.move_at(col, row).name
            state = "empty" if piece is None else piece.label
            out.append(
                f'<g class="sq" data-move="{name}" aria-label="{name}, {state}">'
                f'<rect x="{cx - CELL // 2}" y="{cy - CELL // 2}" width="{CELL}" height="{CELL}" fill="transparent"/>'
            )
            if (col, row) in win_set:
                out.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL // 2 - 1}" fill="#ffd84d" opacity="0.8"/>')
            if piece is not None:
                out.append(_piece(board, piece, cx, cy))
            elif (col, row) in forb_set:
                out.append(
                    f'<path d="M{cx - 7} {cy - 7}L{cx + 7} {cy + 7}M{cx + 7} {cy - 7}L{cx - 7} {cy + 7}" '
                    f'stroke="#c0392b" stroke-width="3"/>'
                )
            elif (col, row) in legal_set:
                out.append(f'<circle cx="{cx}" cy="{cy}" r="5" fill="{line}" opacity="0.45"/>')
            if last is not None and not last.is_pass and (last.col, last.row) == (col, row):
                out.append(f'<circle cx="{cx}" cy="{cy}" r="4" fill="#e74c3c"/>')
            out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def _piece(board: BaseBoard, color: Color, cx: int, cy: int) -> str:
    r = CELL // 2 - 4
    if board.game == "tictactoe":
        if color is Color.BLACK:
            d = 11
            return (
                f'<path d="M{cx - d} {cy - d}L{cx + d} {cy + d}M{cx + d} {cy - d}L{cx - d} {cy + d}" '
                f'stroke="#1b1b1b" stroke-width="5" stroke-linecap="round"/>'
            )
        return f'<circle cx="{cx}" cy="{cy}" r="{r - 4}" fill="none" stroke="#b03a2e" stroke-width="5"/>'
    fill, stroke = ("#111111", "#000000") if color is Color.BLACK else ("#fafafa", "#555555")
    return f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
