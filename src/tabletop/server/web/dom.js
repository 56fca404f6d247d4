// Small page helpers shared by both screens: look up an element, and the one
// message line under the board.

export const $ = (id) => document.getElementById(id);

let messageTimer = null;

/** Show a line under the board; tone "error" for a refusal, "info" for news. */
export function say(text, ms = 5000, tone = "error") {
  const box = $("message");
  box.textContent = text;
  box.dataset.tone = tone;
  clearTimeout(messageTimer);
  if (ms) messageTimer = setTimeout(() => { box.textContent = ""; }, ms);
}

/** Take a refusal off the line once the position it was about has changed. */
export function clearError() {
  const box = $("message");
  if (box.dataset.tone !== "error") return;
  clearTimeout(messageTimer);
  box.textContent = "";
}

/** Show one of the page's whole-screen notices (a room or a page that does not exist). */
export function showMissing(title, text) {
  for (const view of document.querySelectorAll("main")) view.hidden = view.id !== "missing-view";
  $("missing-title").textContent = title;
  $("missing-text").textContent = text;
  document.title = `tabletop — ${title.toLowerCase()}`;
}
