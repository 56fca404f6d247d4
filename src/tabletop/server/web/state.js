// The game screen's state, in one place, and the questions every other module
// asks of it (whose seat, whose turn, which colour name).  Only room.js and
// events.js change the room it holds, from the server's frames; the rest read it.

export const COLORS = ["black", "white"];
export const SQUARE = /^[a-z]\d{1,2}$/;

export function gameTitle(game) {
  return { reversi: "Reversi", gomoku: "Gomoku", tictactoe: "Tic-tac-toe" }[game] || game;
}

export const game = {
  id: null,
  seat: null, // {tokens, invite, seq, mode}
  conn: null,
  room: null, // the room state, kept current from events
  pos: null, // parsed position
  positions: new Map(), // plies -> position text, for undo without a round trip
  last: null,
  flips: new Set(),
  hints: new Map(),
  best: null,
  focus: null,
  thinking: null,
  watchers: null,
  away: {}, // the seats whose player has left a live online game: seconds until it may be ended (away.js)
  awayAt: 0, // when those seconds were read
  clocksAt: 0,
  messageTimer: null,
  hintTimer: null,
  resultShown: false,
  request: null, // the takeback, draw or rematch request this page is asked to answer
  undone: [], // the moves Undo took back, latest last: what Redo can bring back
  redoing: false, // Redo was pressed: the next moves played are the undone ones coming back
  clockMax: 0, // the most time either clock has shown, to scale the low-time warning
  lowWarned: new Set(), // the colours whose low-time warning has been given
  view: null, // the ply shown while stepping through the game; null follows the game
  history: null, // {key, positions}: the position after every ply, replayed once per move list
  refreshTimer: null,
  presenceSeen: 0, // "watchers" frames received: who is here, newer than a GET asked before one
  awaitingTurn: false, // between a move_played and the turn_changed or game_ended after it
  sentAt: null, // the number of moves when this page sent a move, until the server plays or refuses it
};

export function mine(color) {
  return Boolean(game.seat && game.seat.tokens && game.seat.tokens[color]);
}

export function isPlayer() {
  return COLORS.some(mine);
}

/** The tournament a game belongs to ({id, name}, from the room's players), or null. */
export function tournamentOfRoom() {
  return (game.room && game.room.players && game.room.players.tournament) || null;
}

export function isLocal() {
  if (game.room && game.room.mode) return game.room.mode === "local";
  if (game.seat && game.seat.mode) return game.seat.mode === "local";
  return false;
}

export function seatKind(color) {
  const seat = game.room && game.room.seats ? game.room.seats[color] : null;
  if (!seat) return "human";
  return typeof seat === "string" ? seat : seat.kind || "human";
}

export function seatConnected(color) {
  const seat = game.room && game.room.seats ? game.room.seats[color] : null;
  return !seat || typeof seat === "string" || seat.connected !== false;
}

/** The seat that must act: the side to move, or during a swap opening the seat
 * placing the opening stones (of either colour) or making the choice. */
export function actorOf(room) {
  if (!room || room.outcome) return null;
  return room.actor || room.turn || null;
}

export function openingStage(room) {
  return room && room.opening && room.opening.stage !== "done" ? room.opening.stage : null;
}

export function isComputer(color) {
  return seatKind(color) !== "human";
}

export function colorName(color) {
  if (game.room && game.room.game === "tictactoe") return color === "black" ? "X" : "O";
  return color === "black" ? "Black" : "White";
}

export function forbiddenMap() {
  const f = game.room && game.room.forbidden;
  const map = new Map();
  if (!f || (game.room.turn && game.room.turn !== "black" && !game.room.opening)) return map;
  if (Array.isArray(f)) {
    for (const item of f) {
      if (typeof item === "string") map.set(item, "");
      else if (item && item.move) map.set(item.move, item.kind || item.reason || "");
    }
  } else if (typeof f === "object") {
    for (const [k, v] of Object.entries(f)) map.set(k, typeof v === "string" ? v : "");
  }
  return map;
}

export function counts(pos = game.pos) {
  const n = { black: 0, white: 0 };
  for (const row of pos.cells) for (const c of row) if (c) n[c] += 1;
  return n;
}

/** The last stone placed in ``moves`` (a pass or an opening choice places none). */
export function lastPlacement(moves) {
  for (let i = moves.length - 1; i >= 0; i--) if (SQUARE.test(moves[i])) return moves[i];
  return null;
}
