// Drawing the game screen from the page's state: the board, the players bar,
// the status line, the move list, the controls and the clocks.  Nothing here
// changes the state except the one-shot flip animation and the focus.

import { $, say } from "/web/dom.js";
import { CELL, MARGIN, drawBoard } from "/web/board.js";
import { game, COLORS, SQUARE, actorOf, colorName, counts, forbiddenMap, gameTitle, isComputer, isLocal, isPlayer, mine, openingStage, seatConnected, seatKind, tournamentOfRoom } from "/web/state.js";
import { hintMark, resultWords } from "/web/result.js";
import { canReview, shownPly, shownPosition } from "/web/review.js";
import { markPly } from "/web/graph.js";
import { renderTimeClaim } from "/web/claim.js";
import { bestHints, markMove, renderAnalysis } from "/web/analysis.js";
import { ghostStone, tapTwice, tapTwiceOffered } from "/web/moves.js";
import { abortable, renderAway } from "/web/away.js";
import { renderOpening } from "/web/opening.js";
import { withBotMark } from "/web/bots.js";

export function render() {
  const room = game.room;
  if (!room) return;
  const board = $("board");
  const hadFocus = board.contains(document.activeElement);
  const actor = actorOf(room);
  const shown = shownPosition();
  const live = shown.live; // an earlier ply is shown without the game's marks
  const legal = new Set(live && actor && mine(actor) ? room.legal || [] : []);
  const outcome = room.outcome;
  const svg = drawBoard({
    game: room.game,
    pos: shown.pos,
    last: shown.last,
    legal,
    // in m,n,k games every empty point is legal, so marking them all says nothing
    showLegal: $("show-legal").checked && room.game === "reversi",
    forbidden: live ? forbiddenMap() : new Map(),
    winning: new Set(live && outcome && outcome.cells ? outcome.cells : []),
    flips: live ? game.flips : new Set(),
    hints: live ? game.hints : bestHints(shownPly()),
    hintText: hintMark,
    best: live ? game.best : [...bestHints(shownPly()).keys()][0],
    focus: game.focus,
    ghost: ghostStone(),
  });
  board.replaceChildren(svg);
  fitToScreen(svg, game.pos, board);
  board.dataset.game = room.game;
  board.dataset.turn = room.turn || "";
  board.dataset.moves = String((room.moves || []).length);
  board.dataset.ply = String(shownPly());
  game.flips = new Set(); // animate once
  if (hadFocus) focusSquare(game.focus);
  renderPlayers();
  renderStatus();
  renderMoves();
  renderOpening();
  renderControls();
  renderSpecialMoves();
  renderReview();
  renderTimeClaim();
  renderAnalysis();
  renderAway();
  document.title = `tabletop — ${gameTitle(room.game)}`;
}

/**
 * On a narrow screen (a 15x15 or 19x19 board on a phone: points under 28 px apart) the
 * picture's right and bottom margins hold nothing, so they are cut off to give the points
 * more room, and the coordinates on the left and top are drawn large enough to read.
 */
function fitToScreen(svg, pos, wrap) {
  const full = MARGIN * 2 + CELL * pos.width;
  const width = wrap.clientWidth;
  if (!width || (width * CELL) / full >= 28) return;
  const trimmed = full - MARGIN;
  svg.setAttribute("viewBox", `0 0 ${trimmed} ${MARGIN + CELL * pos.height}`);
  const scale = width / trimmed; // pixels per unit of the picture
  const size = Math.min(20, Math.max(11, 9.5 / scale));
  for (const t of svg.querySelectorAll(":scope > text")) t.setAttribute("font-size", size.toFixed(1));
  svg.classList.add("compact");
}

