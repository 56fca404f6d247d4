// The browser app: the start screen and the game screen of one page.
//
// Every game, hot-seat and against the computer included, is a room on the
// server; this module only turns clicks into wire-contract frames and server
// frames into pictures.  It never decides a rule: legal moves, forbidden points,
// flips and outcomes all come from the server (so any other client could do
// the same), and a refused move is explained from those lists or from the
// server's error message.

import { drawBoard, parsePosition, squareAt, squareName, formatScore } from "/web/board.js";
import { api, ApiError, loadSeat, saveSeat, RoomConnection } from "/web/net.js";
import { drawGraph } from "/web/graph.js";

const $ = (id) => document.getElementById(id);
const COLORS = ["black", "white"];
const SQUARE = /^[a-z]\d{1,2}$/;

// ---------------------------------------------------------------- theme
const THEME_KEY = "tabletop.theme";

function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  const other = theme === "dark" ? "light" : "dark";
  const button = $("theme-toggle");
  button.textContent = other === "dark" ? "Dark" : "Light";
  button.setAttribute("aria-label", `Switch to ${other} theme`);
}

function initTheme() {
  let theme = null;
  try {
    theme = localStorage.getItem(THEME_KEY);
  } catch {
    theme = null;
  }
  if (theme !== "light" && theme !== "dark") {
    theme = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  applyTheme(theme);
  $("theme-toggle").addEventListener("click", () => {
    const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
    applyTheme(next);
    try {
      localStorage.setItem(THEME_KEY, next);
    } catch {
      // the choice lasts for this page only
    }
  });
}

// ---------------------------------------------------------------- start screen
function initStart() {
  $("start-view").hidden = false;
  document.title = "tabletop — new game";
  const form = $("start-form");
  const sync = () => {
    const game = form.elements.game.value;
    const opponent = form.elements.opponent.value;
    $("reversi-options").hidden = game !== "reversi";
    $("gomoku-options").hidden = game !== "gomoku";
    $("computer-options").hidden = opponent !== "computer";
    $("online-options").hidden = opponent !== "online";
    $("level-value").textContent = form.elements.level.value;
  };
  form.addEventListener("input", sync);
  form.addEventListener("change", sync);
  sync();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    $("start-error").textContent = "";
    $("start-button").disabled = true;
    try {
      const { body, mode } = startRequest(form);
      const created = await api("POST", "/api/rooms", body);
      saveSeat(created.room, { tokens: created.tokens || {}, invite: created.invite || null, seq: 0, mode });
      location.assign(`/play/${encodeURIComponent(created.room)}`);
    } catch (error) {
      $("start-error").textContent = `Could not start the game: ${error.message}`;
      $("start-button").disabled = false;
    }
  });
  loadLobby();
}

/** The POST /api/rooms body for the form's choices. */
function startRequest(form) {
  const f = form.elements;
  const game = f.game.value;
  const options = {};
  if (game === "reversi") options.size = Number(f["reversi-size"].value);
  if (game === "gomoku") {
    options.size = Number(f["gomoku-size"].value);
    options.rule = f["gomoku-rule"].value;
    if (f["gomoku-opening"].value) options.opening = f["gomoku-opening"].value;
  }
  const opponent = f.opponent.value;
  const body = { game, options, seats: { black: "human", white: "human" } };
  let mode = "local";
  if (opponent === "computer") {
    let as = f.as.value;
    // decide a random colour here so the page knows at once which seat is the computer
    if (as === "random") as = Math.random() < 0.5 ? "black" : "white";
    body.seats[as === "black" ? "white" : "black"] = `level:${f.level.value}`;
    body.as = as;
    body.mode = "local";
  } else if (opponent === "online") {
    mode = "online";
    body.mode = "online";
    body.as = f["online-as"].value;
    if (f.clock.value) {
      const [initial, increment] = f.clock.value.split("+").map(Number);
      body.clock = { initial, increment };
    }
    body.listed = f.listed.checked;
  } else {
    body.mode = "local";
  }
  return { body, mode };
}

