// The lobby screen (/lobby): the open seeks, live over WS /api/lobby/ws (a seek
// posted, taken or cancelled anywhere shows here without a reload), a form to
// post a seek, and Play now (quick pairing, with the computer offered after a
// wait the player picks).  Accepting a seek takes this browser to the game; when
// another player accepts one of ours, the lobby socket says so and this page
// collects our seat (POST /api/seeks/{id}/seat) and follows.  Pairing, ratings
// and who may do what are the server's; this module only shows and asks.

import { $ } from "/web/dom.js";
import { api, openFeed, saveSeat, showLive } from "/web/net.js";
import { gameTitle } from "/web/state.js";
import { openDialog } from "/web/account.js";
import { nameColours, poolLabel } from "/web/names.js";
import { initLive } from "/web/live.js";
import { withBotMark } from "/web/bots.js";

// the pools offered in the leaderboard menu (any pool a seek shows is added to it)
const POOLS = ["reversi-8-blitz", "reversi-8-rapid", "gomoku-freestyle-blitz", "gomoku-renju-rapid",
  "tictactoe-bullet", "tictactoe-blitz"];

const lobby = {
  account: null,
  seeks: new Map(), // id -> seek, oldest first
  mine: new Set(), // ids of seeks this page posted or found to be ours
  socket: null,
  delay: 500,
  waiting: null, // {seek, computer, timer}: a Play now seek that waits
  leaving: false,
  refreshLive: null, // reads the games being played again (a taken seek starts one)
};

/** "Reversi 8×8", "Gomoku renju 15×15", "Tic-tac-toe". */
export function variantText(game, options = {}) {
  const parts = [gameTitle(game)];
  if (game === "gomoku") parts.push(options.rule || "freestyle");
  if (options.size) parts.push(`${options.size}×${options.size}`);
  return parts.join(" ");
}

/** A clock as minutes + increment seconds ("5+5"), or "—" for none. */
export function clockText(clock) {
  if (clock && clock.days) return `${clock.days} ${clock.days === 1 ? "day" : "days"} a move`;
  if (!clock || clock.initial == null) return "—";
  return `${Math.round((clock.initial / 60) * 100) / 100}+${clock.increment || 0}`;
}

function cell(row, content) {
  const td = document.createElement("td");
  td.append(content);
  row.append(td);
  return td;
}

function playerLink(name) {
  const a = document.createElement("a");
  a.href = `/@/${encodeURIComponent(name)}`;
  a.textContent = name;
  return a;
}

function renderSeeks() {
  const body = $("seek-rows");
  body.textContent = "";
  const me = lobby.account.name;
  for (const seek of lobby.seeks.values()) {
    if (me && seek.player === me) lobby.mine.add(seek.id);
    const row = document.createElement("tr");
    row.dataset.seek = seek.id;
    cell(row, withBotMark(playerLink(seek.player), seek.bot));
    cell(row, seek.display).className = "rating";
    cell(row, variantText(seek.game, seek.options));
    cell(row, clockText(seek.clock));
    const colours = seek.game === "tictactoe" ? { black: "X", white: "O" } : { black: "Black", white: "White" };
    cell(row, colours[seek.color] || "Random");
    cell(row, seek.rated ? "Rated" : "Casual");
    const action = document.createElement("button");
    action.type = "button";
    if (lobby.mine.has(seek.id)) {
      action.textContent = "Cancel";
      action.setAttribute("aria-label", `Cancel your ${variantText(seek.game, seek.options)} seek`);
      action.addEventListener("click", () => cancel(seek.id));
    } else {
      action.textContent = "Accept";
      action.className = "primary";
      action.setAttribute("aria-label", `Accept ${seek.player}'s ${variantText(seek.game, seek.options)} seek`);
      action.addEventListener("click", () => (me ? accept(seek.id) : openDialog()));
    }
    cell(row, action);
    body.append(row);
  }
  $("no-seeks").hidden = lobby.seeks.size > 0;
  for (const seek of lobby.seeks.values()) addPool(seek.pool);
}

