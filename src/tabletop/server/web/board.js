// The board as SVG: a faithful twin of src/tabletop/games/svg.py for the browser.
//
// It draws one position (read from the position text of the wire contract) with
// the same geometry, colours and square names as the library's picture, plus the
// marks a live game needs (legal moves, forbidden points, winning line, last
// move, hint scores, keyboard focus).  It knows no rules and never talks to the
// server: whatever it marks is given to it.

const SVG_NS = "http://www.w3.org/2000/svg";
export const CELL = 40;
export const MARGIN = 24;

const STYLE = {
  reversi: { bg: "#1f7a3a", line: "#0b3d1c" },
  gomoku: { bg: "#e3b86b", line: "#5a3d12" },
  tictactoe: { bg: "#f4efe6", line: "#444444" },
};

/** Read "rows/rows/... X" into {width, height, cells: [[null|"black"|"white"]], turn}. */
export function parsePosition(text) {
  const [rowsText, side] = text.trim().split(/\s+/);
  const rows = rowsText.split("/");
  const cells = rows.map((row) =>
    [...row].map((ch) => (ch === "X" ? "black" : ch === "O" ? "white" : null)),
  );
  return {
    width: cells[0].length,
    height: cells.length,
    cells,
    turn: side === "O" ? "white" : "black",
  };
}

/** Whether squares are points on lines (Gomoku) rather than cells (Reversi, Tic-tac-toe). */
export function onIntersections(game, width, height) {
  return game === "gomoku" || (game === "mnk" && Math.max(width, height) > 5);
}

/** The square's name: Reversi counts rows from the top, m,n,k games from the bottom. */
export function squareName(game, height, col, row) {
  const letter = String.fromCharCode(97 + col);
  return game === "reversi" ? `${letter}${row + 1}` : `${letter}${height - row}`;
}

/** The (col, row) of a square name, row 0 at the top; null for anything else ("pass"). */
export function squareAt(game, height, name) {
  const m = /^([a-z])(\d{1,2})$/.exec(name || "");
  if (!m) return null;
  const col = m[1].charCodeAt(0) - 97;
  const number = Number(m[2]);
  return { col, row: game === "reversi" ? number - 1 : height - number };
}

function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

function piece(game, color, cx, cy, parent) {
  const r = CELL / 2 - 4;
  if (game === "tictactoe") {
    if (color === "black") {
      const d = 11;
      return el("path", {
        d: `M${cx - d} ${cy - d}L${cx + d} ${cy + d}M${cx + d} ${cy - d}L${cx - d} ${cy + d}`,
        stroke: "#1b1b1b", "stroke-width": 5, "stroke-linecap": "round", class: "piece",
      }, parent);
    }
    return el("circle", {
      cx, cy, r: r - 4, fill: "none", stroke: "#b03a2e", "stroke-width": 5, class: "piece",
    }, parent);
  }
  const [fill, stroke] = color === "black" ? ["#111111", "#000000"] : ["#fafafa", "#555555"];
  return el("circle", { cx, cy, r, fill, stroke, "stroke-width": 1.5, class: "piece" }, parent);
}

/** What a square holds, in words, for its accessible name (as the library's picture says it). */
export function pieceWord(color) {
  return color || "empty";
}

/**
 * Draw the board into a fresh <svg>.
 * view: {game, pos (parsed) or position (text), last, legal: Set, forbidden: Map name->kind, winning: Set,
 *        flips: Set (animate these), hints: Map name->score, best, focus,
 *        ghost: {name, color} (a stone shown, not yet placed: the first tap of two)}
 */
