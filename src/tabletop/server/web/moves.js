// A click on the board: sent to the server as a move, or refused at once with
// the reason, from what the server said about the position (legal moves,
// forbidden points, whose turn).  On a touch device a tap on a large board can
// first show the stone, and a second tap on the same point place it.

import { say } from "/web/dom.js";
import { squareAt } from "/web/board.js";
import { game, actorOf, colorName, forbiddenMap, isComputer, isPlayer, mine, openingStage } from "/web/state.js";

const TAP_TWICE = "tabletop.tapTwice"; // "on" or "off" once the player chose; else the default
let ghost = null; // the point a first tap chose: {name, plies} (the number of moves then)

/** A device whose main pointer is a finger. */
function touchDevice() {
  return window.matchMedia("(pointer: coarse)").matches || navigator.maxTouchPoints > 0;
}

/** Whether a tap on the board only shows the stone, and a second tap on the same point places
 * it: the player's choice, else on for boards over 9x9 on a touch device (points a finger
 * can miss). */
export function tapTwice() {
  const chosen = localStorage.getItem(TAP_TWICE);
  if (chosen === "on" || chosen === "off") return chosen === "on";
  return touchDevice() && Math.max(game.pos.width || 0, game.pos.height || 0) > 9;
}

export function setTapTwice(on) {
  localStorage.setItem(TAP_TWICE, on ? "on" : "off");
  if (!on) ghost = null;
}

/** Whether the page offers the choice: on a touch device, while the game goes on. */
export function tapTwiceOffered() {
  return touchDevice() && !game.room.outcome && isPlayer();
}

/** The stone a first tap shows, while the position it was chosen in stands: {name, color}. */
export function ghostStone() {
  const room = game.room;
  if (!ghost || !room || room.outcome || game.view !== null || ghost.plies !== (room.moves || []).length) return null;
  return { name: ghost.name, color: game.pos.turn };
}

/** A tap on ``name``: with tap twice on, the first tap shows the stone (a refused point says
 * why at once) and a second tap on the same point plays it; a tap elsewhere moves the stone. */
export function tapMove(name) {
  if (!tapTwice()) {
    tryMove(name);
    return;
  }
  const shown = ghostStone();
  if (shown && shown.name === name) {
    ghost = null;
    tryMove(name);
    return;
  }
  const why = refusal(name);
  if (why) {
    ghost = null;
    say(why, 5000, "error", why === waiting() ? "turn" : "position");
    return;
  }
  ghost = { name, plies: (game.room.moves || []).length };
  say(`Tap ${name} again to place the stone.`, 0, "info", "position");
}

export function tryMove(name) {
  const room = game.room;
  if (!room) return;
  const why = refusal(name);
  if (why) {
    // a wait holds until the turn comes back (events.js takes it off then), not only until the next move lands
    say(why, 5000, "error", why === waiting() ? "turn" : "position");
    return;
  }
  ghost = null;
  game.redoing = false; // a move of one's own replaces whatever could have been redone
  game.sentAt = (room.moves || []).length;
  game.conn.move(name);
}

/** Why no move of this page can be sent now although it plays here: a move is on its way,
 * or it is the other side's turn; "" if it may move. */
function waiting() {
  const room = game.room;
  const turn = actorOf(room);
  if (!turn || !isPlayer()) return "";
  if (game.awaitingTurn || game.sentAt === (room.moves || []).length) {
    // a move is on its way: the legal moves and the turn held here are the old ones
    const next = turn === "black" ? "white" : "black";
    if (isComputer(next)) return `Wait: it is the computer's turn (${colorName(next)}).`;
    return mine(next) ? "Wait a moment: the last move is still on its way." : `Wait: it is ${colorName(next)}'s turn.`;
  }
  if (!mine(turn)) {
    if (isComputer(turn)) return `Wait: the computer (${colorName(turn)}) is thinking.`;
    return `It is ${colorName(turn)}'s turn; wait for your opponent.`;
  }
  return "";
}

/** Why a move on ``name`` cannot be sent, from what the server told us; "" if it can. */
function refusal(name) {
  const room = game.room;
  if (room.outcome) return "The game is over.";
  if (game.view !== null) return "This is an earlier move: press End (or ») to return to the game.";
  if (!isPlayer()) return "You are watching this game.";
  const turn = actorOf(room);
  if (!turn) return "Wait for the game to start.";
  const wait = waiting();
  if (wait) return wait;
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