async function loadLobby() {
  let data;
  try {
    data = await api("GET", "/api/rooms");
  } catch {
    return;
  }
  const rooms = (data && data.rooms) || [];
  if (!rooms.length) return;
  const list = $("lobby-list");
  list.textContent = "";
  for (const item of rooms) {
    const id = item.room || item.id;
    if (!id) continue;
    const li = document.createElement("li");
    const size = item.options && item.options.size ? ` ${item.options.size}×${item.options.size}` : "";
    const rule = item.options && item.options.rule ? ` ${item.options.rule}` : "";
    li.append(`${gameTitle(item.game)}${size}${rule} `);
    const join = document.createElement("button");
    join.type = "button";
    join.textContent = "Join";
    join.setAttribute("aria-label", `Join ${gameTitle(item.game)} game ${id}`);
    join.addEventListener("click", async () => {
      try {
        const seat = await api("POST", `/api/rooms/${encodeURIComponent(id)}/join`, {});
        saveSeat(id, { tokens: { [seat.seat]: seat.token }, invite: null, seq: 0, mode: "online" });
      } catch {
        // taken meanwhile: watch instead
      }
      location.assign(`/play/${encodeURIComponent(id)}`);
    });
    li.append(join);
    list.append(li);
  }
  $("lobby").hidden = false;
}

function gameTitle(game) {
  return { reversi: "Reversi", gomoku: "Gomoku", tictactoe: "Tic-tac-toe" }[game] || game;
}

// ---------------------------------------------------------------- game screen
const game = {
  id: null,
  seat: null, // {tokens, invite, seq, mode}
  conn: null,
  room: null, // the room state, kept current from events
  pos: null, // parsed position
  positions: new Map(), // plies -> position text, for undo without a round trip
  last: null,
  flips: new Set(),
  hints: new Map(),
  best: null,
  focus: null,
  thinking: null,
  watchers: null,
  clocksAt: 0,
  messageTimer: null,
  hintTimer: null,
  resultShown: false,
  refreshTimer: null,
  awaitingTurn: false, // between a move_played and the turn_changed or game_ended after it
};

function mine(color) {
  return Boolean(game.seat && game.seat.tokens && game.seat.tokens[color]);
}

function isPlayer() {
  return COLORS.some(mine);
}

function isLocal() {
  if (game.room && game.room.mode) return game.room.mode === "local";
  if (game.seat && game.seat.mode) return game.seat.mode === "local";
  return false;
}

function seatKind(color) {
  const seat = game.room && game.room.seats ? game.room.seats[color] : null;
  if (!seat) return "human";
  return typeof seat === "string" ? seat : seat.kind || "human";
}

function seatConnected(color) {
  const seat = game.room && game.room.seats ? game.room.seats[color] : null;
  return !seat || typeof seat === "string" || seat.connected !== false;
}

/** The seat that must act: the side to move, or during a swap opening the seat
 * placing the opening stones (of either colour) or making the choice. */
function actorOf(room) {
  if (!room || room.outcome) return null;
  return room.actor || room.turn || null;
}

function openingStage(room) {
  return room && room.opening && room.opening.stage !== "done" ? room.opening.stage : null;
}

function isComputer(color) {
  return seatKind(color) !== "human";
}

function colorName(color) {
  if (game.room && game.room.game === "tictactoe") return color === "black" ? "X" : "O";
  return color === "black" ? "Black" : "White";
}

async function initPlay(roomId) {
  $("play-view").hidden = false;
  game.id = roomId;
  game.seat = loadSeat(roomId);
  const params = new URLSearchParams(location.search);
  const invite = params.get("invite");
  if (invite && !isPlayer()) {
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
      say(why, 0);
    }
  }
  if (invite) history.replaceState(null, "", `/play/${encodeURIComponent(roomId)}`);
  bindControls();
  try {
    setRoom(await api("GET", `/api/rooms/${encodeURIComponent(roomId)}`));
  } catch (error) {
    say(error instanceof ApiError && error.status === 404 ? "There is no such game." : error.message, 0);
    return;
  }
  game.conn = new RoomConnection(roomId, game.seat, {
    onFrame: onFrame,
    onStatus: showConnection,
    currentVersion: () => (game.room ? game.room.version : null),
  });
  game.conn.open();
  setInterval(tickClocks, 250);
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

/** Take a full room state (GET or a "state" frame). */
function setRoom(state) {
  const previous = game.room;
  // a GET answered after newer events arrived on the socket must not turn the board back
  if (previous && typeof state.version === "number" && state.version < previous.version) return;
  game.room = { ...(previous || {}), ...state };
  game.awaitingTurn = false; // a full state holds the turn that goes with its moves
  game.pos = parsePosition(game.room.position);
  const moves = game.room.moves || [];
  game.positions.set(moves.length, game.room.position);
  game.last = lastPlacement(moves);
  game.flips = new Set();
  if (game.room.clocks) game.clocksAt = performance.now();
  if (typeof state.watchers === "number") game.watchers = state.watchers;
  if ("thinking" in state) game.thinking = state.thinking || null;
  if (state.watchers && typeof state.watchers.count === "number") game.watchers = state.watchers.count;
  if (!game.room.outcome) game.resultShown = false;
  if (!game.focus) game.focus = centreSquare();
  setupExport();
  render();
  if (game.room.outcome) gameEnded();
}

