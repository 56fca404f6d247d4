"""A board drawn as an RGB numpy array, for ``render_mode="rgb_array"``.

Reversi and Tic-tac-toe are drawn as pieces in cells, Gomoku as stones on the intersections of a
wooden grid (as :mod:`tabletop.games.svg` draws them); Black's pieces are black, White's white.
Pure numpy: no image library, no font.
"""

from __future__ import annotations

import numpy as np

from tabletop.games.core import BLACK, BaseBoard

__all__ = ["board_rgb"]

_BACKGROUND = {"reversi": (31, 122, 58), "gomoku": (227, 184, 107)}
_LINES = {"reversi": (11, 61, 28), "gomoku": (90, 61, 18)}
_PLAIN_BACKGROUND = (244, 239, 230)
_PLAIN_LINES = (68, 68, 68)


def board_rgb(board: BaseBoard, cell: int = 32) -> np.ndarray:
    """``uint8`` array ``(height*cell + 2*margin, width*cell + 2*margin, 3)`` of ``board``."""
    w, h = board.width, board.height
    margin = cell // 2
    image = np.empty((h * cell + 2 * margin, w * cell + 2 * margin, 3), dtype=np.uint8)
    image[:] = _BACKGROUND.get(board.game, _PLAIN_BACKGROUND)
    line = _LINES.get(board.game, _PLAIN_LINES)
    stones_on_points = board.game == "gomoku"
    if stones_on_points:  # grid lines through the cell centres
        for k in range(w):
            x = margin + k * cell + cell // 2
            image[margin + cell // 2 : margin + (h - 1) * cell + cell // 2 + 1, x] = line
        for k in range(h):
            y = margin + k * cell + cell // 2
            image[y, margin + cell // 2 : margin + (w - 1) * cell + cell // 2 + 1] = line
    else:  # lines between the cells
        for k in range(w + 1):
            image[margin : margin + h * cell + 1, min(margin + k * cell, image.shape[1] - 1)] = line
        for k in range(h + 1):
            image[min(margin + k * cell, image.shape[0] - 1), margin : margin + w * cell + 1] = line
    yy, xx = np.mgrid[0:cell, 0:cell]
    centre = (cell - 1) / 2
    radius = cell * 0.42
    disc = (yy - centre) ** 2 + (xx - centre) ** 2 <= radius * radius
    rim = disc & ((yy - centre) ** 2 + (xx - centre) ** 2 >= (radius - 1.5) ** 2)
    for col, row, color in board.stones():
        y0, x0 = margin + row * cell, margin + col * cell
        patch = image[y0 : y0 + cell, x0 : x0 + cell]
        patch[disc] = (20, 20, 20) if color is BLACK else (245, 245, 245)
        patch[rim] = (0, 0, 0)
    return image
