// The start screen: the new-game form (POST /api/rooms), the lobby of listed
// online games waiting for a player, and the games being played (live.js).

import { $ } from "/web/dom.js";
import { api, saveSeat } from "/web/net.js";
import { gameTitle } from "/web/state.js";
import { levelStrength, loadLevels, nameColours } from "/web/names.js";
import { initLive } from "/web/live.js";

export function initStart() {
  $("start-view").hidden = false;
  document.title = "tabletop — new game";
  const form = $("start-form");
  let levels = null;
  const sync = () => {
    const game = form.elements.game.value;
    const opponent = form.elements.opponent.value;
    $("reversi-options").hidden = game !== "reversi";
    $("gomoku-options").hidden = game !== "gomoku";
    $("computer-options").hidden = opponent !== "computer";
    $("online-options").hidden = opponent !== "online";
    $("level-value").textContent = form.elements.level.value;
    $("level-strength").textContent = levelStrength(levels, game, form.elements["gomoku-rule"].value, form.elements.level.value);
    nameColours(form.elements.as, game);
    nameColours(form.elements["online-as"], game);
  };
  form.addEventListener("input", sync);
  form.addEventListener("change", sync);
  restoreChoices(form);
  sync();
  loadLevels().then((data) => {
    levels = data;
    sync();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    $("start-error").textContent = "";
    $("start-button").disabled = true;
    try {
      const { body, mode } = startRequest(form);
      saveChoices(form);
      const created = await api("POST", "/api/rooms", body);
      saveSeat(created.room, { tokens: created.tokens || {}, invite: created.invite || null, seq: 0, mode });
      location.assign(`/play/${encodeURIComponent(created.room)}`);
    } catch (error) {
      $("start-error").textContent = `Could not start the game: ${error.message}`;
      $("start-button").disabled = false;
    }
  });
  loadLobby();
  initLive("live-list", { boxId: "live" });
}

const CHOICES_KEY = "tabletop.start";

/** Remember the form's choices, so that New game offers the last game's settings again. */
function saveChoices(form) {
  const choices = {};
  for (const field of form.elements) {
    if (!field.name) continue;
    if (field.type === "radio") {
      if (field.checked) choices[field.name] = field.value;
    } else if (field.type === "checkbox") {
      choices[field.name] = field.checked;
    } else {
      choices[field.name] = field.value;
    }
  }
  try {
    localStorage.setItem(CHOICES_KEY, JSON.stringify(choices));
  } catch {
    // private mode: the next game starts from the defaults
  }
}

function restoreChoices(form) {
  let choices;
  try {
    choices = JSON.parse(localStorage.getItem(CHOICES_KEY) || "null");
  } catch {
    choices = null;
  }
  if (!choices || typeof choices !== "object") return;
  for (const field of form.elements) {
    if (!field.name || !(field.name in choices)) continue;
    const value = choices[field.name];
    if (field.type === "radio") field.checked = field.value === value;
    else if (field.type === "checkbox") field.checked = Boolean(value);
    else if (field.tagName === "SELECT" ? [...field.options].some((o) => o.value === value) : true) {
      field.value = String(value);
    }
  }
}

/** The POST /api/rooms body for the form's choices. */
export function startRequest(form) {
  const f = form.elements;
  const game = f.game.value;
  const options = {};
  if (game === "reversi") options.size = Number(f["reversi-size"].value);
  if (game === "gomoku") {
    options.size = Number(f["gomoku-size"].value);
    options.rule = f["gomoku-rule"].value;
    if (f["gomoku-opening"].value) options.opening = f["gomoku-opening"].value;
  }
  const opponent = f.opponent.value;
  const body = { game, options, seats: { black: "human", white: "human" } };
  let mode = "local";
  if (opponent === "computer") {
    let as = f.as.value;
    // decide a random colour here so the page knows at once which seat is the computer
    if (as === "random") as = Math.random() < 0.5 ? "black" : "white";
    body.seats[as === "black" ? "white" : "black"] = `level:${f.level.value}`;
    body.as = as;
    body.mode = "local";
  } else if (opponent === "online") {
    mode = "online";
    body.mode = "online";
    body.as = f["online-as"].value;
    if (f.clock.value) {
      const [initial, increment] = f.clock.value.split("+").map(Number);
      body.clock = { initial, increment };
    }
    body.listed = f.listed.checked;
  } else {
    body.mode = "local";
  }
  return { body, mode };
}

async function loadLobby() {
  let data;
  try {
    data = await api("GET", "/api/rooms");
  } catch {
    return;
  }
  const rooms = (data && data.rooms) || [];
  if (!rooms.length) return;
  const list = $("lobby-list");
  list.textContent = "";
  for (const item of rooms) {
    const id = item.room || item.id;
    if (!id) continue;
    const li = document.createElement("li");
    const size = item.options && item.options.size ? ` ${item.options.size}×${item.options.size}` : "";
    const rule = item.options && item.options.rule ? ` ${item.options.rule}` : "";
    li.append(`${gameTitle(item.game)}${size}${rule} `);
    const join = document.createElement("button");
    join.type = "button";
    join.textContent = "Join";
    join.setAttribute("aria-label", `Join ${gameTitle(item.game)} game ${id}`);
    join.addEventListener("click", async () => {
      try {
        const seat = await api("POST", `/api/rooms/${encodeURIComponent(id)}/join`, {});
        saveSeat(id, { tokens: { [seat.seat]: seat.token }, invite: null, seq: 0, mode: "online" });
      } catch {
        // taken meanwhile: watch instead
      }
      location.assign(`/play/${encodeURIComponent(id)}`);
    });
    li.append(join);
    list.append(li);
  }
  $("lobby").hidden = false;
}
