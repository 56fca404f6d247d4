// The chat of an online game (docs/wire.md, "Chat"): the players' messages and the
// spectators', shown as text only (textContent, never markup), with a mute per
// author that this browser remembers.  The server keeps the spectators' chat from
// the players until the game is over; then a player's page asks for the whole
// chat.  The review page shows both channels and takes no message.

import { $ } from "/web/dom.js";
import { api } from "/web/net.js";
import { game, colorName, isPlayer } from "/web/state.js";

const MUTED = "tabletop.chat.muted"; // authors muted in this browser, newest last
const KEY = "tabletop.chat.key"; // a guest spectator's secret; the server shows a handle made from it
const ME = "tabletop.chat.me"; // the author this browser writes as when it watches
const chat = { messages: new Map(), muted: stored(MUTED, []), me: stored(ME, null), whole: false, on: false };

function stored(name, fallback) {
  try {
    return JSON.parse(localStorage.getItem(name)) ?? fallback;
  } catch {
    return fallback;
  }
}

function keep(name, value) {
  try {
    localStorage.setItem(name, JSON.stringify(value));
  } catch {
    // private mode: it lasts as long as the page
  }
}

function guestKey() {
  let key = stored(KEY, null);
  if (typeof key !== "string" || key.length < 16) {
    key = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
    keep(KEY, key);
  }
  return key;
}

/** Show the chat of an online room (``review``: read-only, both channels, from the server). */
export function initChat(review = false) {
  if (!game.room || game.room.mode !== "online") return;
  chat.on = true;
  $("chat").hidden = false;
  $("chat-form").hidden = review;
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chat-input").value;
    if (!text.trim()) return;
    const frame = { type: "chat", text };
    if (!isPlayer()) frame.guest = guestKey();
    $("chat-error").textContent = "";
    game.conn.send(frame);
  });
  if (review || game.room.outcome) chatGameOver();
  drawChat();
}

/** The game is over: everyone may read both channels now. */
export async function chatGameOver() {
  if (!chat.on || chat.whole) return;
  chat.whole = true;
  try {
    const log = await api("GET", `/api/rooms/${encodeURIComponent(game.id)}/chat`);
    for (const m of log.messages) chat.messages.set(m.id, m);
  } catch {
    chat.whole = false; // asked again at the next chance
  }
  drawChat();
}

/** A server frame of the chat: messages, the sender's own author, or a refusal (true when handled). */
export function onChat(frame) {
  if (frame.type === "chat_sent") {
    chat.me = frame.author;
    if (!isPlayer()) keep(ME, frame.author);
    $("chat-input").value = "";
  } else if (frame.type === "error") {
    if (!String(frame.code).startsWith("chat_")) return false;
    $("chat-error").textContent = `Not sent: ${frame.message}.`;
  } else {
    for (const m of frame.messages || []) chat.messages.set(m.id, m);
  }
  drawChat();
  return true;
}

function mute(author, on) {
  chat.muted = chat.muted.filter((a) => a !== author);
  if (on) chat.muted = [...chat.muted, author].slice(-200);
  keep(MUTED, chat.muted);
  drawChat();
}

function mineMessage(m) {
  return m.author === chat.me || (m.channel === "players" && Boolean(game.seat.tokens?.[m.seat]));
}

/** A player's name as the page calls the seats (X and O in Tic-tac-toe) unless signed in. */
function playerName(m) {
  const seat = m.seat === "black" || m.seat === "white" ? m.seat : null;
  return seat && m.name.toLowerCase() === seat ? colorName(seat) : m.name;
}

function drawChat() {
  if (!chat.on) return;
  const log = $("chat-log");
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
  const muted = new Map();
  const items = [];
  for (const m of [...chat.messages.values()].sort((a, b) => a.id - b.id)) {
    if (chat.muted.includes(m.author)) {
      muted.set(m.author, m.channel === "players" ? playerName(m) : m.name);
      continue;
    }
    const item = document.createElement("li");
    item.className = `chat-${m.channel}`;
    const name = document.createElement("b");
    name.textContent = m.channel === "spectators" ? `${m.name} (watching)` : playerName(m);
    item.append(name, " ", m.text); // text nodes: markup in a message stays text
    if (!mineMessage(m)) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "ghost chat-mute";
      button.textContent = "Mute";
      button.setAttribute("aria-label", `Mute ${name.textContent}`);
      button.addEventListener("click", () => mute(m.author, true));
      item.append(" ", button);
    }
    items.push(item);
  }
  log.replaceChildren(...items);
  log.hidden = items.length === 0;
  if (atEnd) log.scrollTop = log.scrollHeight;
  const box = $("chat-muted");
  box.replaceChildren();
  box.hidden = muted.size === 0;
  for (const [author, name] of muted) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "ghost";
    button.textContent = `Unmute ${name}`;
    button.addEventListener("click", () => mute(author, false));
    box.append(button, " ");
  }
  const over = Boolean(game.room.outcome);
  $("chat-rule").textContent = over
    ? "The players' and the spectators' chat."
    : isPlayer()
      ? "Chat with your opponent. The spectators' chat shows after the game."
      : "You write in the spectators' chat; the players read it after the game.";
}
