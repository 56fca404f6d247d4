// Stepping through a game: which ply the board shows (game.view), and the keys,
// the move list and the graph that choose it.
//
// A finished game can be stepped through by anyone; a game in progress by a
// spectator and at one screen (hot-seat or against the computer), never by a
// player of an online game that is still going on.  While an earlier ply is
// shown the board takes no move; the End key, the last move in the list or the
// » button come back to the game.

import { parsePosition } from "/web/board.js";
import { game, isLocal, isPlayer, lastPlacement } from "/web/state.js";
import { replay, positionText, startPosition } from "/web/replay.js";

/** The position text after every ply of the game (0 = the start), or null if they cannot be replayed. */
export function positions() {
  const room = game.room;
  const moves = room.moves || [];
  const key = `${room.start_position || ""}|${moves.join(" ")}`;
  if (game.history && game.history.key === key) return game.history.positions;
  const start = room.start_position || positionText(startPosition(room.game, game.pos.width, game.pos.height));
  let list = replay(room.game, start, moves);
  // a move list the replay cannot follow (an opening choice that swapped the seats) is not shown
  if (list[list.length - 1] !== room.position) list = null;
  game.history = { key, positions: list };
  return list;
}

export function canReview() {
  const room = game.room;
  if (!room || !(room.moves || []).length || !positions()) return false;
  return Boolean(room.outcome) || !isPlayer() || isLocal();
}

/** The ply the board shows: the one chosen, or the latest. */
export function shownPly() {
  const n = (game.room.moves || []).length;
  return game.view === null ? n : Math.min(game.view, n);
}

/** The position to draw and its last stone: the game's own, or the chosen ply's. */
export function shownPosition() {
  if (game.view === null) return { pos: game.pos, last: game.last, live: true };
  const ply = shownPly();
  const moves = (game.room.moves || []).slice(0, ply);
  return { pos: parsePosition(positions()[ply]), last: lastPlacement(moves), live: false };
}

/** Show the position after ``ply`` moves (clamped to the game); the latest follows the game again. */
export function showPly(ply, redraw) {
  if (!canReview()) return;
  const n = game.room.moves.length;
  const at = Math.max(0, Math.min(n, ply));
  game.view = at === n ? null : at;
  redraw();
}

export function step(delta, redraw) {
  showPly(shownPly() + delta, redraw);
}

const KEYS = { ArrowLeft: -1, ArrowRight: 1 };

/** Arrow keys, Home and End anywhere but on the board (whose arrows move between squares) or a form field. */
export function onReviewKey(event, redraw) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
  const target = event.target;
  if (target.closest && (target.closest("#board") || target.closest("input, select, textarea, dialog"))) return;
  if (!canReview()) return;
  if (event.key in KEYS) step(KEYS[event.key], redraw);
  else if (event.key === "Home") showPly(0, redraw);
  else if (event.key === "End") showPly(Infinity, redraw);
  else return;
  event.preventDefault();
}
