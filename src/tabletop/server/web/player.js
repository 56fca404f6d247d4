// A player's page (/@/<name>, from GET /api/players/{name}): each rating with its
// history as a small SVG line, wins/draws/losses, and the recent games linking
// to their review; and a pool's leaderboard (/leaderboard/<pool>, from
// GET /api/leaderboard/{pool}).  Both only draw what the server sent.

import { $, element, link, showMissing } from "/web/dom.js";
import { api, ApiError } from "/web/net.js";
import { poolLabel, poolName } from "/web/names.js";
import { botMark, withBotMark } from "/web/bots.js";
import { initChallenge } from "/web/challenge.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 110;
const PAD = { left: 40, right: 8, top: 8, bottom: 8 };

function svg(tag, attrs, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.append(node);
  return node;
}

/** The rating after every game, from the rating before the first: [{rating, label}]. */
export function historyPoints(history) {
  if (!history.length) return [];
  const points = [{ rating: history[0].rating - history[0].change, label: "start" }];
  for (const h of history) {
    const sign = h.change >= 0 ? "+" : "";
    points.push({ rating: h.rating, label: `${Math.round(h.rating)} (${sign}${h.change})` });
  }
  return points;
}

/** The rating history as an SVG line chart, with its lowest and highest rating on the left. */
export function historyGraph(pool, history) {
  const points = historyPoints(history);
  const box = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "history", role: "img",
    "aria-label": `${poolLabel(pool)} rating history over ${history.length} games` });
  if (points.length < 2) return box;
  const ratings = points.map((p) => p.rating);
  let low = Math.min(...ratings);
  let high = Math.max(...ratings);
  if (high - low < 20) {
    low -= 10;
    high += 10;
  }
  const x = (i) => PAD.left + ((WIDTH - PAD.left - PAD.right) * i) / (points.length - 1);
  const y = (r) => PAD.top + ((HEIGHT - PAD.top - PAD.bottom) * (high - r)) / (high - low);
  svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(1500), y2: y(1500), class: "base" }, box)
    .style.display = low <= 1500 && high >= 1500 ? "" : "none";
  for (const [value, anchor] of [[high, "hanging"], [low, "auto"]]) {
    const label = svg("text", { x: PAD.left - 4, y: y(value), "text-anchor": "end", "dominant-baseline": anchor }, box);
    label.textContent = String(Math.round(value));
  }
  svg("polyline", { points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ") }, box);
  points.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: 3 }, box);
    svg("title", {}, dot).textContent = p.label;
  });
  return box;
}

function ratingCard(pool, r) {
  const card = element("section", null, "rating-card");
  card.dataset.pool = pool;
  const head = element("h2");
  head.append(link(poolLabel(pool), `/leaderboard/${encodeURIComponent(pool)}`), " ");
  const value = element("span", r.display, "rating-value");
  value.title = `rating ${r.rating}, deviation ${r.deviation}${r.provisional ? " (provisional)" : ""}`;
  head.append(value);
  card.append(head);
  card.append(element("p", `${r.games} ${r.games === 1 ? "game" : "games"} · ${r.wins} W / ${r.draws} D / ${r.losses} L · RD ${Math.round(r.deviation)}`,
    "record"));
  card.append(historyGraph(pool, r.history));
  return card;
}

function gameRow(g) {
  const row = document.createElement("tr");
  const when = new Date(g.created * 1000);
  for (const text of [when.toLocaleDateString(), g.rated ? poolLabel(g.pool) : `${poolLabel(g.pool)} (casual)`]) {
    row.append(element("td", text));
  }
  for (const [name, bot] of [[g.black, g.black_bot], [g.white, g.white_bot]]) {
    const td = element("td");
    td.append(withBotMark(link(name, `/@/${encodeURIComponent(name)}`), bot));
    row.append(td);
  }
  row.append(element("td", g.result));
  const review = element("td");
  review.append(link(g.result === "playing" ? "Watch" : "Review", g.review));
  row.append(review);
  return row;
}

function missing(error, what) {
  if (error instanceof ApiError && error.status === 404) showMissing("Not found", error.message);
  else showMissing(`Could not load ${what}`, error.message);
}

export async function initPlayer(name) {
  $("player-view").hidden = false;
  document.title = `tabletop — ${name}`;
  let page;
  try {
    page = await api("GET", `/api/players/${encodeURIComponent(name)}`);
  } catch (error) {
    missing(error, "the player");
    return;
  }
  $("player-title").textContent = page.name;
  const mark = botMark(page.bot);
  if (mark) $("player-title").prepend(mark, " ");
  initChallenge(page);
  document.title = `tabletop — ${page.name}`;
  $("player-meta").textContent = `Playing since ${new Date(page.created * 1000).toLocaleDateString()}`;
  const ratings = $("player-ratings");
  ratings.textContent = "";
  const pools = Object.entries(page.ratings);
  if (!pools.length) ratings.append(element("p", "No rated games yet."));
  for (const [pool, r] of pools) ratings.append(ratingCard(pool, r));
  const games = $("player-games");
  games.textContent = "";
  for (const g of page.games) games.append(gameRow(g));
  if (!page.games.length) $("player-games-box").append(element("p", "No games yet."));
}

export async function initLeaderboard(pool) {
  $("player-view").hidden = false;
  $("player-games-box").hidden = true;
  const name = poolName(pool);
  if (!name) {
    // answered before asking: the server's refusal of a key it cannot read quotes its pattern
    showMissing("No such leaderboard", `There is no rating pool "${pool}". A pool is one game, board or rule, and speed, such as Reversi 8×8 · Blitz: the lobby lists them.`);
    return;
  }
  document.title = `tabletop — ${name} leaderboard`;
  let board;
  try {
    board = await api("GET", `/api/leaderboard/${encodeURIComponent(pool)}`);
  } catch (error) {
    missing(error, "the leaderboard");
    return;
  }
  $("player-title").textContent = `Leaderboard: ${poolLabel(board.pool)}`;
  $("player-meta").textContent = "Players with at least 10 rated games in this pool.";
  const table = $("leaderboard");
  const body = table.tBodies[0];
  for (const p of board.players) {
    const row = document.createElement("tr");
    row.append(element("td", String(p.rank)));
    const who = element("td");
    who.append(withBotMark(link(p.name, `/@/${encodeURIComponent(p.name)}`), p.bot));
    row.append(who, element("td", p.display), element("td", String(p.games)));
    body.append(row);
  }
  table.hidden = false;
  if (!board.players.length) $("player-meta").textContent += " Nobody has played 10 yet.";
}
