// The record export under the move list: the formats that fit the game, fetched
// first so that a format the server cannot write is explained, not saved.

import { $, say } from "/web/dom.js";
import { game } from "/web/state.js";

const FORMATS = {
  reversi: [["ggf", "GGF"], ["sgf", "SGF"], ["transcript", "Transcript"]],
  gomoku: [["psq", "PSQ"], ["sgf", "SGF"], ["transcript", "Transcript"]],
  tictactoe: [["transcript", "Transcript"], ["sgf", "SGF"]],
};
const EXTENSIONS = { ggf: "ggf", sgf: "sgf", psq: "psq", transcript: "txt" };

export function setupExport() {
  const select = $("export-format");
  const formats = FORMATS[game.room.game] || FORMATS.tictactoe;
  if (select.dataset.game !== game.room.game) {
    select.dataset.game = game.room.game;
    select.replaceChildren(...formats.map(([value, label]) => new Option(label, value)));
  }
  updateExportLink();
}

export function updateExportLink() {
  const format = $("export-format").value;
  const link = $("export");
  link.href = `/api/rooms/${encodeURIComponent(game.id)}/record?format=${format}`;
  link.download = `tabletop-${game.id}.${EXTENSIONS[format] || "txt"}`;
}

/** Fetch the record first, so a format the server cannot write is explained, not saved. */
export async function exportRecord(event) {
  event.preventDefault();
  const link = $("export");
  let response;
  try {
    response = await fetch(link.href);
  } catch (error) {
    say(`Could not fetch the record: ${error.message}`);
    return;
  }
  if (!response.ok) {
    let why = `${response.status} ${response.statusText}`;
    try {
      const data = await response.json();
      why = data.message || data.detail || why;
    } catch {
      // not JSON: keep the status line
    }
    say(`No ${$("export-format").selectedOptions[0].text} record: ${why}.`);
    return;
  }
  const url = URL.createObjectURL(await response.blob());
  const save = document.createElement("a");
  save.href = url;
  save.download = link.download;
  document.body.append(save);
  save.click();
  save.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
