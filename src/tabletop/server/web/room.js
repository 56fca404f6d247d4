// Adopting a full room state (GET /api/rooms/{id} or a "state" frame) into the
// page's state, and asking for one again when an event cannot be applied locally.

import { say } from "/web/dom.js";
import { parsePosition, squareName } from "/web/board.js";
import { api } from "/web/net.js";
import { game, lastPlacement } from "/web/state.js";
import { render } from "/web/render.js";
import { gameEnded } from "/web/result.js";
import { setupExport } from "/web/record.js";
import { setAway } from "/web/away.js";

export function setRoom(state) {
  const previous = game.room;
  // a GET answered after newer events arrived on the socket must not turn the board back
  if (previous && typeof state.version === "number" && state.version < previous.version) return;
  game.room = { ...(previous || {}), ...state };
  game.awaitingTurn = false; // a full state holds the turn that goes with its moves
  game.pos = parsePosition(game.room.position);
  const moves = game.room.moves || [];
  game.positions.set(moves.length, game.room.position);
  game.last = lastPlacement(moves);
  game.flips = new Set();
  if (game.room.clocks) game.clocksAt = performance.now();
  if (typeof state.watchers === "number") game.watchers = state.watchers;
  if ("thinking" in state) game.thinking = state.thinking || null;
  if ("away" in state) setAway(state.away);
  if (state.watchers && typeof state.watchers.count === "number") game.watchers = state.watchers.count;
  if (!game.room.outcome) game.resultShown = false;
  if (!game.focus) game.focus = centreSquare();
  setupExport();
  render();
  if (game.room.outcome) gameEnded();
}

function centreSquare() {
  const { width, height } = game.pos;
  return squareName(game.room.game, height, Math.floor((width - 1) / 2), Math.floor((height - 1) / 2));
}

export function refreshSoon() {
  clearTimeout(game.refreshTimer);
  game.refreshTimer = setTimeout(async () => {
    try {
      setRoom(await api("GET", `/api/rooms/${encodeURIComponent(game.id)}`));
    } catch (error) {
      say(error.message);
    }
  }, 30);
}
