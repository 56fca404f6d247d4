// Requests between the players (takeback, draw, rematch), the result dialog
// with its evaluation graph, and the engine's hint.

import { $, say } from "/web/dom.js";
import { formatScore } from "/web/board.js";
import { api } from "/web/net.js";
import { drawGraph, plyAt } from "/web/graph.js";
import { analysisShown } from "/web/analysis.js";
import { showPly } from "/web/review.js";
import { game, COLORS, SQUARE, colorName, counts, isComputer, isLocal, isPlayer, mine, tournamentOfRoom } from "/web/state.js";
import { render, signed } from "/web/render.js";
import { chatGameOver } from "/web/chat.js";

export function askOrWait(color, kind) {
  const other = color === "black" ? "white" : "black";
  const what = { takeback: "take back a move", draw: "agree a draw", rematch: "play a rematch" }[kind];
  if (kind === "rematch" && mine(other)) {
    offerRematch(color);
    return;
  }
  if (mine(other)) {
    game.request = kind;
    $("request-text").textContent = `${colorName(color)} asks to ${what}.`;
    $("request").hidden = false;
    $("request-accept").focus();
  } else if (mine(color)) {
    say(`Asked your opponent to ${what}…`, 0, "info");
  } else {
    say(`${colorName(color)} asks to ${what}.`, 5000, "info");
  }
}

/** A rematch offer is answered in the result dialog, in front of everything else:
 * its Rematch button becomes the one Accept, with a Decline beside it. */
function offerRematch(color) {
  game.request = "rematch";
  $("result-offer").textContent = `${colorName(color)} offers a rematch.`;
  $("result-rematch").textContent = "Accept rematch";
  $("result-rematch").hidden = false;
  $("result-decline").hidden = false;
  const dialog = $("result-dialog");
  if (!dialog.open) dialog.showModal();
  $("result-rematch").focus();
}

export function closeRequest() {
  if (game.request === "rematch") {
    $("result-offer").textContent = "";
    $("result-rematch").textContent = "Rematch";
    $("result-decline").hidden = true;
  }
  game.request = null;
  $("request").hidden = true;
}

export function answerRequest(accept) {
  if (game.request === "rematch") {
    if (accept) game.conn.send({ type: "rematch" }); // offering back is accepting
  } else if (game.request) {
    game.conn.send({ type: game.request, accept });
  }
  closeRequest();
}

const REASONS = {
  line: "five in a row",
  discs: "on discs",
  resign: "by resignation",
  time: "on time",
  agreement: "by agreement",
  abandoned: "by abandonment",
  forbidden: "by Black's forbidden move",
  draw: "",
};

