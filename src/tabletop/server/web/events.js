// Server frames and room events applied to the page's state: a move, a turn,
// an undo, the end, requests and presence.  Each handler changes the state and
// redraws; anything it cannot apply by itself is fetched again (refreshSoon).

import { $, clearNote, say } from "/web/dom.js";
import { parsePosition, squareAt } from "/web/board.js";
import { saveSeat } from "/web/net.js";
import { game, COLORS, SQUARE, actorOf, mine, colorName, isLocal, isPlayer, lastPlacement, seatConnected } from "/web/state.js";
import { setRoom, refreshSoon } from "/web/room.js";
import { positionText } from "/web/replay.js";
import { render } from "/web/render.js";
import { askOrWait, closeRequest, gameEnded, showHint } from "/web/result.js";
import { eventSound } from "/web/sound.js";
import { onChat } from "/web/chat.js";
import { setAway } from "/web/away.js";

export function onFrame(frame) {
  switch (frame.type) {
    case "state":
      adoptSeats(frame.you);
      setRoom(frame.state || frame.room || frame);
      break;
    case "event":
      onEvent(frame.event || {}, frame.version);
      break;
    case "ack":
      game.conn.acked(frame);
      break;
    case "hint":
      showHint(frame.analysis || {});
      break;
    case "watchers":
      game.watchers = frame.count ?? frame.watchers;
      game.presenceSeen += 1; // a GET answered meanwhile holds an older word on who is here
      if (frame.away) setAway(frame.away);
      if (frame.seats && game.room && game.room.seats) {
        for (const [color, connected] of Object.entries(frame.seats)) {
          const seat = game.room.seats[color];
          if (!seat || typeof seat !== "object") continue;
          const was = seatConnected(color);
          seat.connected = Boolean(connected);
          if (was !== seat.connected) presenceChanged(color, seat.connected);
        }
      }
      render();
      break;
    case "chat":
    case "chat_sent":
      onChat(frame);
      break;
    case "error":
      if (!onChat(frame)) onError(frame); // a refused chat message is told under the chat
      break;
    default:
      break;
  }
}

/** The server names the seats this connection holds; after a colour swap a single
 * token may now play the other colour. */
function adoptSeats(you) {
  const tokens = Object.values(game.seat.tokens || {});
  if (!Array.isArray(you) || you.length !== 1 || tokens.length !== 1) return;
  if (game.seat.tokens[you[0]]) return;
  game.seat.tokens = { [you[0]]: tokens[0] };
  saveSeat(game.id, game.seat);
}

function onError(frame) {
  game.sentAt = null; // a refused move is not on its way any more
  if (frame.code === "unknown_room") {
    game.conn.close(); // reconnecting cannot bring back a room the server does not know
    say("There is no such game.", 0);
    return;
  }
  if (frame.code === "rate_limited" && game.conn.rateLimited(frame)) return; // resent in a second
  if (frame.code === "bad_token") {
    say("This browser's seat is no longer valid; you are watching.", 0, "error", "event");
    return;
  }
  if (frame.code === "nothing_to_redo") game.undone = [];
  game.redoing = false;
  say(refusalText(frame) || "The server refused that.");
  $("hint").disabled = false;
}

/** The server's reason in the page's words: "j8: forbidden for Black (double-three)"
 * reads "j8 is forbidden for Black (double-three)." */
function refusalText(frame) {
  const text = frame.message || frame.code || "";
  const foul = /^([a-z]\d{1,2}): (forbidden for Black \([\w-]+\))$/.exec(text);
  return foul ? `${foul[1]} is ${foul[2]}.` : text;
}

function onEvent(event, version) {
  const room = game.room;
  if (!room) return;
  if (typeof version === "number") {
    if (version <= room.version) return; // already part of the state we hold
    if (typeof room.version === "number" && version > room.version + 1) {
      // events in between never came: applying this one would skip them, the room's state has them all
      refreshSoon();
      return;
    }
    room.version = version;
  }
  eventSound(event);
  switch (event.kind) {
    case "move_played":
      movePlayed(event);
      break;
    case "turn_changed":
      game.awaitingTurn = false;
      room.turn = event.turn ?? room.turn;
      room.actor = event.actor ?? null;
      if ("opening" in event) room.opening = event.opening;
      if (event.legal) room.legal = event.legal;
      if ("forbidden" in event) room.forbidden = event.forbidden;
      else if (room.game === "gomoku") refreshSoon(); // forbidden points change with every stone
      if (event.clocks) {
        room.clocks = event.clocks;
        game.clocksAt = performance.now();
      }
      if ("clock_running" in event) room.clock_running = event.clock_running;
      game.thinking = null;
      if (mine(actorOf(room))) clearNote("turn"); // "wait, it is the computer's turn" no longer holds
      if (event.passing) announcePass(room.turn);
      render();
      break;
    case "move_undone":
      moveUndone(event);
      break;
    case "game_ended":
      game.awaitingTurn = false;
      room.outcome = event.outcome;
      room.turn = null;
      room.legal = [];
      room.clock_running = null;
      game.thinking = null;
      endClocks(event);
      clearNote("turn");
      render();
      gameEnded();
      break;
    case "takeback_requested":
      askOrWait(event.color, "takeback");
      break;
    case "takeback_answered":
      closeRequest();
      if (!mine(event.color)) say(event.accept ? "Takeback accepted." : "Takeback declined.", 5000, "info");
      break;
    case "draw_offered":
      askOrWait(event.color, "draw");
      break;
    case "draw_answered":
      closeRequest();
      if (!mine(event.color)) say(event.accept ? "Draw agreed." : "Draw declined.", 5000, "info");
      break;
    case "thinking":
      game.thinking = event.color || room.turn;
      render();
      break;
    case "colors_chosen":
      say(event.swapped ? `${colorName(event.color)} takes ${event.choice}: the players swap colours.`
        : `${colorName(event.color)} keeps ${event.choice}.`, 6000, "info");
      // the seats may have changed hands: start over from a full state, which names ours
      if (event.swapped) game.conn.restart();
      else refreshSoon();
      break;
    case "opening_started":
    case "opening_choice_required":
    case "opening_choice_made":
      refreshSoon();
      break;
    case "rematch_offered":
      askOrWait(event.color, "rematch");
      break;
    case "watchers":
      game.watchers = event.count ?? event.watchers;
      render();
      break;
    case "seat_joined":
      if (isPlayer() && !isLocal() && !mine(event.color)) {
        say(`Your opponent has joined: ${colorName(event.color)} is here.`, 8000, "info", "presence");
      }
      refreshSoon();
      break;
    case "seat_connected":
    case "seat_disconnected":
    case "connection_changed":
    case "game_started":
    case "rematch":
    case "rematch_started":
      if (event.room && event.room !== game.id) {
        followRematch(event);
        return;
      }
      refreshSoon();
      break;
    default:
      refreshSoon();
      break;
  }
}

