// "Your move" on the start screen: a signed-in player's games in progress where it is
// their move (or where the opponent's correspondence time ran out and the win may be
// claimed), each with the time left, from GET /api/me/games.
//
// A game opens at /play/ID.  When this browser holds no seat token for it (the game
// was started in another browser, or a correspondence seek was accepted while the
// player was away), the player's seat is taken first with POST /api/rooms/{id}/seat
// and kept where net.js keeps seats.

import { $ } from "/web/dom.js";
import { api, loadSeat, saveSeat } from "/web/net.js";
import { variantText } from "/web/lobby.js";
import { botMark } from "/web/bots.js";

/** A number of seconds as the time left reads: "2 d 5 h", "3 h 20 min", "45 s". */
export function timeLeftText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m} min`;
  if (m) return `${m} min`;
  return `${s} s`;
}

async function open(game) {
  const seat = loadSeat(game.room);
  if (!seat.tokens || !seat.tokens[game.color]) {
    const taken = await api("POST", `/api/rooms/${encodeURIComponent(game.room)}/seat`);
    saveSeat(game.room, { ...seat, tokens: { [taken.seat]: taken.token }, seq: seat.seq || 0 });
  }
  location.href = `/play/${encodeURIComponent(game.room)}`;
}

function item(game) {
  const li = document.createElement("li");
  li.dataset.room = game.room;
  const link = document.createElement("a");
  link.href = `/play/${encodeURIComponent(game.room)}`;
  link.append(`${variantText(game.game, game.options)} against `);
  const mark = botMark(game.opponent.bot);
  if (mark) link.append(mark, " ");
  link.append(game.opponent.name);
  link.addEventListener("click", (event) => {
    event.preventDefault();
    open(game).catch((error) => {
      li.querySelector(".error")?.remove();
      const note = document.createElement("span");
      note.className = "error";
      note.textContent = ` ${error.message}`;
      li.append(note);
    });
  });
  const when = document.createElement("span");
  when.className = "time-left";
  if (game.claimable) when.textContent = "their time is up: claim the win";
  else if (game.time_left === null) when.textContent = "your move";
  else when.textContent = `your move, ${timeLeftText(game.time_left)} left`;
  li.append(link, " — ", when);
  return li;
}

/** Fill the list for the signed-in player (nothing when signed out). */
export async function initYourMove() {
  const section = $("your-move");
  if (!section) return;
  let games;
  try {
    // asked only when signed in: a refused request would be an error in the console
    if (!(await api("GET", "/api/session")).name) return;
    games = (await api("GET", "/api/me/games")).games;
  } catch {
    return; // an older server, or the network away: no list
  }
  const due = games.filter((g) => g.your_move || g.claimable);
  const list = $("your-move-list");
  list.replaceChildren(...due.map(item));
  section.hidden = due.length === 0;
}