function lastPlacement(moves) {
  for (let i = moves.length - 1; i >= 0; i--) if (SQUARE.test(moves[i])) return moves[i];
  return null;
}

function centreSquare() {
  const { width, height } = game.pos;
  return squareName(game.room.game, height, Math.floor((width - 1) / 2), Math.floor((height - 1) / 2));
}

function refreshSoon() {
  clearTimeout(game.refreshTimer);
  game.refreshTimer = setTimeout(async () => {
    try {
      setRoom(await api("GET", `/api/rooms/${encodeURIComponent(game.id)}`));
    } catch (error) {
      say(error.message);
    }
  }, 30);
}

function onFrame(frame) {
  switch (frame.type) {
    case "state":
      adoptSeats(frame.you);
      setRoom(frame.state || frame.room || frame);
      break;
    case "event":
      onEvent(frame.event || {}, frame.version);
      break;
    case "ack":
      game.conn.acked(frame);
      break;
    case "hint":
      showHint(frame.analysis || {});
      break;
    case "watchers":
      game.watchers = frame.count ?? frame.watchers;
      if (frame.seats && game.room && game.room.seats) {
        for (const [color, connected] of Object.entries(frame.seats)) {
          const seat = game.room.seats[color];
          if (seat && typeof seat === "object") seat.connected = Boolean(connected);
        }
      }
      render();
      break;
    case "error":
      onError(frame);
      break;
    default:
      break;
  }
}

/** The server names the seats this connection holds; after a colour swap a single
 * token may now play the other colour. */
function adoptSeats(you) {
  const tokens = Object.values(game.seat.tokens || {});
  if (!Array.isArray(you) || you.length !== 1 || tokens.length !== 1) return;
  if (game.seat.tokens[you[0]]) return;
  game.seat.tokens = { [you[0]]: tokens[0] };
  saveSeat(game.id, game.seat);
}

function onError(frame) {
  if (frame.code === "unknown_room") {
    game.conn.close(); // reconnecting cannot bring back a room the server does not know
    say("There is no such game.", 0);
    return;
  }
  if (frame.code === "bad_token") {
    say("This browser's seat is no longer valid; you are watching.", 0);
    return;
  }
  say(frame.message || frame.code || "The server refused that.");
  $("hint").disabled = false;
}

function onEvent(event, version) {
  const room = game.room;
  if (!room) return;
  if (typeof version === "number") {
    if (version <= room.version) return; // already part of the state we hold
    room.version = version;
  }
  switch (event.kind) {
    case "move_played":
      movePlayed(event);
      break;
    case "turn_changed":
      game.awaitingTurn = false;
      room.turn = event.turn ?? room.turn;
      room.actor = event.actor ?? null;
      if ("opening" in event) room.opening = event.opening;
      if (event.legal) room.legal = event.legal;
      if ("forbidden" in event) room.forbidden = event.forbidden;
      else if (room.game === "gomoku") refreshSoon(); // forbidden points change with every stone
      if (event.clocks) {
        room.clocks = event.clocks;
        game.clocksAt = performance.now();
      }
      game.thinking = null;
      if (event.passing) announcePass(room.turn);
      render();
      break;
    case "move_undone":
      moveUndone(event);
      break;
    case "game_ended":
      game.awaitingTurn = false;
      room.outcome = event.outcome;
      room.turn = null;
      room.legal = [];
      game.thinking = null;
      if (event.clocks) room.clocks = event.clocks;
      render();
      gameEnded();
      break;
    case "takeback_requested":
      askOrWait(event.color, "takeback");
      break;
    case "takeback_answered":
      closeRequest();
      if (!mine(event.color)) say(event.accept ? "Takeback accepted." : "Takeback declined.", 5000, "info");
      break;
    case "draw_offered":
      askOrWait(event.color, "draw");
      break;
    case "draw_answered":
      closeRequest();
      if (!mine(event.color)) say(event.accept ? "Draw agreed." : "Draw declined.", 5000, "info");
      break;
    case "thinking":
      game.thinking = event.color || room.turn;
      render();
      break;
    case "colors_chosen":
      say(event.swapped ? `${colorName(event.color)} takes ${event.choice}: the players swap colours.`
        : `${colorName(event.color)} keeps ${event.choice}.`, 6000, "info");
      // the seats may have changed hands: start over from a full state, which names ours
      if (event.swapped) game.conn.restart();
      else refreshSoon();
      break;
    case "opening_started":
    case "opening_choice_required":
    case "opening_choice_made":
      refreshSoon();
      break;
    case "rematch_offered":
      askOrWait(event.color, "rematch");
      break;
    case "watchers":
      game.watchers = event.count ?? event.watchers;
      render();
      break;
    case "seat_joined":
    case "seat_connected":
    case "seat_disconnected":
    case "connection_changed":
    case "game_started":
    case "rematch":
    case "rematch_started":
      if (event.room && event.room !== game.id) {
        followRematch(event);
        return;
      }
      refreshSoon();
      break;
    default:
      refreshSoon();
      break;
  }
}

