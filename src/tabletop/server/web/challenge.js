// "Challenge this bot" on a bot's page (/@/NAME), "Challenge NAME" on a person's: the signed-in
// player offers a game (POST /api/challenges), waits while the bot's program or the person
// answers (GET /api/challenges/{id}; the person sees it under their top bar, incoming.js), then
// takes their seat in the game's room (POST /api/rooms/{id}/seat) and opens it.

import { $ } from "/web/dom.js";
import { api, saveSeat } from "/web/net.js";

const GAMES = {
  "reversi": { game: "reversi", options: {} },
  "gomoku": { game: "gomoku", options: { rule: "freestyle" } },
  "renju": { game: "gomoku", options: { rule: "renju" } },
  "tictactoe": { game: "tictactoe", options: {} },
};
// a bot's program answers at once; a person may be away from the screen for a while
const WAIT_MS = { bot: 60000, person: 300000 };

function say(text, error = false) {
  const note = $("challenge-status");
  note.textContent = text;
  note.classList.toggle("error", error);
}

async function answered(id, wait) {
  const until = Date.now() + wait;
  while (Date.now() < until) {
    const seen = await api("GET", `/api/challenges/${encodeURIComponent(id)}`);
    if (seen.status !== "open") return seen;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return null;
}

async function challenge(page, form) {
  const name = page.name;
  const f = form.elements;
  const { game, options } = GAMES[f["challenge-game"].value];
  const [initial, increment] = f["challenge-clock"].value.split("+").map(Number);
  const body = { to: name, game, options, clock: { initial, increment }, rated: f["challenge-rated"].checked,
    color: "random" };
  const made = await api("POST", "/api/challenges", body);
  say(`Waiting for ${name} to answer…`);
  const seen = await answered(made.id, page.bot ? WAIT_MS.bot : WAIT_MS.person);
  if (!seen) {
    await api("DELETE", `/api/challenges/${encodeURIComponent(made.id)}`).catch(() => {});
    say(page.bot ? `${name} did not answer: is its program running?` : `${name} did not answer; the challenge is withdrawn.`,
      true);
    return;
  }
  if (seen.status !== "accepted") {
    say(page.bot ? `${name} declined: its engine does not play that game.` : `${name} declined the challenge.`, true);
    return;
  }
  const seat = await api("POST", `/api/rooms/${encodeURIComponent(seen.room)}/seat`);
  saveSeat(seen.room, { tokens: { [seat.seat]: seat.token }, invite: null, seq: 0 });
  location.href = `/play/${encodeURIComponent(seen.room)}`;
}

/** Offer the form on another player's page when someone is signed in (a person may be asked for
 * Tic-tac-toe too; no engine of a bot plays it). */
export async function initChallenge(page) {
  const form = $("challenge-form");
  if (!form) return;
  const me = (await api("GET", "/api/session")).name;
  if (!me || me.toLowerCase() === page.name.toLowerCase()) return;
  const label = page.bot ? "Challenge this bot" : `Challenge ${page.name}`;
  form.setAttribute("aria-label", label);
  form.elements["challenge-send"].textContent = label;
  form.querySelector("option[value=tictactoe]").hidden = page.bot;
  form.hidden = false;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    form.elements["challenge-send"].disabled = true;
    challenge(page, form)
      .catch((error) => say(error.message, true))
      .finally(() => { form.elements["challenge-send"].disabled = false; });
  });
}