function addPool(pool) {
  const select = $("leaderboard-pool");
  if ([...select.options].some((o) => o.value === pool)) return;
  const option = document.createElement("option");
  option.value = pool;
  option.textContent = poolLabel(pool);
  select.append(option);
  syncLeaderboardLink();
}

function syncLeaderboardLink() {
  $("leaderboard-link").href = `/leaderboard/${encodeURIComponent($("leaderboard-pool").value)}`;
}

function showError(text) {
  $("seek-error").textContent = text;
}

function showStatus(text) {
  $("seek-status").textContent = text;
}

/** Take the seat and go to the game. */
function enter(seated) {
  lobby.leaving = true;
  saveSeat(seated.room, { tokens: { [seated.seat]: seated.token }, invite: null, seq: 0, mode: "online" });
  location.assign(`/play/${encodeURIComponent(seated.room)}`);
}

async function accept(id) {
  showError("");
  try {
    enter(await api("POST", `/api/seeks/${encodeURIComponent(id)}/accept`));
  } catch (error) {
    showError(error.message);
  }
}

async function cancel(id) {
  showError("");
  try {
    await api("DELETE", `/api/seeks/${encodeURIComponent(id)}`);
  } catch (error) {
    showError(error.message);
  }
  if (lobby.waiting && lobby.waiting.seek.id === id) stopWaiting();
  if (![...lobby.seeks.keys()].some((s) => s !== id && lobby.mine.has(s))) showStatus("");
}

/** One of our seeks was taken: collect the seat the server keeps for us and follow. */
async function collect(id) {
  try {
    enter(await api("POST", `/api/seeks/${encodeURIComponent(id)}/seat`));
  } catch (error) {
    showError(`Your seek was accepted, but the seat could not be taken: ${error.message}`);
  }
}

function onFrame(frame) {
  if (frame.type === "seeks") {
    lobby.seeks = new Map(frame.seeks.map((s) => [s.id, s]));
  } else if (frame.type === "lobby" && frame.event === "seek_posted") {
    lobby.seeks.set(frame.seek.id, frame.seek);
  } else if (frame.type === "lobby" && (frame.event === "seek_taken" || frame.event === "seek_cancelled")) {
    lobby.seeks.delete(frame.id);
    if (frame.event === "seek_taken" && lobby.refreshLive) lobby.refreshLive(); // its game has begun
    if (frame.event === "seek_taken" && lobby.mine.has(frame.id)) collect(frame.id);
    else if (lobby.waiting && lobby.waiting.seek.id === frame.id) stopWaiting();
  } else {
    return;
  }
  renderSeeks();
}

/** The lobby socket; reopened after a drop, and after a sign in or out (the server reads the cookie once). */
function connect() {
  if (lobby.socket) {
    const old = lobby.socket;
    lobby.socket = null;
    old.close();
  }
  openFeed("/api/lobby/ws", lobby, onFrame, (status) => showLive("lobby-live", status));
}

/** The game, options and clock the form describes. */
function choice(form) {
  const f = form.elements;
  const game = f.game.value;
  const options = {};
  if (game === "reversi") options.size = Number(f["size-reversi"].value);
  if (game === "gomoku") {
    options.rule = f.rule.value;
    options.size = Number(f["size-gomoku"].value);
  }
  let clock = null;
  const days = /^d(\d+)$/.exec(f["seek-clock"].value); // correspondence: days a move
  if (days) clock = { days: Number(days[1]) };
  else if (f["seek-clock"].value) {
    const [initial, increment] = f["seek-clock"].value.split("+").map(Number);
    clock = { initial, increment };
  }
  return { game, options, clock };
}

function syncForm() {
  const form = $("seek-form");
  const f = form.elements;
  for (const label of form.querySelectorAll("[data-for]")) label.hidden = label.dataset.for !== f.game.value;
  nameColours(f.color, f.game.value);
  // a rated game needs a clock, and so does Play now (its pool is a time control)
  f.rated.disabled = !f["seek-clock"].value;
  if (!f["seek-clock"].value) f.rated.checked = false;
  $("play-now").disabled = !f["seek-clock"].value || Boolean(lobby.waiting);
  $("play-now").title = f["seek-clock"].value ? "" : "Play now pairs by the rating of a clock: choose one";
}

