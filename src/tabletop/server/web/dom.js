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
