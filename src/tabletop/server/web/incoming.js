// Challenges to the signed-in player (GET /api/challenges: those still open whose challenged
// player is us), shown under the top bar on every screen but a game's, each with Accept and
// Decline.  Accepting starts the game (POST /api/challenges/{id}/accept answers our seat's token),
// keeps the seat where net.js keeps seats and opens the game; declining tells the challenger
// (POST /api/challenges/{id}/decline).  The list is read again every few seconds while a player
// is signed in, and at once when the page comes back into view.

import { $ } from "/web/dom.js";
import { api, saveSeat } from "/web/net.js";
import { clockText, variantText } from "/web/lobby.js";
import { withBotMark } from "/web/bots.js";

const EVERY_MS = 4000;

const incoming = {
  me: null,
  timer: null,
  shown: new Map(), // id -> challenge, as last drawn
};

function colourText(challenge) {
  // the challenge names the challenger's colour; the player reads their own
  const mine = { black: "white", white: "black" }[challenge.color];
  if (!mine) return "colours drawn at random";
  const names = challenge.game === "tictactoe" ? { black: "X", white: "O" } : { black: "Black", white: "White" };
  return `you play ${names[mine]}`;
}

function describe(challenge) {
  const parts = [variantText(challenge.game, challenge.options)];
  parts.push(challenge.clock ? clockText(challenge.clock) : "no clock");
  parts.push(challenge.rated ? "rated" : "casual", colourText(challenge));
  return parts.join(" · ");
}

function note(text) {
  $("incoming-error").textContent = text;
}

async function accept(challenge, buttons) {
  note("");
  for (const b of buttons) b.disabled = true;
  try {
    const seated = await api("POST", `/api/challenges/${encodeURIComponent(challenge.id)}/accept`);
    saveSeat(seated.room, { tokens: { [seated.seat]: seated.token }, invite: null, seq: 0, mode: "online" });
    location.assign(`/play/${encodeURIComponent(seated.room)}`);
  } catch (error) {
    note(`${challenge.challenger.name}'s challenge: ${error.message}`);
    refresh();
  }
}

async function decline(challenge, buttons) {
  note("");
  for (const b of buttons) b.disabled = true;
  try {
    await api("POST", `/api/challenges/${encodeURIComponent(challenge.id)}/decline`);
  } catch (error) {
    note(`${challenge.challenger.name}'s challenge: ${error.message}`);
  }
  refresh();
}

function item(challenge) {
  const li = document.createElement("li");
  li.dataset.challenge = challenge.id;
  const who = document.createElement("a");
  who.href = `/@/${encodeURIComponent(challenge.challenger.name)}`;
  who.textContent = challenge.challenger.name;
  const text = document.createElement("div");
  const line = document.createElement("strong");
  line.append(withBotMark(who, challenge.challenger.bot), " challenges you");
  const what = document.createElement("span");
  what.className = "what";
  what.textContent = describe(challenge);
  text.append(line, what);
  const yes = document.createElement("button");
  yes.type = "button";
  yes.className = "primary";
  yes.textContent = "Accept";
  yes.setAttribute("aria-label", `Accept ${challenge.challenger.name}'s challenge`);
  const no = document.createElement("button");
  no.type = "button";
  no.textContent = "Decline";
  no.setAttribute("aria-label", `Decline ${challenge.challenger.name}'s challenge`);
  yes.addEventListener("click", () => accept(challenge, [yes, no]));
  no.addEventListener("click", () => decline(challenge, [yes, no]));
  const actions = document.createElement("div");
  actions.className = "row";
  actions.append(yes, no);
  li.append(text, actions);
  return li;
}

function draw(challenges) {
  const ids = challenges.map((c) => c.id).join(" ");
  if (ids === [...incoming.shown.keys()].join(" ")) return; // unchanged: keep focus and buttons as they are
  incoming.shown = new Map(challenges.map((c) => [c.id, c]));
  $("incoming-list").replaceChildren(...challenges.map(item));
  $("incoming").hidden = challenges.length === 0 && !$("incoming-error").textContent;
}

async function refresh() {
  const me = incoming.me;
  if (!me) return;
  let all;
  try {
    all = (await api("GET", "/api/challenges")).challenges || [];
  } catch {
    return; // the next round tries again
  }
  if (incoming.me !== me) return; // signed out or in as someone else meanwhile
  const mine = all.filter((c) => c.status === "open" && c.challenged.name.toLowerCase() === me.toLowerCase());
  draw(mine.reverse()); // oldest first: the one waiting longest on top
}

function schedule() {
  clearInterval(incoming.timer);
  incoming.timer = incoming.me ? setInterval(refresh, EVERY_MS) : null;
}

/** Show the challenges made to the player ``account`` names, kept fresh while signed in. */
export function initIncoming(account) {
  $("incoming").hidden = true;
  account.watch((name) => {
    incoming.me = name;
    if (!name) {
      draw([]);
      note("");
    }
    schedule();
    refresh();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refresh();
  });
  window.tabletopIncoming = incoming; // lets tests look inside
}