async function postSeek(event) {
  event.preventDefault();
  showError("");
  const form = $("seek-form");
  const { game, options, clock } = choice(form);
  const body = { game, options, color: form.elements.color.value, rated: form.elements.rated.checked };
  if (clock) body.clock = clock;
  try {
    const seek = await api("POST", "/api/seeks", body);
    lobby.mine.add(seek.id);
    lobby.seeks.set(seek.id, seek);
    renderSeeks();
    showStatus("Your seek waits in the list; the game starts when someone accepts it.");
  } catch (error) {
    showError(error.message);
  }
}

async function playNow() {
  showError("");
  const form = $("seek-form");
  const { game, options, clock } = choice(form);
  try {
    const paired = await api("POST", "/api/play-now", { game, options, clock });
    if (paired.room) {
      enter(paired);
      return;
    }
    lobby.mine.add(paired.seek.id);
    lobby.seeks.set(paired.seek.id, paired.seek);
    renderSeeks();
    const wait = Number(form.elements.wait.value);
    lobby.waiting = { seek: paired.seek, computer: paired.computer, timer: null };
    showStatus("Looking for a player near your rating…");
    if (wait > 0) lobby.waiting.timer = setTimeout(offerComputer, wait * 1000);
    syncForm();
  } catch (error) {
    showError(error.message);
  }
}

function stopWaiting() {
  if (!lobby.waiting) return;
  clearTimeout(lobby.waiting.timer);
  lobby.waiting = null;
  const offer = $("computer-offer");
  if (offer) offer.remove();
  showStatus("");
  syncForm();
}

function offerComputer() {
  const waiting = lobby.waiting;
  if (!waiting) return;
  const level = waiting.computer.replace("level:", "");
  showStatus("No player yet. You can keep waiting, or play the computer at a similar strength.");
  const offer = document.createElement("button");
  offer.type = "button";
  offer.id = "computer-offer";
  offer.className = "primary";
  offer.textContent = `Play the computer (level ${level})`;
  offer.addEventListener("click", () => playComputer(waiting));
  $("seek-status").after(offer);
}

async function playComputer(waiting) {
  const seek = waiting.seek;
  await cancel(seek.id);
  const as = Math.random() < 0.5 ? "black" : "white";
  const body = {
    game: seek.game, options: seek.options, mode: "local", as,
    seats: { black: "human", white: "human", [as === "black" ? "white" : "black"]: waiting.computer },
  };
  if (seek.clock) body.clock = seek.clock;
  try {
    const created = await api("POST", "/api/rooms", body);
    lobby.leaving = true;
    saveSeat(created.room, { tokens: created.tokens || {}, invite: null, seq: 0, mode: "local" });
    location.assign(`/play/${encodeURIComponent(created.room)}`);
  } catch (error) {
    showError(error.message);
  }
}

export function initLobby(account) {
  lobby.account = account;
  $("lobby-view").hidden = false;
  document.title = "tabletop — lobby";
  const form = $("seek-form");
  form.addEventListener("change", syncForm);
  form.addEventListener("submit", postSeek);
  $("play-now").addEventListener("click", playNow);
  const pools = $("leaderboard-pool");
  for (const pool of POOLS) addPool(pool);
  pools.addEventListener("change", syncLeaderboardLink);
  syncForm();
  lobby.refreshLive = initLive("watch-list", { noneId: "no-live" });
  let settled = false;
  let seen = null;
  account.watch((name) => {
    form.hidden = !name;
    $("seek-signed-out").hidden = Boolean(name);
    renderSeeks();
    if (settled && seen !== name) {
      // the server ties a lobby socket to the player signed in when it opened
      seen = name;
      connect();
    }
  });
  account.ready.then(() => {
    settled = true;
    seen = account.name;
    connect();
  });
  window.tabletopLobby = lobby; // lets tests look inside
}
