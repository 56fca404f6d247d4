// The evaluation graph drawn after a game: the engine's score after every ply,
// from Black's side, as a small SVG line chart.  It only draws what
// GET /api/rooms/{id}/evaluation returned; it computes no score itself.

const SVG_NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

/** The list of {ply, score} points in whichever shape the server sent. */
export function evaluationPoints(data) {
  const list = Array.isArray(data)
    ? data
    : data.evaluation || data.evaluations || data.scores || data.points || data.plies || [];
  const points = [];
  list.forEach((item, i) => {
    if (typeof item === "number") points.push({ ply: i, score: item });
    else if (item && typeof item.score === "number") {
      points.push({ ply: typeof item.ply === "number" ? item.ply : i, score: item.score, move: item.move });
    }
  });
  return points;
}

// engines report a proven win as a huge number; drawn as is it would flatten the rest
const DECIDED = 10000;

/**
 * The points on one scale: a proven win (or, in a line game, the final result)
 * is drawn a little beyond the largest ordinary score.
 */
export function graphPoints(data, room) {
  const points = evaluationPoints(data || {});
  const lineGame = room && room.game !== "reversi";
  const outcome = room && room.outcome;
  const last = points.length ? points[points.length - 1] : null;
  const decided = (p) => Math.abs(p.score) >= DECIDED || (lineGame && outcome && p === last);
  const ordinary = points.filter((p) => !decided(p)).map((p) => Math.abs(p.score));
  const cap = Math.max(1, ...ordinary);
  return points.map((p) => {
    if (!decided(p)) return { ...p, decided: false };
    const sign = p === last && lineGame && outcome ? (outcome.winner === "black" ? 1 : outcome.winner ? -1 : 0) : Math.sign(p.score);
    return { ...p, score: sign * cap * 1.15, decided: true };
  });
}

/** An <svg> chart of the points; positive favours Black. */
export function drawGraph(data, room) {
  const points = graphPoints(data, room);
  const unit = room && room.game === "reversi" ? " discs" : "";
  const width = 320;
  const height = 140;
  const pad = 22;
  const svg = el("svg", {
    viewBox: `0 0 ${width} ${height}`, class: "graph-svg", role: "img",
    "aria-label": graphLabel(points, room),
  });
  el("rect", { x: 0, y: 0, width, height, class: "graph-bg", rx: 6 }, svg);
  const maxPly = Math.max(1, ...points.map((p) => p.ply));
  // what markPly and plyAt need to turn plies into places on the chart and back
  Object.assign(svg.dataset, { maxPly, width, height, pad });
  const maxAbs = Math.max(1, ...points.map((p) => Math.abs(p.score)));
  const x = (ply) => pad + ((width - 2 * pad) * ply) / maxPly;
  const y = (score) => height / 2 - ((height / 2 - pad / 2) * score) / maxAbs;
  el("line", { x1: pad, y1: height / 2, x2: width - pad, y2: height / 2, class: "graph-axis" }, svg);
  const [first, second] = sideNames(room);
  const decided = points.some((p) => p.decided);
  const top = el("text", { x: 4, y: 14, class: "graph-label" }, svg);
  top.textContent = decided ? `${first} winning` : `${first} +${formatNumber(maxAbs)}${unit}`;
  const bottom = el("text", { x: 4, y: height - 4, class: "graph-label" }, svg);
  bottom.textContent = decided ? `${second} winning` : `${second} +${formatNumber(maxAbs)}${unit}`;
  if (points.length) {
    const path = points.map((p, i) => `${i ? "L" : "M"}${x(p.ply).toFixed(1)} ${y(p.score).toFixed(1)}`).join("");
    const area = `${path}L${x(points[points.length - 1].ply).toFixed(1)} ${height / 2}L${x(points[0].ply).toFixed(1)} ${height / 2}Z`;
    el("path", { d: area, class: "graph-area" }, svg);
    el("path", { d: path, class: "graph-line", fill: "none" }, svg);
  }
  return svg;
}

/** The two sides as the game names them: Tic-tac-toe's X and O, otherwise Black and White. */
function sideNames(room) {
  return room && room.game === "tictactoe" ? ["X", "O"] : ["Black", "White"];
}

/** Mark the ply shown on the board with a vertical line (null takes the mark away). */
export function markPly(svg, ply) {
  let line = svg.querySelector(".graph-cursor");
  if (ply === null || !svg.dataset.maxPly) {
    if (line) line.remove();
    return;
  }
  if (!line) line = el("line", { class: "graph-cursor" }, svg);
  const x = graphX(svg, ply);
  for (const [k, v] of Object.entries({ x1: x, x2: x, y1: 4, y2: Number(svg.dataset.height) - 4 })) {
    line.setAttribute(k, String(v));
  }
}

/** The ply nearest to a click on the graph. */
export function plyAt(svg, clientX) {
  const box = svg.getBoundingClientRect();
  const width = Number(svg.dataset.width);
  const pad = Number(svg.dataset.pad);
  const maxPly = Number(svg.dataset.maxPly);
  const x = ((clientX - box.left) / box.width) * width;
  return Math.max(0, Math.min(maxPly, Math.round(((x - pad) / (width - 2 * pad)) * maxPly)));
}

function graphX(svg, ply) {
  const width = Number(svg.dataset.width);
  const pad = Number(svg.dataset.pad);
  return (pad + ((width - 2 * pad) * ply) / Number(svg.dataset.maxPly)).toFixed(1);
}

function formatNumber(n) {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

function graphLabel(points, room) {
  if (!points.length) return "No evaluation";
  const last = points[points.length - 1];
  const moves = room && room.moves ? room.moves.length : last.ply;
  const [first, second] = sideNames(room);
  const end = last.decided
    ? last.score > 0 ? `won for ${first}` : last.score < 0 ? `won for ${second}` : "drawn"
    : `final score ${formatNumber(last.score)} from ${first}'s side`;
  return `Evaluation over ${moves} moves; ${end}`;
}
