// The games being played that anyone may watch (GET /api/live), on the start page and in the
// lobby: rated games first, by the players' ratings (the server's order), each with a link that
// opens the game as a spectator, who sees its moves and clocks live.  The list is read again
// every 15 seconds while the page is open.

import { $ } from "/web/dom.js";
import { api } from "/web/net.js";
import { clockText, variantText } from "/web/lobby.js";

const EVERY_MS = 15000;

function side(player, color, gameName) {
  if (player) return `${player.bot ? "BOT " : ""}${player.name} (${player.display})`;
  if (gameName === "tictactoe") return color === "black" ? "X" : "O";
  return color === "black" ? "Black" : "White";
}

function item(live) {
  const li = document.createElement("li");
  li.dataset.room = live.room;
  const who = document.createElement("strong");
  who.textContent = `${side(live.black, "black", live.game)} – ${side(live.white, "white", live.game)}`;
  const what = [variantText(live.game, live.options)];
  if (live.clock) what.push(clockText(live.clock));
  what.push(live.rated ? "Rated" : live.black ? "Casual" : "Guests");
  const watch = document.createElement("a");
  watch.className = "button";
  watch.href = live.watch;
  watch.textContent = "Watch";
  watch.setAttribute("aria-label", `Watch ${who.textContent}, ${what.join(", ")}`);
  const info = document.createElement("div");
  const details = document.createElement("span");
  details.className = "what";
  details.textContent = what.join(" · ");
  info.append(who, details);
  li.append(info, watch);
  return li;
}

/** Fill ``list`` with the games being played; ``box`` (hidden while none) or ``none`` (a line shown
 * while none) say when there are none. */
async function refresh(list, box, none) {
  let games;
  try {
    games = (await api("GET", "/api/live")).games || [];
  } catch {
    return; // the next round tries again
  }
  list.replaceChildren(...games.map(item));
  if (box) box.hidden = games.length === 0;
  if (none) none.hidden = games.length > 0;
}

/** Show the games being played in the list ``listId``, kept fresh. */
export function initLive(listId, { boxId = null, noneId = null } = {}) {
  const list = $(listId);
  const box = boxId ? $(boxId) : null;
  const none = noneId ? $(noneId) : null;
  const round = () => refresh(list, box, none);
  round();
  setInterval(round, EVERY_MS);
  return round;
}
