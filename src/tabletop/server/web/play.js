// The game screen's start: take a seat (invite link), load the room, open its
// websocket and keep the clocks ticking.

import { $, say, showMissing } from "/web/dom.js";
import { api, ApiError, loadSeat, saveSeat, RoomConnection } from "/web/net.js";
import { game, isPlayer, tournamentOfRoom } from "/web/state.js";
import { setRoom } from "/web/room.js";
import { onFrame } from "/web/events.js";
import { render, tickClocks } from "/web/render.js";
import { bindControls } from "/web/controls.js";
import { bindTimeClaim } from "/web/claim.js";
import { initAnalysis } from "/web/analysis.js";
import { initChat } from "/web/chat.js";
import { bindAway, renderAway } from "/web/away.js";

/** Whether every human seat of the room is taken (false when that cannot be read: the
 * join that follows then says what is wrong). */
async function seatsTaken(roomId) {
  try {
    const state = await api("GET", `/api/rooms/${encodeURIComponent(roomId)}`);
    const seats = Object.values(state.seats || {}).filter((seat) => seat && typeof seat === "object");
    return seats.length > 0 && seats.every((seat) => seat.taken !== false);
  } catch {
    return false;
  }
}

export async function initPlay(roomId) {
  $("play-view").hidden = false;
  game.id = roomId;
  game.seat = loadSeat(roomId);
  const params = new URLSearchParams(location.search);
  const invite = params.get("invite");
  if (invite && !isPlayer() && (await seatsTaken(roomId))) {
    // asking to join would only be refused (a 409 the browser logs as an error)
    say("Both seats are taken, so you are watching this game.", 0, "error", "event");
  } else if (invite && !isPlayer()) {
    try {
      const joined = await api("POST", `/api/rooms/${encodeURIComponent(roomId)}/join`, { invite });
      game.seat = { tokens: { [joined.seat]: joined.token }, invite: null, seq: 0, mode: "online" };
      saveSeat(roomId, game.seat);
    } catch (error) {
      const why = error instanceof ApiError && error.status === 409
        ? "Both seats are taken, so you are watching this game."
        : error instanceof ApiError && error.status === 404
          ? "There is no such game."
          : `Could not join (${error.message}); you are watching.`;
      say(why, 0, "error", "event");
    }
  }
  if (invite) history.replaceState(null, "", `/play/${encodeURIComponent(roomId)}`);
  bindControls();
  bindAway();
  bindTimeClaim();
  try {
    setRoom(await api("GET", `/api/rooms/${encodeURIComponent(roomId)}`));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      showMissing("No such game", `There is no game ${roomId} on this server: the link may be mistyped, or the game was deleted.`);
    } else {
      say(error.message, 0);
    }
    return;
  }
  initAnalysis();
  // a tournament game: a link back, and the player's next game opened when it starts
  const tournament = tournamentOfRoom();
  if (tournament) import("/web/tournaments.js").then((m) => m.followTournament(roomId, tournament.id));
  game.conn = new RoomConnection(roomId, game.seat, {
    onFrame: onFrame,
    onStatus: showConnection,
    currentVersion: () => (game.room ? game.room.version : null),
  });
  game.conn.open();
  initChat();
  setInterval(() => {
    tickClocks();
    renderAway(); // the countdown to ending a game the opponent left
  }, 250);
  addEventListener("resize", () => requestAnimationFrame(render)); // a phone turned sideways
  window.tabletop = game; // lets tests and curious users look inside
}

function showConnection(status) {
  const badge = $("connection");
  badge.hidden = false;
  badge.dataset.status = status;
  badge.textContent = {
    connecting: "Connecting…",
    connected: "Connected",
    reconnecting: "Reconnecting…",
    closed: "Offline",
  }[status] || status;
}