function movePlayed(event) {
  const room = game.room;
  room.moves = [...(room.moves || []), event.move];
  room.legal = []; // until the turn_changed that follows says what may be played next
  game.awaitingTurn = true; // the move's turn_changed or game_ended is a separate frame
  game.hints = new Map();
  game.best = null;
  game.thinking = null;
  game.flips = new Set();
  // the stone's colour is the side to move in the position; during a swap opening
  // one seat places stones of both colours, so event.color (the seat) may differ
  const stone = game.pos.turn;
  if (event.move === "pass") {
    announcePass(event.color);
  } else {
    const at = squareAt(room.game, game.pos.height, event.move);
    if (at) game.pos.cells[at.row][at.col] = stone;
    for (const name of event.flips || []) {
      const f = squareAt(room.game, game.pos.height, name);
      if (f) game.pos.cells[f.row][f.col] = stone;
    }
    game.flips = new Set(event.flips || []);
    game.last = event.move;
  }
  game.pos.turn = stone === "black" ? "white" : "black";
  room.position = positionText(game.pos);
  game.positions.set(room.moves.length, room.position);
  if (event.position) room.position = event.position;
  if (!SQUARE.test(event.move) && event.move !== "pass") refreshSoon(); // an opening choice such as "swap"
  render();
}

function moveUndone(event) {
  const room = game.room;
  const moves = (room.moves || []).slice(0, Math.max(0, (event.ply || room.moves.length) - 1));
  room.moves = moves;
  room.outcome = null;
  game.resultShown = false;
  game.hints = new Map();
  game.flips = new Set();
  const known = game.positions.get(moves.length);
  if (known) {
    room.position = known;
    game.pos = parsePosition(known);
    game.last = lastPlacement(moves);
  } else {
    refreshSoon();
  }
  render();
}

function positionText(pos) {
  const rows = pos.cells.map((row) => row.map((c) => (c === "black" ? "X" : c === "white" ? "O" : "-")).join(""));
  return `${rows.join("/")} ${pos.turn === "white" ? "O" : "X"}`;
}

function announcePass(color) {
  say(`${colorName(color)} has no move and passes.`, 6000, "info");
}

function followRematch(event) {
  const tokens = event.tokens || {};
  const next = event.room;
  const seat = { tokens: {}, invite: event.invite || null, seq: 0, mode: game.seat.mode };
  for (const color of COLORS) if (tokens[color]) seat.tokens[color] = tokens[color];
  saveSeat(next, seat);
  location.assign(`/play/${encodeURIComponent(next)}`);
}

// ---------------------------------------------------------------- moves
function tryMove(name) {
  const room = game.room;
  if (!room) return;
  const why = refusal(name);
  if (why) {
    say(why);
    return;
  }
  game.conn.move(name);
}

/** Why a move on ``name`` cannot be sent, from what the server told us; "" if it can. */
function refusal(name) {
  const room = game.room;
  if (room.outcome) return "The game is over.";
  if (!isPlayer()) return "You are watching this game.";
  const turn = actorOf(room);
  if (!turn) return "Wait for the game to start.";
  if (!mine(turn)) {
    if (isComputer(turn)) return `Wait: the computer (${colorName(turn)}) is thinking.`;
    return `It is ${colorName(turn)}'s turn; wait for your opponent.`;
  }
  if (openingStage(room) === "choose") return "First choose your colour (the buttons under the board).";
  const at = squareAt(room.game, game.pos.height, name);
  if (at && game.pos.cells[at.row][at.col]) {
    return `${name} is taken by ${colorName(game.pos.cells[at.row][at.col])}.`;
  }
  const forbidden = forbiddenMap();
  if (forbidden.has(name)) {
    const kind = forbidden.get(name);
    return kind ? `${name} is forbidden for Black (${kind}).` : `${name} is forbidden for Black by the renju rule.`;
  }
  const legal = room.legal;
  if (Array.isArray(legal) && legal.length && !legal.includes(name)) {
    if (room.game === "reversi") {
      if (legal.includes("pass")) return `${colorName(turn)} has no move and must pass.`;
      return `${name} flips no discs, so ${colorName(turn)} cannot play there.`;
    }
    return `${name} is not a legal move now.`;
  }
  return "";
}

