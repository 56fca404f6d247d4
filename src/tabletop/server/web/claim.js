// A correspondence game whose opponent ran out of time: the game does not end by itself,
// this player may claim the win (the "claim_time" frame; the server checks the clock and
// refuses an early claim).  Only a correspondence clock leaves a game going with the side
// to move at 0, so the box shows exactly then.

import { $ } from "/web/dom.js";
import { game, colorName, isLocal, isPlayer, mine } from "/web/state.js";

/** The opponent, to move, whose time is up in this player's game; or null. */
function lateOpponent() {
  const room = game.room;
  if (!room || room.outcome || !room.clocks || !room.turn || !isPlayer() || isLocal()) return null;
  if (mine(room.turn) || room.clocks[room.turn] > 0) return null;
  return room.turn;
}

/** Show (or hide) the claim box; called on every render. */
export function renderTimeClaim() {
  const box = $("time-up");
  if (!box) return;
  const late = lateOpponent();
  box.hidden = !late;
  if (late) $("time-up-text").textContent = `${colorName(late)}'s time for this move is up.`;
}

export function bindTimeClaim() {
  $("claim-time").addEventListener("click", () => game.conn && game.conn.send({ type: "claim_time" }));
}
