// The named opening of the position on the board ("Opening: Tiger", "Opening: Kagetsu (4D)";
// the kanji, which not every system has a font for, in the line's tooltip), in play and in review.
//
// The server names the openings a room's moves pass through (GET /api/rooms/{id}/openings,
// from tabletop.games.opening_names and its data files); the page asks again only when the
// moves change within the longest named line, and shows the deepest opening reached by the
// ply on the board, so stepping back through a game names each position it shows.

import { $ } from "/web/dom.js";
import { api } from "/web/net.js";
import { game } from "/web/state.js";
import { shownPly } from "/web/review.js";

const named = {
  key: null, // the moves (up to the longest named line) the openings below are for
  openings: [], // {name, ply, line, family, code, kanji}, shortest first
  longest: null, // the longest named line of the game's variant; null until the server says
  asking: false,
};

/** The moves that can change the name: those within the longest named line. */
function keyOf(moves) {
  return (named.longest === null ? moves : moves.slice(0, named.longest)).join(" ");
}

async function ask() {
  if (named.asking || !game.id) return;
  named.asking = true;
  const asked = [...(game.room.moves || [])];
  try {
    const answer = await api("GET", `/api/rooms/${encodeURIComponent(game.id)}/openings`);
    named.openings = answer.openings || [];
    named.longest = answer.longest;
  } catch {
    named.openings = []; // no name rather than a wrong one; the next change of moves asks again
  } finally {
    named.key = keyOf(asked); // once the longest line is known, moves past it ask nothing
    named.asking = false;
  }
  renderOpening();
}

/** The deepest named opening the shown ply has reached on this game's moves, or null. */
export function shownOpening() {
  const moves = game.room.moves || [];
  const ply = shownPly();
  let shown = null;
  for (const opening of named.openings) {
    if (opening.ply <= ply && opening.line.every((move, i) => moves[i] === move)) shown = opening;
  }
  return shown;
}

/** Called on every render: the line under the moves' title names the opening on the board. */
export function renderOpening() {
  const box = $("opening");
  if (!game.room || !box) return;
  if (keyOf(game.room.moves || []) !== named.key) ask();
  const opening = shownOpening();
  box.hidden = !opening;
  if (!opening) {
    box.textContent = "";
    return;
  }
  box.textContent = `Opening: ${opening.name}${opening.code ? ` (${opening.code})` : ""}`;
  const kind = opening.family === "renju" ? `the renju opening ${opening.kanji || ""}` : "the Othello opening";
  box.title = `${opening.line.join(" ")}: ${kind} of the first ${opening.ply} moves`;
}