function movePlayed(event) {
  const room = game.room;
  room.moves = [...(room.moves || []), event.move];
  if (room.moved && event.color) room.moved = { ...room.moved, [event.color]: true }; // until both have, either may abort
  room.legal = []; // until the turn_changed that follows says what may be played next
  game.awaitingTurn = true; // the move's turn_changed or game_ended is a separate frame
  game.sentAt = null; // the move this page sent, if any, is this one or was overtaken by it
  game.hints = new Map();
  game.best = null;
  game.thinking = null;
  game.flips = new Set();
  clearNote("position");
  // a move that Redo brings back leaves the rest redoable; any other move ends the redo line
  if (game.redoing && game.undone.length) game.undone.pop();
  else game.undone = [];
  // the stone's colour is the side to move in the position; during a swap opening
  // one seat places stones of both colours, so event.color (the seat) may differ
  const stone = game.pos.turn;
  if (event.move === "pass") {
    announcePass(event.color);
  } else {
    const at = squareAt(room.game, game.pos.height, event.move);
    if (at) game.pos.cells[at.row][at.col] = stone;
    for (const name of event.flips || []) {
      const f = squareAt(room.game, game.pos.height, name);
      if (f) game.pos.cells[f.row][f.col] = stone;
    }
    game.flips = new Set(event.flips || []);
    game.last = event.move;
  }
  game.pos.turn = stone === "black" ? "white" : "black";
  room.position = positionText(game.pos);
  game.positions.set(room.moves.length, room.position);
  if (event.position) room.position = event.position;
  if (!SQUARE.test(event.move) && event.move !== "pass") refreshSoon(); // an opening choice such as "swap"
  render();
}

/** The clocks as they stopped: the server's (a flag fall's loser at 0); they no longer run,
 * so the time shown is this, not the time left at the last turn. */
function endClocks(event) {
  const room = game.room;
  if (event.clocks) room.clocks = event.clocks;
  if (room.clocks && event.outcome && event.outcome.reason === "time" && event.outcome.winner) {
    room.clocks = { ...room.clocks, [event.outcome.winner === "black" ? "white" : "black"]: 0 };
  }
  game.clocksAt = performance.now();
}

function moveUndone(event) {
  const room = game.room;
  const moves = (room.moves || []).slice(0, Math.max(0, (event.ply || room.moves.length) - 1));
  room.moves = moves;
  room.outcome = null;
  game.resultShown = false;
  if (event.move) game.undone.push(event.move);
  game.sentAt = null;
  clearNote("position");
  clearNote("turn");
  game.hints = new Map();
  game.flips = new Set();
  const known = game.positions.get(moves.length);
  if (known) {
    room.position = known;
    game.pos = parsePosition(known);
    game.last = lastPlacement(moves);
  } else {
    refreshSoon();
  }
  render();
}

/** The opponents' seats this page saw lose their connection: one that connects again is "back". */
const wentAway = new Set();

/** The opponent's seat lost or found its connection: the line under the board says
 * so, replacing an older word about who is here (a player who left has not "joined"). */
function presenceChanged(color, connected) {
  if (!isPlayer() || isLocal() || mine(color) || game.room.seats[color].kind !== "human") return;
  if (game.room.outcome) {
    clearNote("presence");
    return;
  }
  if (!connected) {
    wentAway.add(color);
    say(`Your opponent has left: ${colorName(color)} is away until they come back.`, 0, "info", "presence");
  } else if (wentAway.has(color)) {
    say(`Your opponent is back: ${colorName(color)} is here.`, 8000, "info", "presence");
  }
}

function announcePass(color) {
  say(`${colorName(color)} has no move and passes.`, 6000, "info", "position");
}

function followRematch(event) {
  const tokens = event.tokens || {};
  const next = event.room;
  const seat = { tokens: {}, invite: event.invite || null, seq: 0, mode: game.seat.mode };
  for (const color of COLORS) if (tokens[color]) seat.tokens[color] = tokens[color];
  saveSeat(next, seat);
  location.assign(`/play/${encodeURIComponent(next)}`);
}