function forbiddenMap() {
  const f = game.room && game.room.forbidden;
  const map = new Map();
  if (!f || (game.room.turn && game.room.turn !== "black" && !game.room.opening)) return map;
  if (Array.isArray(f)) {
    for (const item of f) {
      if (typeof item === "string") map.set(item, "");
      else if (item && item.move) map.set(item.move, item.kind || item.reason || "");
    }
  } else if (typeof f === "object") {
    for (const [k, v] of Object.entries(f)) map.set(k, typeof v === "string" ? v : "");
  }
  return map;
}

// ---------------------------------------------------------------- drawing
function render() {
  const room = game.room;
  if (!room) return;
  const board = $("board");
  const hadFocus = board.contains(document.activeElement);
  const actor = actorOf(room);
  const legal = new Set(actor && mine(actor) ? room.legal || [] : []);
  const outcome = room.outcome;
  const svg = drawBoard({
    game: room.game,
    pos: game.pos,
    last: game.last,
    legal,
    // in m,n,k games every empty point is legal, so marking them all says nothing
    showLegal: $("show-legal").checked && room.game === "reversi",
    forbidden: forbiddenMap(),
    winning: new Set(outcome && outcome.cells ? outcome.cells : []),
    flips: game.flips,
    hints: game.hints,
    best: game.best,
    focus: game.focus,
  });
  board.replaceChildren(svg);
  board.dataset.game = room.game;
  board.dataset.turn = room.turn || "";
  board.dataset.moves = String((room.moves || []).length);
  game.flips = new Set(); // animate once
  if (hadFocus) focusSquare(game.focus);
  renderPlayers();
  renderStatus();
  renderMoves();
  renderControls();
  renderSpecialMoves();
  document.title = `tabletop — ${gameTitle(room.game)}`;
}

function counts() {
  const n = { black: 0, white: 0 };
  for (const row of game.pos.cells) for (const c of row) if (c) n[c] += 1;
  return n;
}

function renderPlayers() {
  const room = game.room;
  const n = counts();
  document.querySelector(".players").dataset.game = room.game;
  for (const color of COLORS) {
    const panel = $(`player-${color}`);
    panel.querySelector(".name").textContent = colorName(color);
    let kind;
    if (isComputer(color)) kind = seatKind(color).replace(/^level:(\d+)$/, "computer, level $1");
    else if (mine(color)) kind = isLocal() && mine(color === "black" ? "white" : "black") ? "player" : "you";
    else kind = isLocal() || !isPlayer() ? "player" : "opponent";
    if (!isComputer(color) && !mine(color) && !seatConnected(color)) kind += ", away";
    panel.querySelector(".kind").textContent = kind;
    const count = panel.querySelector(".count");
    count.hidden = room.game !== "reversi";
    count.textContent = String(n[color]);
    panel.classList.toggle("to-move", actorOf(room) === color);
    panel.setAttribute("aria-current", actorOf(room) === color ? "true" : "false");
    panel.querySelector(".clock").hidden = !room.clocks;
  }
  tickClocks();
}

function renderStatus() {
  const room = game.room;
  let text;
  if (room.outcome) text = `Game over: ${resultWords(room.outcome).title}`;
  else if (!actorOf(room)) text = "Waiting for the game to start.";
  else {
    const actor = actorOf(room);
    const stage = openingStage(room);
    if (stage === "place") {
      const left = room.opening.stones_left;
      text = `Opening (${room.opening.rule}): ${colorName(actor)} places ${left} more stone${left === 1 ? "" : "s"}, next a ${room.turn} stone`;
    } else if (stage === "choose") {
      text = `Opening (${room.opening.rule}): ${colorName(actor)} chooses a colour`;
    } else {
      text = `${colorName(actor)} to move`;
    }
    if (game.thinking || (isComputer(actor) && !mine(actor))) text += " — the computer is thinking…";
    else if (mine(actor) && !isLocal()) text += " — your turn";
    else if (!mine(actor) && isPlayer() && !isLocal()) text += " — waiting for your opponent";
  }
  if (room.game === "reversi" && !room.outcome) {
    const n = counts();
    text += ` · ${n.black}–${n.white}`;
  }
  $("status").textContent = text;
  $("watchers").textContent = typeof game.watchers === "number"
    ? `${game.watchers} watching` : "";
}

