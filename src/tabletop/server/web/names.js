// Names a person reads for the server's keys: a rating pool's key
// ("reversi-8-blitz", "gomoku-renju-19-rapid", "tictactoe-untimed") as
// "Reversi 8×8 · Blitz", "Gomoku Renju 19×19 · Rapid", "Tic-tac-toe · Untimed".

const GAMES = { reversi: "Reversi", gomoku: "Gomoku", tictactoe: "Tic-tac-toe" };
const SPEEDS = ["ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence", "untimed"];

function capital(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** The pool's name, or null for a key that names no pool. */
export function poolName(key) {
  const parts = String(key).split("-");
  const game = GAMES[parts[0]];
  const speed = parts[parts.length - 1];
  if (!game || parts.length < 2 || !SPEEDS.includes(speed)) return null;
  const variant = parts.slice(1, -1);
  let board = "";
  if (parts[0] === "reversi") {
    if (variant.length !== 1 || !/^\d{1,2}$/.test(variant[0])) return null;
    board = ` ${variant[0]}×${variant[0]}`;
  } else if (parts[0] === "gomoku") {
    if (!variant.length || variant.length > 2 || !/^[a-z]+$/.test(variant[0])) return null;
    if (variant.length === 2 && !/^\d{1,2}$/.test(variant[1])) return null;
    board = ` ${capital(variant[0])}${variant.length === 2 ? ` ${variant[1]}×${variant[1]}` : ""}`;
  } else if (variant.length) {
    return null;
  }
  return `${game}${board} · ${capital(speed)}`;
}

/** The pool's name, or the key itself where it names no pool the page knows. */
export function poolLabel(key) {
  return poolName(key) || String(key);
}

let levelData = null;

/** The computer levels' strength (levels.json, written by scripts/level_elo.py), fetched once. */
export function loadLevels() {
  if (!levelData) levelData = fetch("/web/levels.json").then((r) => (r.ok ? r.json() : null)).catch(() => null);
  return levelData;
}

/** How strong level ``n`` is in ``game`` (and Gomoku ``rule``), in words: "about 1910 Elo". */
export function levelStrength(data, game, rule, n) {
  if (!data) return "";
  if (game === "tictactoe") return (data.words.tictactoe || {})[String(n)] || "";
  const key = game === "gomoku" ? `gomoku-${rule === "renju" ? "renju" : "freestyle"}` : game;
  const elo = data.elo[key] && data.elo[key].levels[String(n)];
  return elo ? `about ${elo} Elo` : "";
}

/** The colour choices of ``select`` in the words of the game: X and O for Tic-tac-toe, else
 * Black and White ("(first)" marks the side that moves first where ``first`` is true). */
export function nameColours(select, game, first = true) {
  const mark = first ? " (first)" : "";
  const words = game === "tictactoe" ? { black: `X${mark}`, white: "O" } : { black: `Black${mark}`, white: "White" };
  for (const option of select.options) if (words[option.value]) option.textContent = words[option.value];
}

/** Each option of a level ``select`` (values 1-10) with its strength: "3 · about 1910 Elo". */
export function nameLevels(select, data, game, rule) {
  for (const option of select.options) {
    const n = option.value;
    option.value = n; // an option without a value attribute takes its text as value: keep the number
    const strength = levelStrength(data, game, rule, n);
    option.textContent = strength ? `${n} · ${strength}` : n;
  }
}
