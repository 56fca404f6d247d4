// Opening a record on the start screen: paste or upload an SGF, GGF, PSQ or OBF
// record or a transcript, see its games, and review one or play on from any of
// its positions against a friend or the computer.
//
// The server reads the record (POST /api/records/import) and, for a refused
// one, names the line and the column; the page shows that message as it is.
// Reviewing or playing on makes a room (POST /api/rooms) that starts from the
// record's start position with its moves played: the whole game opens on its
// read-only review page (/review/ID, with the analysis), and stays in My games to
// play on at one screen; a room online waits for its opponent and so starts from
// the chosen position itself.

import { $ } from "/web/dom.js";
import { api, saveSeat } from "/web/net.js";
import { drawBoard } from "/web/board.js";
import { replay } from "/web/replay.js";
import { variantText } from "/web/lobby.js";
import { loadLevels, nameColours, nameLevels } from "/web/names.js";

const found = { games: [], format: "", positions: [] };

export function initImport() {
  const form = $("import-form");
  if (!form) return;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    read(null);
  });
  $("import-file").addEventListener("change", async () => {
    const file = $("import-file").files[0];
    if (!file) return;
    $("import-text").value = await file.text();
    read(file.name);
  });
  $("import-which").addEventListener("change", chooseGame);
  $("import-ply").addEventListener("change", showPosition);
  $("import-opponent").addEventListener("change", syncOpponent);
  $("import-review").addEventListener("click", () => openRoom(true));
  $("import-play").addEventListener("click", () => openRoom(false));
  $("import-text").addEventListener("input", () => keep(TEXT_KEY, $("import-text").value));
  // the record pasted before leaving this page (Review, Play from here, a link) comes back with
  // Back, read again when it had been read
  const kept = sessionStorage.getItem(TEXT_KEY);
  if (kept && !$("import-text").value) {
    $("import-text").value = kept;
    if (sessionStorage.getItem(READ_KEY) === kept) read(null);
  }
}

const TEXT_KEY = "tabletop.import.text";
const READ_KEY = "tabletop.import.read";

function keep(key, value) {
  try {
    sessionStorage.setItem(key, value);
  } catch {
    // storage full or disabled: the record is only lost on leaving the page, as without it
  }
}

async function read(filename) {
  const text = $("import-text").value;
  keep(TEXT_KEY, text);
  keep(READ_KEY, text);
  $("import-error").textContent = "";
  if (!text.trim()) {
    $("import-error").textContent = "Paste a record or choose a file first.";
    return;
  }
  const body = { text };
  if (filename) body.filename = filename;
  if ($("import-game").value) body.game = $("import-game").value;
  try {
    const answer = await api("POST", "/api/records/import", body);
    found.games = answer.games;
    found.format = answer.format;
  } catch (error) {
    $("import-found").hidden = true;
    $("import-error").textContent = error.message;
    return;
  }
  const which = $("import-which");
  which.replaceChildren(...found.games.map((g, i) => new Option(`${i + 1}. ${gameLine(g)}`, String(i))));
  $("import-which-box").hidden = found.games.length < 2;
  $("import-found").hidden = false;
  chooseGame();
}

function players(g) {
  const { black, white, black_rating: blackRating, white_rating: whiteRating } = g.tags;
  const who = (name, rating) => `${name || "?"}${rating ? ` (${rating})` : ""}`;
  return black || white ? `${who(black, blackRating)} – ${who(white, whiteRating)}` : "";
}

/** The record's facts besides its moves: event, date and time control (seconds + increment). */
function facts(g) {
  const { event, date, time_control: clock } = g.tags;
  const seconds = /^(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$/.exec(clock || "");
  const clockText = seconds
    ? `${Number(seconds[1]) % 60 ? `${seconds[1]} s` : `${Number(seconds[1]) / 60} min`}${seconds[2] ? ` + ${seconds[2]} s` : ""}`
    : clock;
  return [event, date, clockText].filter(Boolean).join(", ");
}

function gameLine(g) {
  const parts = [variantText(g.game, g.options), players(g), facts(g)];
  parts.push(g.moves.length ? `${g.moves.length} ${g.moves.length === 1 ? "move" : "moves"}` : "a position");
  if (g.result) parts.push(g.result);
  return parts.filter(Boolean).join(" · ");
}

function chosen() {
  return found.games[Number($("import-which").value) || 0];
}

function chooseGame() {
  const g = chosen();
  $("import-summary").textContent = `${found.format.toUpperCase()}: ${gameLine(g)}`;
  found.positions = replay(g.game, g.position, g.moves);
  const names = g.game === "tictactoe" ? ["X", "O"] : ["Black", "White"];
  const options = [new Option(g.moves.length ? "The start" : "The position", "0")];
  g.moves.forEach((move, i) => {
    const side = found.positions[i].endsWith(" O") ? names[1] : names[0];
    options.push(new Option(`After ${i + 1}. ${move} (${side})`, String(i + 1)));
  });
  const ply = $("import-ply");
  ply.replaceChildren(...options);
  ply.value = String(g.moves.length);
  showPosition();
}

/** The chosen ply's board, and the side to move there offered as the player's colour. */
function showPosition() {
  const g = chosen();
  const ply = Number($("import-ply").value);
  const position = found.positions[ply];
  const moves = g.moves.slice(0, ply);
  const last = [...moves].reverse().find((m) => m !== "pass") || null;
  $("import-board").replaceChildren(drawBoard({ game: g.game, position, last }));
  $("import-as").value = position.endsWith(" O") ? "white" : "black";
  nameColours($("import-as"), g.game, false);
  loadLevels().then((data) => nameLevels($("import-level"), data, g.game, g.options && g.options.rule));
  syncOpponent();
}

function syncOpponent() {
  const opponent = $("import-opponent").value;
  $("import-level-box").hidden = opponent !== "computer";
  $("import-as-box").hidden = opponent === "friend";
}

/** A room from the record: the whole game to review, or the chosen position to play on from. */
async function openRoom(review) {
  const g = chosen();
  const ply = review ? g.moves.length : Number($("import-ply").value);
  const opponent = review ? "friend" : $("import-opponent").value;
  const as = $("import-as").value;
  const body = { game: g.game, options: g.options, mode: "local", seats: { black: "human", white: "human" } };
  if (opponent === "online") {
    body.mode = "online";
    body.as = as;
    body.position = found.positions[ply];
  } else {
    body.position = g.start_position;
    body.moves = g.moves.slice(0, ply);
  }
  if (opponent === "computer") {
    body.seats[as === "black" ? "white" : "black"] = `level:${$("import-level").value}`;
    body.as = as;
  }
  $("import-error").textContent = "";
  try {
    const created = await api("POST", "/api/rooms", body);
    saveSeat(created.room, { tokens: created.tokens || {}, invite: created.invite || null, seq: 0, mode: body.mode });
    location.assign(`/${review ? "review" : "play"}/${encodeURIComponent(created.room)}`);
  } catch (error) {
    $("import-error").textContent = `Could not open the game: ${error.message}`;
  }
}
