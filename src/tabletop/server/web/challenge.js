// "Challenge this bot" on a bot's page (/@/NAME): the signed-in player offers it a game
// (POST /api/challenges), waits while the bot's program answers (GET /api/challenges/{id}),
// then takes their seat in the game's room (POST /api/rooms/{id}/seat) and opens it.

import { $ } from "/web/dom.js";
import { api, saveSeat } from "/web/net.js";

const GAMES = {
  "reversi": { game: "reversi", options: {} },
  "gomoku": { game: "gomoku", options: { rule: "freestyle" } },
  "renju": { game: "gomoku", options: { rule: "renju" } },
};
const WAIT_MS = 60000;

function say(text, error = false) {
  const note = $("challenge-status");
  note.textContent = text;
  note.classList.toggle("error", error);
}

async function answered(id) {
  const until = Date.now() + WAIT_MS;
  while (Date.now() < until) {
    const seen = await api("GET", `/api/challenges/${encodeURIComponent(id)}`);
    if (seen.status !== "open") return seen;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return null;
}

async function challenge(name, form) {
  const f = form.elements;
  const { game, options } = GAMES[f["challenge-game"].value];
  const [initial, increment] = f["challenge-clock"].value.split("+").map(Number);
  const body = { to: name, game, options, clock: { initial, increment }, rated: f["challenge-rated"].checked,
    color: "random" };
  const made = await api("POST", "/api/challenges", body);
  say(`Waiting for ${name} to answer…`);
  const seen = await answered(made.id);
  if (!seen) {
    await api("DELETE", `/api/challenges/${encodeURIComponent(made.id)}`).catch(() => {});
    say(`${name} did not answer: is its program running?`, true);
    return;
  }
  if (seen.status !== "accepted") {
    say(`${name} declined: its engine does not play that game.`, true);
    return;
  }
  const seat = await api("POST", `/api/rooms/${encodeURIComponent(seen.room)}/seat`);
  saveSeat(seen.room, { tokens: { [seat.seat]: seat.token }, invite: null, seq: 0 });
  location.href = `/play/${encodeURIComponent(seen.room)}`;
}

/** Offer the form on a bot's page when someone else is signed in. */
export async function initChallenge(page) {
  const form = $("challenge-form");
  if (!form || !page.bot) return;
  const me = (await api("GET", "/api/session")).name;
  if (!me || me.toLowerCase() === page.name.toLowerCase()) return;
  form.hidden = false;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    form.elements["challenge-send"].disabled = true;
    challenge(page.name, form)
      .catch((error) => say(error.message, true))
      .finally(() => { form.elements["challenge-send"].disabled = false; });
  });
}