export function drawBoard(view) {
  const pos = view.pos || parsePosition(view.position);
  const { width: w, height: h } = pos;
  const game = view.game;
  const crossings = onIntersections(game, w, h);
  const style = game === "reversi" ? STYLE.reversi : crossings ? STYLE.gomoku : STYLE.tictactoe;
  const sizeW = MARGIN * 2 + CELL * w;
  const sizeH = MARGIN * 2 + CELL * h;
  const svg = el("svg", {
    xmlns: SVG_NS, viewBox: `0 0 ${sizeW} ${sizeH}`, class: `board board-${game}`,
    role: "group", "aria-label": `${game} board, ${w} by ${h}`,
  });
  el("rect", { x: 0, y: 0, width: sizeW, height: sizeH, fill: style.bg, rx: 6 }, svg);
  for (let col = 0; col < w; col++) {
    const t = el("text", {
      x: MARGIN + CELL * col + CELL / 2, y: MARGIN - 8, "font-size": 11,
      "text-anchor": "middle", fill: style.line, "aria-hidden": "true",
    }, svg);
    t.textContent = String.fromCharCode(97 + col);
  }
  for (let row = 0; row < h; row++) {
    const t = el("text", {
      x: MARGIN - 12, y: MARGIN + CELL * row + CELL / 2 + 4, "font-size": 11,
      "text-anchor": "middle", fill: style.line, "aria-hidden": "true",
    }, svg);
    t.textContent = squareName(game, h, 0, row).slice(1);
  }
  const grid = el("g", { "aria-hidden": "true" }, svg);
  if (crossings) {
    for (let col = 0; col < w; col++) {
      const x = MARGIN + CELL * col + CELL / 2;
      el("line", { x1: x, y1: MARGIN + CELL / 2, x2: x, y2: MARGIN + CELL * h - CELL / 2, stroke: style.line }, grid);
    }
    for (let row = 0; row < h; row++) {
      const y = MARGIN + CELL * row + CELL / 2;
      el("line", { x1: MARGIN + CELL / 2, y1: y, x2: MARGIN + CELL * w - CELL / 2, y2: y, stroke: style.line }, grid);
    }
  } else {
    for (let i = 0; i <= w; i++) {
      const x = MARGIN + CELL * i;
      el("line", { x1: x, y1: MARGIN, x2: x, y2: MARGIN + CELL * h, stroke: style.line }, grid);
    }
    for (let i = 0; i <= h; i++) {
      const y = MARGIN + CELL * i;
      el("line", { x1: MARGIN, y1: y, x2: MARGIN + CELL * w, y2: y, stroke: style.line }, grid);
    }
  }
  const legal = view.legal || new Set();
  const forbidden = view.forbidden || new Map();
  const winning = view.winning || new Set();
  const flips = view.flips || new Set();
  const hints = view.hints || new Map();
  const hintText = view.hintText || formatScore;
  for (let row = 0; row < h; row++) {
    for (let col = 0; col < w; col++) {
      const cx = MARGIN + CELL * col + CELL / 2;
      const cy = MARGIN + CELL * row + CELL / 2;
      const color = pos.cells[row][col];
      const name = squareName(game, h, col, row);
      const classes = ["sq"];
      let label = `${name}, ${pieceWord(color)}`;
      if (!color && forbidden.has(name)) {
        const kind = forbidden.get(name);
        label += kind ? `, forbidden for Black (${kind})` : ", forbidden for Black";
      }
      else if (!color && view.showLegal && legal.has(name)) label += ", legal";
      if (name === view.last) label += ", last move";
      if (winning.has(name)) label += ", winning line";
      if (hints.has(name)) label += `, hint score ${hintText(hints.get(name))}`;
      const ghost = !color && view.ghost && view.ghost.name === name ? view.ghost : null;
      if (ghost) label += ", tap again to place";
      if (name === view.focus) classes.push("focused");
      const g = el("g", {
        class: classes.join(" "), "data-move": name, role: "button", "aria-label": label,
        tabindex: name === view.focus ? 0 : -1,
      }, svg);
      el("rect", {
        x: cx - CELL / 2, y: cy - CELL / 2, width: CELL, height: CELL, fill: "transparent", class: "hit",
      }, g);
      if (winning.has(name)) {
        el("circle", { cx, cy, r: CELL / 2 - 1, fill: "#ffd84d", opacity: 0.8, class: "win" }, g);
      }
      if (color) {
        const p = piece(game, color, cx, cy, g);
        if (flips.has(name)) p.classList.add("flip");
        if (name === view.last) p.classList.add("placed");
      } else if (ghost) {
        const p = piece(game, ghost.color, cx, cy, g);
        p.classList.add("ghost");
        p.setAttribute("opacity", "0.55");
      } else if (forbidden.has(name)) {
        el("path", {
          d: `M${cx - 7} ${cy - 7}L${cx + 7} ${cy + 7}M${cx + 7} ${cy - 7}L${cx - 7} ${cy + 7}`,
          stroke: "#c0392b", "stroke-width": 3, class: "forbidden",
        }, g);
      } else if (view.showLegal && legal.has(name)) {
        el("circle", { cx, cy, r: 5, fill: style.line, opacity: 0.45, class: "legal" }, g);
      }
      if (name === view.last) el("circle", { cx, cy, r: 4, fill: "#e74c3c", class: "last" }, g);
      if (hints.has(name) && !color) {
        const best = name === view.best;
        el("circle", {
          cx, cy, r: CELL / 2 - 5, fill: best ? "#1565c0" : "#ffffff", opacity: 0.92,
          stroke: "#1565c0", "stroke-width": 1.5, class: "hint",
        }, g);
        const text = hintText(hints.get(name));
        // longer marks get a smaller font so that they stay inside the circle
        const size = Math.min(11, 26 / (0.62 * Math.max(1, text.length)));
        const t = el("text", {
          x: cx, y: cy + size / 3, "font-size": size.toFixed(1), "font-weight": 700, "text-anchor": "middle",
          fill: best ? "#ffffff" : "#0d3c78", class: "hint-text",
        }, g);
        t.textContent = text;
      }
      el("rect", {
        x: cx - CELL / 2 + 2, y: cy - CELL / 2 + 2, width: CELL - 4, height: CELL - 4,
        rx: 4, class: "focus-ring", fill: "none",
      }, g);
    }
  }
  drawWinningStroke(svg, game, h, winning);
  return svg;
}

/** A stroke through the winning line, on top of the stones, so the five stand out at a glance. */
function drawWinningStroke(svg, game, height, winning) {
  const at = [...winning].map((name) => squareAt(game, height, name)).filter(Boolean);
  if (at.length < 2) return;
  at.sort((a, b) => a.col - b.col || a.row - b.row);
  const centre = (p) => [MARGIN + CELL * p.col + CELL / 2, MARGIN + CELL * p.row + CELL / 2];
  const [x1, y1] = centre(at[0]);
  const [x2, y2] = centre(at[at.length - 1]);
  el("path", {
    d: `M${x1} ${y1}L${x2} ${y2}`, stroke: "#d62828", "stroke-width": 6, "stroke-linecap": "round",
    opacity: 0.75, class: "win-stroke", "aria-hidden": "true", "pointer-events": "none",
  }, svg);
}

export function formatScore(score) {
  if (typeof score !== "number") return String(score);
  if (Number.isInteger(score)) return score > 0 ? `+${score}` : String(score);
  const t = Math.abs(score) < 10 ? score.toFixed(1) : score.toFixed(0);
  return score > 0 ? `+${t}` : t;
}
