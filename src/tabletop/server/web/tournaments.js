// Tournaments in the browser (docs/wire.md "Tournaments"): the list and the form that creates one
// (/tournaments), one tournament's page (/tournament/ID: join and leave, the standings and its
// games kept live over WS /api/tournaments/{id}/ws, the winner and podium at the end), and, on
// the game page of a tournament game, a link back and the move to the player's next game.
//
// Pairing, scoring and standings are the server's: this page only draws the snapshots the socket
// sends (the one of the highest version wins, as frames of two server processes may cross).  When
// the socket says a game of the signed-in player started, the page takes their seat (POST
// /api/rooms/{id}/seat) and opens the game, whose room state names the tournament
// (players.tournament), so the game page can lead back.  Loaded only on these pages (app.js, play.js).

import { $, element, link, showMissing } from "/web/dom.js";
import { api, ApiError, openFeed, saveSeat, showLive } from "/web/net.js";
import { account as signedIn, openDialog } from "/web/account.js";
import { clockText, variantText } from "/web/lobby.js";
import { withBotMark } from "/web/bots.js";

const page = {
  id: null,
  account: null,
  tournament: null,
  socket: null,
  delay: 500,
  leaving: false, // a game is being opened: the page is about to go
  room: null, // on a game page: the room shown, whose next game we follow
};

function playerLink(name, bot) {
  return withBotMark(link(name, `/@/${encodeURIComponent(name)}`), bot);
}

function loadStyle() {
  if (document.querySelector("link[href='/web/tournaments.css']")) return Promise.resolve();
  const sheet = document.createElement("link");
  sheet.rel = "stylesheet";
  sheet.href = "/web/tournaments.css";
  const loaded = new Promise((resolve) => {
    sheet.addEventListener("load", resolve);
    sheet.addEventListener("error", resolve); // unstyled rather than never shown
  });
  document.head.append(sheet);
  return loaded;
}

/** "Arena · Gomoku freestyle 15×15 · 3+2 · rated · 30 min" */
export function describe(t) {
  const parts = [t.kind === "swiss" ? "Swiss" : "Arena", variantText(t.game, t.options), clockText(t.clock),
    t.rated ? "rated" : "casual"];
  if (t.kind === "swiss") parts.push(`${t.rounds} ${t.rounds === 1 ? "round" : "rounds"}`);
  else parts.push(`${t.minutes < 1 ? `${t.minutes * 60} s` : `${t.minutes} min`}`);
  return parts.join(" · ");
}

