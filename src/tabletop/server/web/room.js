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
      const presence = game.presenceSeen;
      const state = await api("GET", `/api/rooms/${encodeURIComponent(game.id)}`);
      if (game.presenceSeen !== presence) {
        // a "watchers" frame came while the GET was answered: its word on who is here is the newer
        for (const key of ["watchers", "away"]) delete state[key];
        for (const [color, seat] of Object.entries(state.seats || {})) {
          const held = game.room && game.room.seats ? game.room.seats[color] : null;
          if (seat && typeof seat === "object" && held && typeof held === "object") seat.connected = held.connected;
        }
      }
      const swapped = openingSwapped();
      setRoom(state);
      // The answer can overtake the socket's "colors_chosen", which the page then drops as
      // already held; the seats changed hands and only a new greeting names this page's.
      if (swapped !== null && openingSwapped() !== swapped && game.conn) {
        say("The players swap colours.", 6000, "info");
        game.conn.restart();
      }
    } catch (error) {
      say(error.message);
    }
  }, 30);
}

function openingSwapped() {
  const opening = game.room ? game.room.opening : null;
  return opening ? Boolean(opening.swapped) : null;
}
