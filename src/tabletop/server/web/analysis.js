// The analysis of a whole game (docs/analysis.md): the Analyse button, its progress and
// Cancel, the graph of the engine's evaluation with each move's mark, the best move and
// line at the ply shown, and the read-only review page /review/ID.  The server searches
// (POST and GET /api/rooms/ID/analysis, POST .../cancel); this module only asks, polls and draws.

import { $, say, showMissing } from "/web/dom.js";
import { api, ApiError } from "/web/net.js";
import { game, colorName } from "/web/state.js";
import { setRoom } from "/web/room.js";
import { render } from "/web/render.js";
import { bindControls } from "/web/controls.js";
import { showPly, shownPly } from "/web/review.js";
import { plyAt } from "/web/graph.js";
import { initChat } from "/web/chat.js";

const SIGNS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const NS = "http://www.w3.org/2000/svg";
let pollTimer = null;

const url = () => `/api/rooms/${encodeURIComponent(game.id)}/analysis`;

/** The stored analysis when it covers the game's moves as they are now, else null. */
export function analysisShown() {
  const a = game.analysis;
  const moves = (game.room && game.room.moves) || [];
  return a && a.status === "done" && a.analysed_moves.join(" ") === moves.join(" ") ? a : null;
}

/** Put the mark of ply ``i + 1`` on its move-list item. */
export function markMove(li, i) {
  const a = analysisShown();
  const m = a && a.moves[i];
  if (!m || !m.mark) return;
  li.dataset.mark = m.mark;
  li.dataset.sign = SIGNS[m.mark];
  li.title = `${m.mark}: ${lossWords(a, m.loss)}`;
}

/** Reversi: the engine's best move at the ply shown with its value in discs for the mover,
 * drawn on the board as a hint is (the line games' chances are given in words only). */
export function bestHints(ply) {
  const a = analysisShown();
  const p = a && a.unit === "discs" ? a.positions[ply] : null;
  if (!p || !p.best) return new Map();
  const mover = a.moves[ply] ? a.moves[ply].color : game.pos.turn;
  return new Map([[p.best, mover === "white" ? -p.eval : p.eval]]);
}

/** Ask the server for the room's analysis and show it, or offer to start one. */
export async function initAnalysis() {
  $("analyse").addEventListener("click", start);
  $("analysis-cancel").addEventListener("click", cancel);
  const link = $("review-link");
  link.href = `/review/${encodeURIComponent(game.id)}`;
  link.textContent = `${location.host}/review/${game.id}`;
  await refresh();
}

async function refresh() {
  try {
    adopt(await api("GET", url()));
  } catch (error) {
    note(`No analysis (${error.message}).`);
  }
}

async function start() {
  $("analyse").disabled = true;
  try {
    adopt(await api("POST", url()));
  } catch (error) {
    $("analyse").disabled = false;
    note(error.message);
  }
}

async function cancel() {
  clearTimeout(pollTimer);
  try {
    adopt(await api("POST", `${url()}/cancel`));
    note("Analysis cancelled.");
  } catch (error) {
    note(error.message);
  }
}

function adopt(a) {
  game.analysis = a;
  clearTimeout(pollTimer);
  if (a.status === "running") pollTimer = setTimeout(refresh, 500);
  if (a.status === "failed") note(a.error || "The analysis failed.");
  if (analysisShown()) drawAnalysis(a);
  render();
}

/** The note under Analyse: ``kind`` "state" for what renderAnalysis derives from the analysis
 * (progress, not analysed yet), "event" for news (cancelled, refused) that stays until the
 * state has a note of its own, so that two notes never contradict each other. */
function note(text, kind = "event") {
  $("analysis-note").textContent = text;
  $("analysis-note").dataset.kind = kind;
}

/** Called on every render: the box's buttons and progress, and the words for the ply shown. */
export function renderAnalysis() {
  const room = game.room;
  const a = game.analysis;
  if (!room || !a) return;
  const moves = room.moves || [];
  const shown = analysisShown();
  const running = a.status === "running" && a.analysed_moves.join(" ") === moves.join(" ");
  // an online game is analysed once it is over (the server refuses earlier): no box until then
  const may = Boolean(room.outcome) || room.mode === "local";
  $("analysis").hidden = !moves.length || !(may || shown || running);
  $("analyse").hidden = Boolean(shown) || running || !may;
  $("analyse").disabled = false;
  $("analysis-cancel").hidden = !running;
  const bar = $("analysis-progress");
  bar.hidden = !running;
  bar.max = a.total;
  bar.value = a.done;
  let state = "";
  if (running) state = `Analysing… ${a.done} of ${a.total} positions`;
  else if (a.status === "none") state = "The engine has not analysed this game yet.";
  else if (a.status === "done" && !shown) state = "The game went on after the analysis: Analyse looks at it again.";
  const box = $("analysis-note");
  if (state) {
    if (running || box.dataset.kind !== "event" || !box.textContent) note(state, "state");
  } else if (box.dataset.kind === "state") {
    note("", "state");
  }
  $("analysis-ply").textContent = shown ? plyWords(shown, shownPly()) : "";
  if (!shown && $("graph").querySelector(".analysis-graph")) {
    $("graph").textContent = ""; // the game moved on since: its analysis no longer fits
    $("graph-box").hidden = true;
    $("analysis-legend").textContent = "";
  }
  if (shown) {
    const counts = {};
    for (const m of shown.moves) if (m.mark) counts[m.mark] = (counts[m.mark] || 0) + 1;
    const words = { blunder: "blunders", mistake: "mistakes", inaccuracy: "inaccuracies" };
    note(Object.entries(words).map(([k, many]) => `${counts[k] || 0} ${counts[k] === 1 ? k : many}`).join(", "), "state");
  }
}

