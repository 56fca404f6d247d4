// Requests between the players (takeback, draw, rematch), the result dialog
// with its evaluation graph, and the engine's hint.

import { $, say } from "/web/dom.js";
import { formatScore } from "/web/board.js";
import { api } from "/web/net.js";
import { drawGraph } from "/web/graph.js";
import { game, COLORS, SQUARE, colorName, isComputer, isLocal, isPlayer, mine } from "/web/state.js";
import { render } from "/web/render.js";

export function askOrWait(color, kind) {
  const other = color === "black" ? "white" : "black";
  const what = { takeback: "take back a move", draw: "agree a draw", rematch: "play a rematch" }[kind];
  if (kind === "rematch" && $("result-dialog").open) {
    $("result-text").textContent += ` ${colorName(color)} offers a rematch.`;
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

export function closeRequest() {
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
  forbidden: "by Black's forbidden move",
  draw: "",
};

export function resultWords(outcome) {
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

export function gameEnded() {
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

export function showHint(analysis) {
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