export function resultWords(outcome) {
  const room = game.room;
  let title;
  if (outcome.reason === "aborted") title = "Game aborted";
  else if (!outcome.winner) title = outcome.reason === "agreement" ? "Draw by agreement" : "Draw";
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

export function gameEnded() {
  const outcome = game.room.outcome;
  if (outcome) chatGameOver(); // both chats are open to everyone once the game is over
  if (!outcome || game.resultShown) return;
  game.resultShown = true;
  closeRequest();
  const words = resultWords(outcome);
  $("result-title").textContent = words.title;
  const moves = (game.room.moves || []).length;
  const parts = [`${moves} ${moves === 1 ? "move" : "moves"}.`, resultLine(outcome)];
  const empties = emptiesToWinner(outcome);
  if (empties) parts.push(empties);
  $("result-text").textContent = parts.join(" ");
  $("result-ratings").textContent = "";
  showRatingChanges();
  $("result-rematch").hidden = !isPlayer() || Boolean(tournamentOfRoom());
  const dialog = $("result-dialog");
  if (!dialog.open) dialog.showModal();
  loadGraph();
}

/** Each player's rating change of a rated game ("alice 1500? → 1662? (+162)"), asked of the server
 * when the state at hand lacks it: the result and the change are stored in one transaction,
 * committed before the end of the game is announced. */
async function showRatingChanges() {
  let players = game.room.players;
  if (!players || !players.rated) return;
  if (players.black.change === null) {
    try {
      players = (await api("GET", `/api/rooms/${encodeURIComponent(game.id)}`)).players;
    } catch {
      return; // the dialog says the result; the player page has the ratings
    }
    if (!players || players.black.change === null) return; // not rated: aborted before both moved
    game.room.players = players;
    render();
  }
  $("result-ratings").textContent = COLORS.map((c) => players[c])
    .map((p) => `${p.name} ${p.display} → ${p.after} (${signed(p.change)})`).join("\n");
}

/** Reversi: when the game ends with empty squares, the rules give them to the winner,
 * so the score differs from the discs on the board; say so. */
function emptiesToWinner(outcome) {
  if (game.room.game !== "reversi" || !outcome.winner || !Array.isArray(outcome.score)) return "";
  const n = counts();
  const empty = game.pos.width * game.pos.height - n.black - n.white;
  const [black, white] = outcome.score;
  if (!empty || black + white === n.black + n.white) return "";
  const loser = outcome.winner === "black" ? "white" : "black";
  const squares = empty === 1 ? "1 empty square goes" : `${empty} empty squares go`;
  return `On the board ${n[outcome.winner]} discs to ${n[loser]}: the ${squares} to the winner, as the rules say.`;
}

function resultLine(outcome) {
  if (outcome.reason === "aborted") return "No result: the game was called off, and it is not rated.";
  if (outcome.winner && outcome.reason === "abandoned") {
    return `Result ${outcome.winner === "black" ? "1–0" : "0–1"}: the other player left the game.`;
  }
  if (!outcome.winner) return "Result ½–½.";
  return outcome.winner === "black" ? "Result 1–0." : "Result 0–1.";
}

async function loadGraph() {
  if (analysisShown()) return; // the stored analysis draws its own graph
  $("graph-box").hidden = false;
  $("graph").textContent = "Analysing the game…";
  try {
    const data = await api("GET", `/api/rooms/${encodeURIComponent(game.id)}/evaluation`);
    if (analysisShown()) return;
    const svg = drawGraph(data, game.room);
    // a click on the graph shows the board at that ply
    svg.dataset.steppable = "";
    svg.addEventListener("click", (event) => showPly(plyAt(svg, event.clientX), render));
    $("graph").replaceChildren(svg);
    render();
  } catch (error) {
    $("graph").textContent = `The engine could not evaluate this game (${error.message}).`;
  }
}

export function showHint(analysis) {
  clearTimeout(game.hintTimer);
  $("hint").disabled = false;
  game.hints = new Map();
  for (const item of analysis.scores || []) {
    if (item && SQUARE.test(item.move)) game.hints.set(item.move, item.score);
  }
  game.best = (analysis.scores && analysis.scores[0] && analysis.scores[0].move) || (analysis.pv || [])[0] || null;
  const side = game.room.turn || game.pos.turn;
  if (game.best) say(`Hint: ${game.best} (${hintWords(scoreOf(analysis, game.best), side)}).`, 8000, "info", "position");
  else say("No hint for this position.", 5000, "info", "position");
  render();
}

// engines report a proven win or loss as a huge score
const DECIDED = 10000;

/** A hint score in words with its unit, from the side to move's view: Reversi in discs,
 * Gomoku in the engine's points, Tic-tac-toe (solved exactly) as win, draw or loss. */
export function hintWords(score, side) {
  const who = colorName(side);
  if (typeof score !== "number") return `no score for ${who}`;
  const kind = game.room.game;
  if (Math.abs(score) >= DECIDED || (kind === "tictactoe" && score !== 0)) {
    return score > 0 ? `a win for ${who}` : `a loss for ${who}`;
  }
  if (kind === "tictactoe") return "a draw with best play";
  if (kind === "reversi") {
    const discs = Math.abs(score) === 1 ? "disc" : "discs";
    return `${score === 0 ? "±0" : formatScore(score)} ${discs} for ${who}`;
  }
  return `${formatScore(Math.round(score))} ${Math.abs(Math.round(score)) === 1 ? "point" : "points"} for ${who}`;
}

/** The short form drawn in a hint circle: at most five characters. */
export function hintMark(score) {
  if (typeof score !== "number") return "?";
  const kind = game.room.game;
  if (Math.abs(score) >= DECIDED || (kind === "tictactoe" && score !== 0)) return score > 0 ? "win" : "loss";
  if (kind === "tictactoe") return "draw";
  if (Math.abs(score) >= 1000) return `${score > 0 ? "+" : "−"}${(Math.abs(score) / 1000).toFixed(1)}k`;
  return formatScore(kind === "reversi" ? score : Math.round(score));
}

function scoreOf(analysis, move) {
  const item = (analysis.scores || []).find((s) => s.move === move);
  return item ? item.score : "";
}