function renderMoves() {
  const list = $("move-list");
  const moves = game.room.moves || [];
  list.textContent = "";
  moves.forEach((move, i) => {
    const li = document.createElement("li");
    li.textContent = move;
    li.className = moverOf(i);
    list.append(li);
  });
  list.scrollTop = list.scrollHeight;
}

/** The colour that played ply i: moves alternate, a pass is a move too. */
function moverOf(i) {
  return i % 2 === 0 ? "black" : "white";
}

function renderControls() {
  const room = game.room;
  const player = isPlayer();
  const local = isLocal();
  const over = Boolean(room.outcome);
  for (const b of document.querySelectorAll("[data-local]")) b.hidden = !player || !local;
  for (const b of document.querySelectorAll("[data-online]")) b.hidden = !player || local;
  $("undo").disabled = !(room.moves || []).length;
  $("resign").hidden = !player;
  $("resign").disabled = over || !room.turn;
  $("hint").hidden = !player;
  $("hint").disabled = over || !room.turn;
  $("rematch").hidden = !player;
  $("rematch").disabled = !over;
  $("takeback").disabled = over || !(room.moves || []).length;
  $("draw").disabled = over;
  $("show-legal-box").hidden = room.game !== "reversi";
  const invite = game.seat && game.seat.invite;
  $("invite-box").hidden = !invite || over;
  if (invite) $("invite-url").value = invite;
}

function renderSpecialMoves() {
  const box = $("special-moves");
  box.textContent = "";
  const room = game.room;
  const actor = actorOf(room);
  if (!actor || !mine(actor)) return;
  if (openingStage(room) === "choose") {
    const words = { black: "Play Black", white: "Play White", place: "Place two more stones" };
    for (const choice of room.opening.options || []) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "primary";
      button.textContent = words[choice] || choice;
      button.addEventListener("click", () => game.conn.send({ type: "choose", choice }));
      box.append(button);
    }
    return;
  }
  for (const move of room.legal || []) {
    if (SQUARE.test(move)) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = move === "pass" ? "Pass" : move.charAt(0).toUpperCase() + move.slice(1);
    button.addEventListener("click", () => game.conn.move(move));
    box.append(button);
  }
}

function tickClocks() {
  const room = game.room;
  if (!room || !room.clocks) return;
  const elapsed = (performance.now() - game.clocksAt) / 1000;
  for (const color of COLORS) {
    let left = room.clocks[color];
    if (typeof left !== "number") continue;
    if (actorOf(room) === color) left = Math.max(0, left - elapsed);
    const el = $(`player-${color}`).querySelector(".clock");
    el.textContent = clockText(left);
    el.classList.toggle("low", left < 10);
  }
}

