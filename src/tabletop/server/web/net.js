// Talking to the server: the HTTP calls and the room's websocket of the wire
// contract (docs/DESIGN.md, docs/wire.md), plus the seat tokens kept in local
// storage so that a reload keeps the seat.
//
// Nothing here draws or knows the rules; the connection hands every server
// frame to its owner and reconnects by itself after a drop, asking only for
// the events it missed ("since"). The lobby's and a tournament's read-only
// sockets (openFeed) reconnect the same way and start with a full snapshot.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A JSON request; a non-2xx answer raises ApiError with the server's message. */
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text };
  }
  if (!response.ok) {
    throw new ApiError(response.status, errorText(data) || `${response.status} ${response.statusText}`);
  }
  return data;
}

function errorText(data) {
  if (!data) return "";
  if (typeof data.message === "string") return data.message;
  if (typeof data.detail === "string") return data.detail;
  if (Array.isArray(data.detail)) return data.detail.map((d) => d.msg || JSON.stringify(d)).join("; ");
  if (data.error && typeof data.error.message === "string") return data.error.message;
  return "";
}

const STORE_PREFIX = "tabletop.room.";

/** What this browser holds for a room: {tokens: {black?, white?}, invite?, seq}. */
export function loadSeat(roomId) {
  try {
    const raw = localStorage.getItem(STORE_PREFIX + roomId);
    if (raw) return JSON.parse(raw);
  } catch {
    // a broken entry is the same as none
  }
  return { tokens: {}, invite: null, seq: 0 };
}

export function saveSeat(roomId, seat) {
  try {
    localStorage.setItem(STORE_PREFIX + roomId, JSON.stringify(seat));
  } catch {
    // private mode: the seat lasts as long as the page
  }
}

/**
 * The room's websocket.  onFrame(frame) gets every server frame; onStatus(word)
 * gets "connecting", "connected", "reconnecting" or "closed".  After a drop it
 * reconnects with a growing delay and sends "since" (currentVersion()) so the
 * server replays only what was missed.
 */
export class RoomConnection {
  constructor(roomId, seat, { onFrame, onStatus, currentVersion }) {
    this.roomId = roomId;
    this.seat = seat;
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    // the version of the state the page holds, asked at each reconnect
    this.currentVersion = currentVersion;
    this.opened = false;
    this.socket = null;
    this.delay = 500;
    this.closed = false;
    this.queue = [];
    this.timer = null;
    this.lastMove = null;
    this.retryTimer = null;
  }

  open() {
    this.closed = false;
    this.onStatus(this.opened ? "reconnecting" : "connecting");
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/api/rooms/${encodeURIComponent(this.roomId)}/ws`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      const hello = { type: "hello" };
      const tokens = Object.values(this.seat.tokens || {});
      if (tokens.length === 1) hello.token = tokens[0];
      else if (tokens.length > 1) hello.tokens = tokens;
      const since = this.opened ? this.currentVersion() : null;
      if (typeof since === "number") hello.since = since;
      this.opened = true;
      socket.send(JSON.stringify(hello));
      this.delay = 500;
      this.onStatus("connected");
      const pending = this.queue;
      this.queue = [];
      for (const frame of pending) socket.send(JSON.stringify(frame));
    });
    socket.addEventListener("message", (msg) => {
      let frame;
      try {
        frame = JSON.parse(msg.data);
      } catch {
        return;
      }
      this.onFrame(frame);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.closed) {
        this.onStatus("closed");
        return;
      }
      this.onStatus("reconnecting");
      this.timer = setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, 8000);
    });
  }

  /** Send a frame now, or as soon as the socket is back. */
  send(frame) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
    else this.queue.push(frame);
  }

  /** Send a move with the next seq of this browser (kept across reloads). */
  move(text) {
    // another tab holding the same seat may have used numbers since this page loaded
    const stored = loadSeat(this.roomId).seq || 0;
    this.seat.seq = Math.max(this.seat.seq || 0, stored) + 1;
    saveSeat(this.roomId, this.seat);
    this.lastMove = { seq: this.seat.seq, text, retried: false };
    this.send({ type: "move", move: text, seq: this.seat.seq });
    return this.seat.seq;
  }

  /**
   * An ack marked duplicate for the move just sent means the server had seen that
   * number from an earlier page of this seat: send the move once more, numbered
   * past anything used before.
   */
  acked(frame) {
    const last = this.lastMove;
    if (!frame.duplicate || !last || frame.seq !== last.seq || last.retried) return;
    last.retried = true;
    this.seat.seq = last.seq + 1000;
    saveSeat(this.roomId, this.seat);
    last.seq = this.seat.seq;
    this.send({ type: "move", move: last.text, seq: last.seq });
  }

  /**
   * The server refused the move just sent as one frame too many this second
   * (rate_limited): send it again, same number, once the second has passed, so a
   * quick click is never lost.  Returns whether the move is being resent.
   */
  rateLimited(frame) {
    const last = this.lastMove;
    if (!last || frame.seq !== last.seq) return false;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (this.lastMove === last) this.send({ type: "move", move: last.text, seq: last.seq });
    }, 1100);
    return true;
  }

  /** Reconnect without "since", so the server sends a full state.  Between a drop and its
   * reconnect it opens the socket now, in place of the pending reconnect (not beside it). */
  restart() {
    this.opened = false;
    clearTimeout(this.timer);
    if (this.socket) this.socket.close();
    else this.open();
  }

  /** Drop the socket as a network failure would (used to test reconnection). */
  drop() {
    if (this.socket) this.socket.close();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    if (this.socket) this.socket.close();
  }
}

/** A read-only live socket on `path` (the lobby's, a tournament's) whose first frame is always a
 * full snapshot, so a drop needs no catch-up: it is reopened after 0.5 s, doubling to 8 s while it
 * keeps failing. `state` holds the open socket and the delay; nothing is reopened once
 * `state.leaving` is set or another socket has replaced this one. `onStatus` is told "connecting",
 * "connected" or "reconnecting"; `onFrame` gets each frame that parses. */
export function openFeed(path, state, onFrame, onStatus) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${path}`);
  state.socket = socket;
  onStatus("connecting");
  socket.addEventListener("open", () => {
    state.delay = 500;
    onStatus("connected");
  });
  socket.addEventListener("message", (msg) => {
    let frame;
    try {
      frame = JSON.parse(msg.data);
    } catch {
      return; // a frame this page cannot read changes nothing
    }
    onFrame(frame);
  });
  socket.addEventListener("close", () => {
    if (state.socket !== socket || state.leaving) return;
    onStatus("reconnecting");
    setTimeout(() => openFeed(path, state, onFrame, onStatus), state.delay);
    state.delay = Math.min(state.delay * 2, 8000);
  });
}

/** The badge (element `id`) that says whether a live socket is up. */
export function showLive(id, status) {
  const badge = document.getElementById(id);
  badge.dataset.status = status;
  badge.textContent = { connected: "Live", reconnecting: "Reconnecting…", connecting: "Connecting…" }[status];
}