function renderPlayers() {
  const room = game.room;
  const shown = shownPosition();
  const n = counts(shown.pos);
  // while an earlier ply is shown, the side to move there is marked
  const toMove = shown.live ? actorOf(room) : shown.pos.turn;
  document.querySelector(".players").dataset.game = room.game;
  for (const color of COLORS) {
    const panel = $(`player-${color}`);
    const player = room.players && room.players[color]; // signed-in players of a seek's game
    showName(panel.querySelector(".name"), color, player);
    let kind;
    if (isComputer(color)) kind = seatKind(color).replace(/^level:(\d+)$/, "computer, level $1");
    else if (mine(color)) kind = isLocal() && mine(color === "black" ? "white" : "black") ? "player" : "you";
    else kind = isLocal() || !isPlayer() ? "player" : "opponent";
    if (!isComputer(color) && !mine(color) && !seatTaken(color)) kind += ", not joined yet";
    else if (!isComputer(color) && !mine(color) && !seatConnected(color) && !room.outcome) kind += ", away";
    panel.querySelector(".kind").textContent = player ? `${ratingText(player)} · ${kind}` : kind;
    const count = panel.querySelector(".count");
    count.hidden = room.game !== "reversi";
    count.textContent = String(n[color]);
    panel.classList.toggle("to-move", toMove === color);
    panel.setAttribute("aria-current", toMove === color ? "true" : "false");
    panel.querySelector(".clock").hidden = !room.clocks;
  }
  tickClocks();
}

/** A signed-in player's name, linking to their page; else the colour. */
function showName(el, color, player) {
  const key = player ? player.name : colorName(color);
  if (el.dataset.player === key && el.childNodes.length) return; // unchanged: a focused link stays
  el.dataset.player = key;
  if (!player) {
    el.textContent = key;
    return;
  }
  const link = document.createElement("a");
  link.href = `/@/${encodeURIComponent(player.name)}`;
  link.textContent = player.name;
  link.title = `${colorName(color)}: ${player.name}'s page`; // the colour the name replaces
  el.replaceChildren(withBotMark(link, player.bot));
}

/** A player's rating in the game's pool, and its change once a rated game's is stored. */
function ratingText(player) {
  return player.change === null ? player.display : `${player.display} ${signed(player.change)}`;
}

/** A rating change as players write it: +162, −162, ±0. */
export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
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
    else if (mine(actor) && !isLocal() && !seatsFilled()) text += " — your move; your opponent has not joined yet";
    else if (mine(actor) && !isLocal()) {
      text += " — your turn";
      // online, a side's clock waits for that side's first move
      if (room.clocks && room.moved && !room.moved[actor]) text += "; your clock starts with your first move";
    }
    else if (!mine(actor) && isPlayer() && !isLocal()) text += " — waiting for your opponent";
  }
  if (room.game === "reversi" && !room.outcome) {
    const n = counts();
    text += ` · ${n.black}–${n.white}`;
  }
  if (game.view !== null) text = reviewStatus();
  $("status").textContent = text;
  // spectators come only to online games; at one screen the count would always be 0
  $("watchers").textContent = !isLocal() && game.watchers > 0 ? `${game.watchers} watching` : "";
}

/** The status line while an earlier ply is shown. */
function reviewStatus() {
  const moves = game.room.moves || [];
  const ply = shownPly();
  const where = ply ? `Move ${ply} of ${moves.length} (${moves[ply - 1]})` : `The start, before move 1 of ${moves.length}`;
  let text = `${where} · ← → step, End returns to the game`;
  if (game.room.game === "reversi") {
    const n = counts(shownPosition().pos);
    text += ` · ${n.black}–${n.white}`;
  }
  return text;
}

function renderReview() {
  const can = canReview();
  const n = (game.room.moves || []).length;
  const ply = shownPly();
  $("review-nav").hidden = !can;
  $("first-move").disabled = ply === 0;
  $("prev-move").disabled = ply === 0;
  $("next-move").disabled = ply === n;
  $("last-move").disabled = ply === n;
  $("move-list").classList.toggle("steppable", can);
  const graph = $("graph").querySelector("svg");
  if (graph) markPly(graph, can ? ply : null);
}

function renderMoves() {
  const list = $("move-list");
  const moves = game.room.moves || [];
  const first = firstMover();
  const shown = shownPly();
  let current = null;
  list.textContent = "";
  moves.forEach((move, i) => {
    const li = document.createElement("li");
    const color = moverOf(i, first);
    li.textContent = move;
    li.className = color;
    li.dataset.ply = String(i + 1);
    // each row is one numbered pair: Black's move and White's answer
    if (color === "black" || i === 0) li.dataset.number = String(moveNumber(i, first));
    li.setAttribute("aria-label", `${moveNumber(i, first)}. ${colorName(color)} ${move}`);
    markMove(li, i);
    if (i + 1 === shown) {
      li.classList.add("current");
      li.setAttribute("aria-current", "step");
      current = li;
    }
    list.append(li);
  });
  if (game.view === null || !current) list.scrollTop = list.scrollHeight; // follow the latest move
  else keepInView(list, current);
}

