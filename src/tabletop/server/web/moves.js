// A click on the board: sent to the server as a move, or refused at once with
// the reason, from what the server said about the position (legal moves,
// forbidden points, whose turn).

import { say } from "/web/dom.js";
import { squareAt } from "/web/board.js";
import { game, actorOf, colorName, forbiddenMap, isComputer, isPlayer, mine, openingStage } from "/web/state.js";

export function tryMove(name) {
  const room = game.room;
  if (!room) return;
  const why = refusal(name);
  if (why) {
    say(why);
    return;
  }
  game.redoing = false; // a move of one's own replaces whatever could have been redone
  game.sentAt = (room.moves || []).length;
  game.conn.move(name);
}

/** Why a move on ``name`` cannot be sent, from what the server told us; "" if it can. */
function refusal(name) {
  const room = game.room;
  if (room.outcome) return "The game is over.";
  if (game.view !== null) return "This is an earlier move: press End (or ») to return to the game.";
  if (!isPlayer()) return "You are watching this game.";
  const turn = actorOf(room);
  if (!turn) return "Wait for the game to start.";
  if (game.awaitingTurn || game.sentAt === (room.moves || []).length) {
    // a move of this page is on its way: the legal moves and the turn held here are the old ones
    const next = turn === "black" ? "white" : "black";
    if (isComputer(next)) return `Wait: it is the computer's turn (${colorName(next)}).`;
    return mine(next) ? "Wait a moment: the last move is still on its way." : `Wait: it is ${colorName(next)}'s turn.`;
  }
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
    if (kind) return `${name} is forbidden for Black (${kind}).`;
    // the server refuses it without changing anything and names the foul (events.js shows it);
    // where a forbidden move loses instead, it is refused here
    if (!(room.options && room.options.forbidden_loses)) return "";
    return `${name} is forbidden for Black by the renju rule.`;
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