/** Seconds as "1:05:09", "4:05" or "0:09". */
export function countdown(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

/** What the tournament is doing, in words, at ``now`` (Unix seconds). */
export function statusText(t, now) {
  if (t.status === "upcoming") return `Starts in ${countdown(t.starts - now)}`;
  if (t.status === "running" && t.kind === "arena") return `Running: ${countdown(t.ends - now)} left`;
  if (t.status === "running") return `Round ${t.round} of ${t.rounds}`;
  if (t.status === "finishing") return "No more pairings: the last games are being played";
  if (t.status === "finished") return t.winner ? `Finished: ${t.winner} wins` : "Finished";
  if (t.status === "cancelled") return "Cancelled: fewer than two players at the start";
  return t.status;
}

function whenText(t, now) {
  if (t.status === "upcoming") return `in ${countdown(t.starts - now)}`;
  if (t.status === "running" || t.status === "finishing") return t.status;
  return new Date(t.starts * 1000).toLocaleDateString();
}

// ------------------------------------------------------------------ the list and the form
function tournamentRow(t, now) {
  const row = document.createElement("tr");
  row.dataset.tournament = t.id;
  const name = element("td");
  name.append(link(t.name, `/tournament/${encodeURIComponent(t.id)}`), element("span", ` ${t.kind}`, "muted"));
  row.append(name, element("td", variantText(t.game, t.options)), element("td", clockText(t.clock)),
    element("td", whenText(t, now)), element("td", String(t.players)), element("td", t.winner || ""));
  return row;
}

async function refreshList() {
  let list;
  try {
    list = (await api("GET", "/api/tournaments")).tournaments || [];
  } catch {
    return; // the next round tries again
  }
  const now = Date.now() / 1000;
  $("tournament-rows").replaceChildren(...list.map((t) => tournamentRow(t, now)));
  $("no-tournaments").hidden = list.length > 0;
}

function syncForm() {
  const form = $("tournament-form");
  const f = form.elements;
  for (const label of form.querySelectorAll("[data-for]")) label.hidden = label.dataset.for !== f["t-game"].value;
  for (const label of form.querySelectorAll("[data-kind]")) {
    label.hidden = label.dataset.kind !== f["t-kind"].value;
    for (const input of label.querySelectorAll("input")) input.disabled = label.hidden;
  }
  $("tournament-rules").textContent = f["t-kind"].value === "arena"
    ? "Arena: whoever is free is paired at once, for the whole length. A win scores 2, a draw 1; "
      + "after two wins in a row a win scores 4 and a draw 2 until the streak ends."
    : "Swiss: every player meets one opponent a round (FIDE Dutch pairings); "
      + "a win scores 1, a draw ½, a bye 1. Players join until the first round.";
}

async function create(event) {
  event.preventDefault();
  const form = $("tournament-form");
  const f = form.elements;
  $("tournament-form-error").textContent = "";
  const options = {};
  if (f["t-game"].value === "reversi") options.size = Number(f["t-size-reversi"].value);
  if (f["t-game"].value === "gomoku") {
    options.rule = f["t-rule"].value;
    options.size = Number(f["t-size-gomoku"].value);
  }
  const [initial, increment] = f["t-clock"].value.split("+").map(Number);
  const body = { kind: f["t-kind"].value, game: f["t-game"].value, options, clock: { initial, increment },
    rated: f["t-rated"].checked, starts: Date.now() / 1000 + Number(f["t-starts"].value) };
  if (f["t-name"].value.trim()) body.name = f["t-name"].value.trim();
  if (body.kind === "arena") body.minutes = Number(f["t-minutes"].value);
  else body.rounds = Number(f["t-rounds"].value);
  f["create-tournament"].disabled = true;
  try {
    const made = await api("POST", "/api/tournaments", body);
    location.assign(`/tournament/${encodeURIComponent(made.id)}`);
  } catch (error) {
    $("tournament-form-error").textContent = error.message;
    f["create-tournament"].disabled = false;
  }
}

/** The list of tournaments and the form that creates one (/tournaments). */
export async function initTournaments(account) {
  await loadStyle();
  $("tournaments-view").hidden = false;
  document.title = "tabletop — tournaments";
  const form = $("tournament-form");
  form.addEventListener("change", syncForm);
  form.addEventListener("submit", create);
  syncForm();
  account.watch((name) => {
    form.hidden = !name;
    $("tournament-signed-out").hidden = Boolean(name);
  });
  refreshList();
  setInterval(refreshList, 10000);
}

// ------------------------------------------------------------------ one tournament
function me() {
  const name = page.account && page.account.name;
  return name ? name.toLowerCase() : null;
}

function myStanding(t) {
  return t.standings.find((s) => s.name.toLowerCase() === me()) || null;
}

function standingRow(t, s) {
  const row = document.createElement("tr");
  row.dataset.player = s.name;
  if (s.name.toLowerCase() === me()) row.className = "me";
  const who = element("td");
  who.append(playerLink(s.name, s.bot));
  if (s.fire) {
    const fire = element("span", "streak", "fire");
    fire.title = "On a streak: the next win or draw counts double";
    who.append(" ", fire);
  }
  if (!s.active) who.append(element("span", " (left)", "muted"));
  if (s.playing) who.append(element("span", " playing", "playing"));
  const score = element("td", scoreText(s.score), "score");
  row.append(element("td", String(s.rank)), who, element("td", s.rating == null ? "" : String(s.rating)),
    element("td", s.sheet.join(" "), "sheet"), element("td", `${s.games} (${s.wins}/${s.draws}/${s.losses})`), score);
  return row;
}

/** A score as it reads: 3, ½, 2½. */
export function scoreText(score) {
  if (typeof score !== "number" || Number.isInteger(score)) return String(score);
  return `${Math.floor(score) || ""}½`;
}

function resultText(g) {
  if (g.result == null) return "playing";
  if (g.result === "bye") return "bye";
  if (g.result === "aborted") return "aborted";
  return g.result.replace("1/2", "½");
}

function gameRow(t, g, bots) {
  const row = document.createElement("tr");
  if (g.room) row.dataset.room = g.room;
  const black = element("td");
  black.append(playerLink(g.black, bots.has(g.black)));
  const white = element("td");
  if (g.white) white.append(playerLink(g.white, bots.has(g.white)));
  else white.textContent = "—";
  const action = element("td");
  if (g.room) {
    const watch = link(g.result == null ? "Watch" : "Review", g.result == null
      ? `/play/${encodeURIComponent(g.room)}` : `/review/${encodeURIComponent(g.room)}`);
    watch.className = "button";
    action.append(watch);
  }
  row.append(element("td", String(g.round)), black, white, element("td", resultText(g), "result"), action);
  if (g.result == null) row.classList.add("live");
  return row;
}

function podiumItem(s, place) {
  const li = element("li", null, `place-${place}`);
  li.append(element("span", ["", "1st", "2nd", "3rd"][place], "place"), playerLink(s.name, s.bot),
    element("span", `${scoreText(s.score)} points`, "points"));
  return li;
}

function renderPodium(t) {
  const box = $("tournament-podium");
  box.hidden = t.status !== "finished" || !t.winner;
  if (box.hidden) return;
  $("tournament-winner").textContent = `${t.winner} wins ${t.name}`;
  const byName = new Map(t.standings.map((s) => [s.name, s]));
  $("podium").replaceChildren(...t.podium.map((name, i) => podiumItem(byName.get(name) || { name, score: "", bot: false }, i + 1)));
}

function renderControls(t) {
  const mine = myStanding(t);
  const open = t.status === "upcoming" || (t.status === "running" && (t.kind === "arena" || t.round === 0));
  const signedIn = Boolean(me());
  $("tournament-join").hidden = !signedIn || !open || Boolean(mine && mine.active);
  $("tournament-join").textContent = mine ? "Join again" : "Join";
  $("tournament-leave").hidden = !signedIn || !mine || !mine.active || t.status === "finished" || t.status === "cancelled";
  $("tournament-leave").textContent = t.kind === "arena" && t.status !== "upcoming" ? "Pause" : "Leave";
  $("tournament-sign-in").hidden = signedIn || !open || !(page.account && page.account.available);
  // its creator may end it early: no new pairing, the games under way are played out
  $("tournament-finish").hidden = !signedIn || t.creator.toLowerCase() !== me()
    || !["upcoming", "running"].includes(t.status);
  const playing = mine && mine.playing;
  const myGame = $("tournament-my-game");
  myGame.hidden = !playing;
  if (playing) myGame.dataset.room = playing;
}

function renderStatus() {
  const t = page.tournament;
  if (t) $("tournament-status").textContent = statusText(t, Date.now() / 1000);
}

function render() {
  const t = page.tournament;
  $("tournament-title").textContent = t.name;
  document.title = `tabletop — ${t.name}`;
  $("tournament-meta").textContent = `${describe(t)} · created by ${t.creator}`;
  renderStatus();
  renderControls(t);
  renderPodium(t);
  $("standings-rows").replaceChildren(...t.standings.map((s) => standingRow(t, s)));
  $("no-standings").hidden = t.standings.length > 0;
  const bots = new Set(t.standings.filter((s) => s.bot).map((s) => s.name)); // marked in the games too
  $("tournament-games").replaceChildren(...t.games.map((g) => gameRow(t, g, bots)));
  $("no-tournament-games").hidden = t.games.length > 0;
  $("tournament-scoring").textContent = t.kind === "arena"
    ? "A win scores 2, a draw 1, a loss 0; after two wins in a row (streak) a win scores 4 and a draw 2 until a game that is not a win."
    : "A win scores 1, a draw ½, a loss 0, a bye 1 (+). Ties: the sum of the opponents' scores (Buchholz).";
}

/** Take the player's seat in ``room`` (a game of this tournament) and open it; once only, as a
 * second seat taken would make the first one's token stale. */
async function openGame(room) {
  if (page.leaving) return;
  page.leaving = true;
  try {
    const seat = await api("POST", `/api/rooms/${encodeURIComponent(room)}/seat`);
    saveSeat(room, { tokens: { [seat.seat]: seat.token }, invite: null, seq: 0, mode: "online" });
  } catch (error) {
    page.leaving = false;
    throw error;
  }
  location.assign(`/play/${encodeURIComponent(room)}`);
}

function adopt(t) {
  if (page.tournament && t.version < page.tournament.version) return false; // an older snapshot crossed a newer one
  page.tournament = t;
  return true;
}

function isMine(g) {
  const name = me();
  return Boolean(name && g && g.room && g.result == null
    && [g.black, g.white].some((n) => n && n.toLowerCase() === name));
}

function onFrame(frame, onSnapshot, onEvent) {
  if (frame.type === "tournament" && frame.tournament && adopt(frame.tournament)) onSnapshot(frame.tournament);
  else if (frame.type === "tournament_event") onEvent(frame);
}

/** The tournament's socket, reopened after a drop (the first frame is always a full snapshot). */
function connect(id, onSnapshot, onEvent, onStatus) {
  openFeed(`/api/tournaments/${encodeURIComponent(id)}/ws`, page, (frame) => onFrame(frame, onSnapshot, onEvent), onStatus);
}

async function act(path) {
  $("tournament-error").textContent = "";
  try {
    const t = await api("POST", `/api/tournaments/${encodeURIComponent(page.id)}/${path}`);
    if (adopt(t)) render();
  } catch (error) {
    $("tournament-error").textContent = error.message;
  }
}

/** One tournament's page (/tournament/ID). */
export async function initTournament(id, account) {
  page.id = id;
  page.account = account;
  let first;
  try {
    [first] = await Promise.all([api("GET", `/api/tournaments/${encodeURIComponent(id)}`), loadStyle()]);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) showMissing("No such tournament", error.message);
    else showMissing("Could not load the tournament", error.message);
    return;
  }
  $("tournament-view").hidden = false;
  adopt(first);
  $("tournament-join").addEventListener("click", () => act("join"));
  $("tournament-leave").addEventListener("click", () => act("leave"));
  $("tournament-finish").addEventListener("click", () => act("finish"));
  $("tournament-sign-in").addEventListener("click", () => openDialog());
  $("tournament-my-game").addEventListener("click", (event) => {
    event.preventDefault();
    openGame(event.currentTarget.dataset.room).catch((error) => {
      $("tournament-error").textContent = error.message;
    });
  });
  account.watch(() => render());
  render();
  setInterval(renderStatus, 1000);
  connect(id, () => render(), (frame) => {
    // a game of ours just started: go and play it
    if (frame.event === "game_started" && isMine(frame.game)) {
      openGame(frame.game.room).catch((error) => {
        $("tournament-error").textContent = `Your game started, but the seat could not be taken: ${error.message}`;
      });
    }
  }, (status) => showLive("tournament-live", status));
  window.tabletopTournament = page; // lets tests look inside
}

// ------------------------------------------------------------------ the game page of a tournament game
function renderLink(t) {
  const box = $("tournament-link");
  box.hidden = false;
  box.replaceChildren(link(`← ${t.name}`, `/tournament/${encodeURIComponent(t.id)}`),
    element("span", ` · ${statusText(t, Date.now() / 1000)}`, "muted"));
}

/** On the game page of ``roomId``, a game of the tournament ``tournamentId``: a link back to it, and
 * the signed-in player's next game of the tournament opened as soon as it starts (a player is paired
 * only when free, so this game is over by then). */
export function followTournament(roomId, tournamentId) {
  page.id = tournamentId;
  page.room = roomId;
  page.account = signedIn;
  const next = (g) => {
    if (!isMine(g) || g.room === roomId) return;
    openGame(g.room).catch(() => {}); // the tournament page offers it again
  };
  setInterval(() => page.tournament && renderLink(page.tournament), 1000);
  connect(tournamentId, (t) => {
    renderLink(t);
    const mine = myStanding(t);
    if (mine && mine.playing) next({ room: mine.playing, black: mine.name, white: null, result: null });
  }, (frame) => {
    if (frame.event === "game_started") next(frame.game);
  }, () => {});
}