/** Scroll the list (never the page) just enough to show ``item``. */
function keepInView(list, item) {
  const top = item.offsetTop;
  const bottom = top + item.offsetHeight;
  if (top < list.scrollTop) list.scrollTop = top - 6;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight + 6;
}

/** The colour of the game's first move: Black, unless the start position gives White the move. */
function firstMover() {
  const start = game.room.start_position;
  return typeof start === "string" && /\sO$/.test(start.trim()) ? "white" : "black";
}

/** The colour that played ply i (from 0): moves alternate, a pass is a move too. */
function moverOf(i, first) {
  const other = first === "black" ? "white" : "black";
  return i % 2 === 0 ? first : other;
}

/** The number of the Black/White pair that ply i (from 0) belongs to. */
function moveNumber(i, first) {
  return Math.floor((i + (first === "white" ? 1 : 0)) / 2) + 1;
}

function renderControls() {
  const room = game.room;
  const player = isPlayer();
  const local = isLocal();
  const over = Boolean(room.outcome);
  for (const b of document.querySelectorAll("[data-local]")) b.hidden = !player || !local;
  // what cannot be used once the game is over leaves the column to the review and its analysis
  for (const b of document.querySelectorAll("[data-online]")) b.hidden = !player || local || over;
  $("undo").disabled = !(room.moves || []).length;
  $("redo").disabled = !game.undone.length;
  $("resign").hidden = !player || over;
  $("resign").disabled = over || !room.turn;
  $("hint").hidden = !player || !local || over; // no engine help between two people online
  $("hint").disabled = over || !room.turn;
  $("rematch").hidden = !player || Boolean(tournamentOfRoom()); // a tournament pairs its players itself
  $("rematch").disabled = !over;
  $("takeback").disabled = over || !(room.moves || []).length;
  $("abort").hidden = !player || local || over || !abortable();
  $("draw").disabled = over;
  $("show-legal-box").hidden = room.game !== "reversi" || over;
  $("tap-twice-box").hidden = !tapTwiceOffered();
  $("tap-twice").checked = tapTwice();
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

export function tickClocks() {
  const room = game.room;
  if (!room || !room.clocks) return;
  const elapsed = (performance.now() - game.clocksAt) / 1000;
  const running = seatsFilled();
  for (const color of COLORS) {
    let left = room.clocks[color];
    if (typeof left !== "number") continue;
    game.clockMax = Math.max(game.clockMax, left);
    // the server names the clock that runs (online, a side's clock waits for its first move)
    const runs = "clock_running" in room ? room.clock_running === color : running && actorOf(room) === color;
    if (runs) left = Math.max(0, left - elapsed);
    const el = $(`player-${color}`).querySelector(".clock");
    el.textContent = clockText(left);
    const low = left <= lowTime();
    el.classList.toggle("low", low);
    const ticking = runs && !room.outcome;
    if (low && left > 0 && ticking && !game.lowWarned.has(color) && mine(color)) {
      game.lowWarned.add(color);
      say(`${colorName(color)}: ${Math.ceil(left)} seconds left.`, 6000, "error");
    }
    if (!low) game.lowWarned.delete(color); // an increment can lift the clock back above the mark
  }
}

/** Under this many seconds a clock is low: a tenth of the game's time, 10 to 30 seconds. */
function lowTime() {
  return Math.min(30, Math.max(10, game.clockMax / 10));
}

/** Clocks run only once every human seat has its player (the server holds them until then). */
function seatsFilled() {
  return COLORS.every(seatTaken);
}

function seatTaken(color) {
  const seat = game.room.seats && game.room.seats[color];
  return !seat || typeof seat !== "object" || seat.taken !== false;
}

function clockText(seconds) {
  if (seconds <= 0) return "0:00"; // the flag fell
  if (seconds < 10) return seconds.toFixed(1);
  const s = Math.floor(seconds);
  if (s >= 86400) return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`; // correspondence
  if (s >= 36000) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}`;
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

export function markFocus() {
  for (const g of $("board").querySelectorAll("g.sq")) {
    const on = g.dataset.move === game.focus;
    g.classList.toggle("focused", on);
    g.setAttribute("tabindex", on ? "0" : "-1");
  }
}

export function focusSquare(name) {
  const g = $("board").querySelector(`g.sq[data-move="${name}"]`);
  if (g) g.focus();
}