/** What the analysis says about the ply shown: the move played and its mark, then the engine's choice. */
function plyWords(a, ply) {
  const parts = [];
  const m = a.moves[ply - 1];
  if (m) {
    let text = `Move ${ply}, ${colorName(m.color)} ${m.move}`;
    const best = a.positions[ply - 1].best;
    if (m.mark) text += ` ${SIGNS[m.mark]} ${m.mark}, ${lossWords(a, m.loss)}; the engine preferred ${best}.`;
    else if (best && m.move === best) text += ": the engine's choice.";
    else if (m.loss) text += `: ${lossWords(a, m.loss)}; the engine preferred ${best}.`;
    else if (best) text += `: nothing given away (the engine preferred ${best}).`;
    else text += ".";
    parts.push(text);
  } else parts.push("The start.");
  const p = a.positions[ply];
  parts.push(`Evaluation: ${evalWords(a, p.eval)}.`);
  if (p.best) parts.push(`Best now: ${p.best}; line ${p.line.join(" ")}.`);
  return parts.join(" ");
}

function lossWords(a, loss) {
  return a.unit === "discs" ? `${discWords(loss)} given away` : `${Math.round(loss)} points of chance to win lost`;
}

/** A number of discs as people say it: "1 disc", "7.3 discs" (midgame scores are fractional). */
function discWords(n) {
  const text = Number.isInteger(n) ? String(n) : n.toFixed(1);
  return `${text} ${text === "1" ? "disc" : "discs"}`;
}

function evalWords(a, value) {
  if (typeof value !== "number") return "none";
  const [black, white] = [colorName("black"), colorName("white")];
  if (a.unit === "discs") return value === 0 ? "even" : `${value > 0 ? black : white} +${discWords(Math.abs(value))}`;
  return `${black} ${Math.round(value)} % to win`;
}

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text) node.textContent = text;
  parent.appendChild(node);
  return node;
}

/** The graph of the analysis in place of the quick evaluation graph: Black up, a dot per marked move. */
function drawAnalysis(a) {
  const width = 320;
  const height = 140;
  const pad = 22;
  const points = a.positions.filter((p) => typeof p.eval === "number");
  const discs = a.unit === "discs";
  const scale = discs ? Math.max(2, ...points.map((p) => Math.abs(p.eval))) : 50;
  const maxPly = Math.max(1, a.positions.length - 1);
  const x = (ply) => (pad + ((width - 2 * pad) * ply) / maxPly).toFixed(1);
  const y = (v) => (height / 2 - ((height / 2 - pad / 2) * (discs ? v : v - 50)) / scale).toFixed(1);
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "graph-svg analysis-graph");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `The engine's evaluation of every move, ${discs ? "in discs" : "as a chance to win"}, from ${colorName("black")}'s side`);
  Object.assign(svg.dataset, { maxPly, width, height, pad, steppable: "" }); // what graph.js's markPly and plyAt read
  el("rect", { x: 0, y: 0, width, height, class: "graph-bg", rx: 6 }, svg);
  el("line", { x1: pad, y1: height / 2, x2: width - pad, y2: height / 2, class: "graph-axis" }, svg);
  const top = discs ? `+${discWords(Math.round(scale))}` : "100 %";
  el("text", { x: 4, y: 14, class: "graph-label" }, svg, `${colorName("black")} ${top}`);
  el("text", { x: 4, y: height - 4, class: "graph-label" }, svg, `${colorName("white")} ${top}`);
  if (points.length) {
    const path = points.map((p, i) => `${i ? "L" : "M"}${x(p.ply)} ${y(p.eval)}`).join("");
    const mid = height / 2;
    el("path", { d: `${path}L${x(points[points.length - 1].ply)} ${mid}L${x(points[0].ply)} ${mid}Z`, class: "graph-area" }, svg);
    el("path", { d: path, class: "graph-line", fill: "none" }, svg);
  }
  for (const m of a.moves) {
    const p = a.positions[m.ply];
    if (!m.mark || typeof p.eval !== "number") continue;
    const dot = el("circle", { cx: x(m.ply), cy: y(p.eval), r: 4, class: `mark-dot ${m.mark}`, "data-ply": m.ply }, svg);
    el("title", {}, dot, `Move ${m.ply}, ${m.move} ${SIGNS[m.mark]} ${m.mark}`);
  }
  svg.addEventListener("click", (event) => showPly(plyAt(svg, event.clientX), render));
  $("graph").replaceChildren(svg);
  $("graph-box").hidden = false;
  const t = a.thresholds[a.unit];
  const unit = discs ? " discs" : " points of chance to win";
  $("analysis-legend").textContent = `Marks by what a move gives away against the engine's best: ?! inaccuracy from ${t.inaccuracy}${unit}, ? mistake from ${t.mistake}, ?? blunder from ${t.blunder}.`;
}

/** The read-only review page: the game as stored, stepped through, with its analysis; no seat, no socket. */
export async function initReview(roomId) {
  document.body.classList.add("review-only");
  $("play-view").hidden = false;
  game.id = roomId;
  game.seat = { tokens: {}, invite: null, seq: 0 };
  game.resultShown = true; // the status line gives the result; no dialog
  bindControls();
  try {
    setRoom(await api("GET", `/api/rooms/${encodeURIComponent(roomId)}`));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) showMissing("No such game", `There is no game ${roomId} to review on this server.`);
    else say(error.message, 0);
    return;
  }
  window.tabletop = game;
  initChat(true); // the players' and the spectators' chat, read-only
  await initAnalysis();
}
