// An abandoned online game: when the opponent has left (no connection holds their seat), this
// player sees how long until the game may be ended, then may claim the win or call the game
// off; and while a side has not moved yet, either player may abort it (the Abort button).
// The server decides: it sends, for each seat that is away, the seconds left
// (room.away, in the state and each "watchers" frame), and refuses an early claim.

import { $ } from "/web/dom.js";
import { game, COLORS, colorName, isLocal, isPlayer, mine } from "/web/state.js";

/** Adopt the server's view of who is away: {colour: seconds until the game may be ended}. */
export function setAway(away) {
  game.away = away && typeof away === "object" ? away : {};
  game.awayAt = performance.now();
}

/** Whether a side has not moved yet, so that either player may abort the game. */
export function abortable() {
  const moved = game.room && game.room.moved;
  return Boolean(moved) && !COLORS.every((c) => moved[c]);
}

/** The opponent who has left this player's live online game, with the seconds left; or null. */
function opponentAway() {
  const room = game.room;
  if (!room || room.outcome || !isPlayer() || isLocal() || !game.away) return null;
  const color = COLORS.find((c) => !mine(c) && typeof game.away[c] === "number");
  if (!color) return null;
  const elapsed = (performance.now() - (game.awayAt || 0)) / 1000;
  return { color, left: Math.max(0, game.away[color] - elapsed) };
}

function countdown(seconds) {
  const s = Math.ceil(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** Show (or hide) the box under the board; called on every render and every tick of the clocks. */
export function renderAway() {
  const box = $("away");
  if (!box) return;
  const gone = opponentAway();
  box.hidden = !gone;
  if (!gone) return;
  const name = colorName(gone.color);
  const ready = gone.left <= 0;
  const text = ready
    ? `${name} has been gone too long: you may claim the win, call the game off, or keep waiting.`
    : `${name} has left the game. If they are not back in ${countdown(gone.left)}, you may claim the win or call the game off.`;
  if ($("away-text").textContent !== text) $("away-text").textContent = text;
  box.dataset.ready = String(ready);
  // the win is claimed only once both sides have moved; before that the game is aborted
  $("claim-win").hidden = abortable();
  $("claim-win").disabled = !ready;
  $("claim-abort").disabled = !ready && !abortable();
}

export function bindAway() {
  $("claim-win").addEventListener("click", () => game.conn && game.conn.send({ type: "claim_abandoned" }));
  $("claim-abort").addEventListener("click", () => game.conn && game.conn.send({ type: "abort" }));
  $("abort").addEventListener("click", () => game.conn && game.conn.send({ type: "abort" }));
}
