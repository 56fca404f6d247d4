// The position after every move of a game, for stepping through it.
//
// The server sends the current position and the list of moves; to show an
// earlier move the page replays the moves from the start.  That takes two
// facts of the rules, kept here and nowhere else on the page: a move places a
// stone of the side to move (and a Reversi move turns the lines of opposing
// discs it closes), and Reversi starts from four discs in the centre.  The
// browser tests replay random games of the library (tabletop.games) and
// compare every position, so this copy cannot drift from the rules.

import { parsePosition, squareAt } from "/web/board.js";

const STEPS = [[-1, -1], [0, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [0, 1], [1, 1]];

/** Position text from a parsed position (the inverse of parsePosition). */
export function positionText(pos) {
  const rows = pos.cells.map((row) => row.map((c) => (c === "black" ? "X" : c === "white" ? "O" : "-")).join(""));
  return `${rows.join("/")} ${pos.turn === "white" ? "O" : "X"}`;
}

/** The start of a game whose room gives no start position: Reversi's four centre discs, or an empty board. */
export function startPosition(game, width, height) {
  const cells = Array.from({ length: height }, () => Array(width).fill(null));
  if (game === "reversi") {
    const r = height / 2 - 1;
    const c = width / 2 - 1;
    cells[r][c] = "white";
    cells[r + 1][c + 1] = "white";
    cells[r][c + 1] = "black";
    cells[r + 1][c] = "black";
  }
  return { width, height, cells, turn: "black" };
}

/** The discs a Reversi move at (col, row) turns for ``color``. */
function flipsOf(pos, col, row, color) {
  const turned = [];
  for (const [dc, dr] of STEPS) {
    const line = [];
    let c = col + dc;
    let r = row + dr;
    while (r >= 0 && r < pos.height && c >= 0 && c < pos.width && pos.cells[r][c] && pos.cells[r][c] !== color) {
      line.push([c, r]);
      c += dc;
      r += dr;
    }
    if (line.length && r >= 0 && r < pos.height && c >= 0 && c < pos.width && pos.cells[r][c] === color) {
      turned.push(...line);
    }
  }
  return turned;
}

/**
 * The position text after each ply: element 0 is the start, element i the position after
 * moves[i - 1].  A move that is not a square (an opening choice such as "swap") changes
 * neither the board nor the side to move here.
 */
export function replay(game, start, moves) {
  const pos = parsePosition(start);
  const out = [positionText(pos)];
  for (const move of moves) {
    const at = squareAt(game, pos.height, move);
    const color = pos.turn;
    if (at) {
      if (game === "reversi") {
        for (const [c, r] of flipsOf(pos, at.col, at.row, color)) pos.cells[r][c] = color;
      }
      pos.cells[at.row][at.col] = color;
    }
    if (at || move === "pass") pos.turn = color === "black" ? "white" : "black";
    out.push(positionText(pos));
  }
  return out;
}
