// "My games" on the start screen: the games this browser holds a seat in (the
// seats net.js keeps in localStorage), newest first, each with its opponent,
// its result or whose turn it is, and its date: a game in progress opens to
// resume (/play/ID), a finished one to its read-only review (/review/ID).
//
// The list is built from the seats alone: a room's id begins with its creation
// time (see new_room_id on the server), and its state comes from GET
// /api/rooms/{id}.  A game the server no longer knows is left out.

import { $ } from "/web/dom.js";
import { api } from "/web/net.js";
import { variantText } from "/web/lobby.js";

const PREFIX = "tabletop.room.";
const DIGITS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
const SHOWN = 20;

/** The creation time a room id begins with (7 characters of sorted base-64 milliseconds), or null. */
export function createdAt(id) {
  let ms = 0;
  for (const ch of id.slice(0, 7)) {
    const digit = DIGITS.indexOf(ch);
    if (digit < 0) return null;
    ms = ms * 64 + digit;
  }
  return id.length >= 7 ? new Date(ms) : null;
}

/** The rooms this browser holds a seat in, newest first: [{id, colors}]. */
function heldRooms() {
  const rooms = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(PREFIX)) continue;
      const seat = JSON.parse(localStorage.getItem(key) || "null");
      const colors = Object.keys((seat && seat.tokens) || {});
      if (colors.length) rooms.push({ id: key.slice(PREFIX.length), colors });
    }
  } catch {
    // storage that cannot be read holds no games
  }
  return rooms.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, SHOWN);
}

function sideName(room, color) {
  if (room.game === "tictactoe") return color === "black" ? "X" : "O";
  return color === "black" ? "Black" : "White";
}

function opponentText(room, colors) {
  const kinds = ["black", "white"].map((c) => (room.seats && room.seats[c] ? room.seats[c].kind : "human"));
  const computer = kinds.find((k) => k !== "human");
  if (computer) {
    const level = /^level:(\d+)$/.exec(computer);
    return level ? `the computer, level ${level[1]}` : `the computer (${computer})`;
  }
  if (colors.length === 2) return "a friend at this screen";
  const other = colors[0] === "black" ? "white" : "black";
  const seat = room.seats && room.seats[other];
  return seat && seat.taken === false ? "a friend online (not joined yet)" : "a friend online";
}

function resultText(room, colors) {
  const outcome = room.outcome;
  if (!outcome) {
    const turn = room.turn;
    const ply = (room.moves || []).length;
    if (colors.length === 1 && turn === colors[0]) return `your move (after ${ply} moves)`;
    return `in progress, ${ply} ${ply === 1 ? "move" : "moves"}`;
  }
  if (outcome.reason === "aborted") return "aborted, no result";
  // a game won because the other player left has no disc count to show
  const counted = room.game === "reversi" && outcome.score && outcome.reason !== "abandoned";
  const score = counted ? ` ${outcome.score[0]}–${outcome.score[1]}` : "";
  if (!outcome.winner) return `draw${score}`;
  if (colors.length === 1) return `${outcome.winner === colors[0] ? "won" : "lost"}${score}`;
  return `${sideName(room, outcome.winner)} won${score}`;
}

function item(id, colors, room) {
  const li = document.createElement("li");
  li.dataset.room = id;
  const over = Boolean(room.outcome);
  const link = document.createElement("a");
  link.className = "button";
  link.href = `/${over ? "review" : "play"}/${encodeURIComponent(id)}`;
  link.textContent = over ? "Review" : "Resume";
  const when = createdAt(id);
  const date = when ? when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "";
  const variant = variantText(room.game, room.options || {});
  // the row's text describes the link (a label holding "a friend at this screen" would also name
  // the start form's fields of those words)
  const text = document.createElement("span");
  text.className = "my-game";
  text.id = `my-game-${id}`;
  link.setAttribute("aria-describedby", text.id);
  const title = document.createElement("strong");
  title.textContent = variant;
  const details = document.createElement("span");
  details.className = "my-game-details";
  const mine = colors.length === 1 ? ` as ${sideName(room, colors[0])}` : "";
  details.textContent = `vs ${opponentText(room, colors)}${mine} · ${resultText(room, colors)}`;
  const time = document.createElement("time");
  if (when) time.dateTime = when.toISOString();
  time.textContent = date;
  text.append(title, details, time);
  li.append(text, link);
  return li;
}

export async function initMyGames() {
  const rooms = heldRooms();
  if (!rooms.length) return;
  const states = await Promise.all(
    rooms.map((r) => api("GET", `/api/rooms/${encodeURIComponent(r.id)}`).catch(() => null)),
  );
  const list = $("my-games-list");
  list.replaceChildren(...rooms.flatMap((r, i) => (states[i] ? [item(r.id, r.colors, states[i])] : [])));
  $("my-games").hidden = list.children.length === 0;
}