function clockText(seconds) {
  if (seconds < 10) return seconds.toFixed(1);
  const s = Math.floor(seconds);
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

// ---------------------------------------------------------------- messages, requests, result
/** Show a line under the board; tone "error" for a refusal, "info" for news. */
function say(text, ms = 5000, tone = "error") {
  const box = $("message");
  box.textContent = text;
  box.dataset.tone = tone;
  clearTimeout(game.messageTimer);
  if (ms) game.messageTimer = setTimeout(() => { box.textContent = ""; }, ms);
}

let requestKind = null;

function askOrWait(color, kind) {
  const other = color === "black" ? "white" : "black";
  const what = { takeback: "take back a move", draw: "agree a draw", rematch: "play a rematch" }[kind];
  if (kind === "rematch" && $("result-dialog").open) {
    $("result-text").textContent += ` ${colorName(color)} offers a rematch.`;
  }
  if (mine(other)) {
    requestKind = kind;
    $("request-text").textContent = `${colorName(color)} asks to ${what}.`;
    $("request").hidden = false;
    $("request-accept").focus();
  } else if (mine(color)) {
    say(`Asked your opponent to ${what}…`, 0, "info");
  } else {
    say(`${colorName(color)} asks to ${what}.`, 5000, "info");
  }
}

function closeRequest() {
  requestKind = null;
  $("request").hidden = true;
}

function answerRequest(accept) {
  if (requestKind === "rematch") {
    if (accept) game.conn.send({ type: "rematch" }); // offering back is accepting
  } else if (requestKind) {
    game.conn.send({ type: requestKind, accept });
  }
  closeRequest();
}

const REASONS = {
  line: "five in a row",
  discs: "on discs",
  resign: "by resignation",
  time: "on time",
  agreement: "by agreement",
  forbidden: "by Black's forbidden move",
  draw: "",
};

function resultWords(outcome) {
  const room = game.room;
  let title;
  if (!outcome.winner) title = outcome.reason === "agreement" ? "Draw by agreement" : "Draw";
  else title = `${colorName(outcome.winner)} wins`;
  let detail = "";
  if (room.game === "reversi" && Array.isArray(outcome.score) && outcome.reason === "discs") {
    // the winner's count first, as players say it
    const [black, white] = outcome.score;
    detail = outcome.winner === "white" ? `${white}–${black}` : `${black}–${white}`;
    title += ` ${detail}`;
  } else if (outcome.reason === "line") {
    detail = room.game === "tictactoe" ? "three in a row" : "five in a row";
    if (outcome.winner) title += ` with ${detail}`;
  } else if (outcome.winner && REASONS[outcome.reason]) {
    title += ` ${REASONS[outcome.reason]}`;
  }
  if (isPlayer() && !isLocal() && outcome.winner) {
    title += mine(outcome.winner) ? " — you win!" : " — you lose.";
  } else if (isPlayer() && outcome.winner && COLORS.some((c) => isComputer(c))) {
    title += isComputer(outcome.winner) ? " — the computer wins." : " — you win!";
  }
  return { title, detail };
}

function gameEnded() {
  const outcome = game.room.outcome;
  if (!outcome || game.resultShown) return;
  game.resultShown = true;
  closeRequest();
  const words = resultWords(outcome);
  $("result-title").textContent = words.title;
  const moves = (game.room.moves || []).length;
  $("result-text").textContent = `${moves} moves. ${resultLine(outcome)}`;
  $("result-rematch").hidden = !isPlayer();
  const dialog = $("result-dialog");
  if (!dialog.open) dialog.showModal();
  loadGraph();
}

function resultLine(outcome) {
  if (!outcome.winner) return "Result ½–½.";
  return outcome.winner === "black" ? "Result 1–0." : "Result 0–1.";
}

async function loadGraph() {
  $("graph-box").hidden = false;
  $("graph").textContent = "Analysing the game…";
  try {
    const data = await api("GET", `/api/rooms/${encodeURIComponent(game.id)}/evaluation`);
    $("graph").replaceChildren(drawGraph(data, game.room));
  } catch (error) {
    $("graph").textContent = `The engine could not evaluate this game (${error.message}).`;
  }
}

function showHint(analysis) {
  clearTimeout(game.hintTimer);
  $("hint").disabled = false;
  game.hints = new Map();
  for (const item of analysis.scores || []) {
    if (item && SQUARE.test(item.move)) game.hints.set(item.move, item.score);
  }
  game.best = (analysis.scores && analysis.scores[0] && analysis.scores[0].move) || (analysis.pv || [])[0] || null;
  if (game.best) say(`Hint: ${game.best} (${formatScore(scoreOf(analysis, game.best))}).`, 8000, "info");
  else say("No hint for this position.", 5000, "info");
  render();
}

function scoreOf(analysis, move) {
  const item = (analysis.scores || []).find((s) => s.move === move);
  return item ? item.score : "";
}

// ---------------------------------------------------------------- export
const FORMATS = {
  reversi: [["ggf", "GGF"], ["sgf", "SGF"], ["transcript", "Transcript"]],
  gomoku: [["psq", "PSQ"], ["sgf", "SGF"], ["transcript", "Transcript"]],
  tictactoe: [["transcript", "Transcript"], ["sgf", "SGF"]],
};
const EXTENSIONS = { ggf: "ggf", sgf: "sgf", psq: "psq", transcript: "txt" };

function setupExport() {
  const select = $("export-format");
  const formats = FORMATS[game.room.game] || FORMATS.tictactoe;
  if (select.dataset.game !== game.room.game) {
    select.dataset.game = game.room.game;
    select.replaceChildren(...formats.map(([value, label]) => new Option(label, value)));
  }
  updateExportLink();
}

function updateExportLink() {
  const format = $("export-format").value;
  const link = $("export");
  link.href = `/api/rooms/${encodeURIComponent(game.id)}/record?format=${format}`;
  link.download = `tabletop-${game.id}.${EXTENSIONS[format] || "txt"}`;
}

/** Fetch the record first, so a format the server cannot write is explained, not saved. */
async function exportRecord(event) {
  event.preventDefault();
  const link = $("export");
  let response;
  try {
    response = await fetch(link.href);
  } catch (error) {
    say(`Could not fetch the record: ${error.message}`);
    return;
  }
  if (!response.ok) {
    let why = `${response.status} ${response.statusText}`;
    try {
      const data = await response.json();
      why = data.message || data.detail || why;
    } catch {
      // not JSON: keep the status line
    }
    say(`No ${$("export-format").selectedOptions[0].text} record: ${why}.`);
    return;
  }
  const url = URL.createObjectURL(await response.blob());
  const save = document.createElement("a");
  save.href = url;
  save.download = link.download;
  document.body.append(save);
  save.click();
  save.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// ---------------------------------------------------------------- controls and keyboard
function bindControls() {
  const send = (frame) => () => game.conn && game.conn.send(frame);
  $("undo").addEventListener("click", send({ type: "undo" }));
  $("redo").addEventListener("click", send({ type: "redo" }));
  $("takeback").addEventListener("click", send({ type: "takeback" }));
  $("draw").addEventListener("click", send({ type: "draw" }));
  $("resign").addEventListener("click", () => {
    if (confirmResign()) game.conn.send({ type: "resign" });
  });
  $("hint").addEventListener("click", () => {
    $("hint").disabled = true;
    say("Thinking about a hint…", 0, "info");
    game.conn.send({ type: "hint" });
    clearTimeout(game.hintTimer);
    // an engine that cannot analyse this variant never answers; give the button back
    game.hintTimer = setTimeout(() => {
      if (!$("hint").disabled) return;
      $("hint").disabled = false;
      say("No hint came back for this position.", 5000, "info");
    }, 15000);
  });
  const rematch = () => {
    $("result-dialog").close();
    game.conn.send({ type: "rematch" });
  };
  $("rematch").addEventListener("click", rematch);
  $("result-rematch").addEventListener("click", rematch);
  const newGame = () => location.assign("/");
  $("new-game").addEventListener("click", newGame);
  $("result-new").addEventListener("click", newGame);
  $("result-close").addEventListener("click", () => $("result-dialog").close());
  $("request-accept").addEventListener("click", () => answerRequest(true));
  $("request-decline").addEventListener("click", () => answerRequest(false));
  $("show-legal").addEventListener("change", render);
  $("export-format").addEventListener("change", updateExportLink);
  $("export").addEventListener("click", exportRecord);
  $("copy-invite").addEventListener("click", copyInvite);
  const board = $("board");
  board.addEventListener("click", (event) => {
    const square = event.target.closest("g.sq");
    if (!square) return;
    game.focus = square.dataset.move;
    tryMove(square.dataset.move);
  });
  board.addEventListener("keydown", onBoardKey);
  board.addEventListener("focusin", (event) => {
    const square = event.target.closest("g.sq");
    if (square && square.dataset.move !== game.focus) {
      game.focus = square.dataset.move;
      markFocus();
    }
  });
}

function confirmResign() {
  // a resignation cannot be undone online; at one screen it is a quick way to end
  return isLocal() || window.confirm("Resign this game?");
}

async function copyInvite() {
  const url = $("invite-url").value;
  try {
    await navigator.clipboard.writeText(url);
    say("Invite link copied.", 5000, "info");
  } catch {
    $("invite-url").select();
    say("Select and copy the link above.", 5000, "info");
  }
}

function onBoardKey(event) {
  const room = game.room;
  if (!room || !game.focus) return;
  const at = squareAt(room.game, game.pos.height, game.focus);
  if (!at) return;
  const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  if (event.key in steps) {
    event.preventDefault();
    const [dc, dr] = steps[event.key];
    const col = Math.min(game.pos.width - 1, Math.max(0, at.col + dc));
    const row = Math.min(game.pos.height - 1, Math.max(0, at.row + dr));
    game.focus = squareName(room.game, game.pos.height, col, row);
    markFocus();
    focusSquare(game.focus);
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    tryMove(game.focus);
  }
}

function markFocus() {
  for (const g of $("board").querySelectorAll("g.sq")) {
    const on = g.dataset.move === game.focus;
    g.classList.toggle("focused", on);
    g.setAttribute("tabindex", on ? "0" : "-1");
  }
}

function focusSquare(name) {
  const g = $("board").querySelector(`g.sq[data-move="${name}"]`);
  if (g) g.focus();
}

// ---------------------------------------------------------------- start
function main() {
  initTheme();
  const match = /^\/play\/([^/]+)\/?$/.exec(location.pathname);
  if (match) initPlay(decodeURIComponent(match[1]));
  else initStart();
}

main();
