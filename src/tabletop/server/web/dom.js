// Small page helpers shared by both screens: look up an element, and the one
// message line under the board.

export const $ = (id) => document.getElementById(id);

/** A new ``tag`` element with ``text`` (unless null) and ``className`` (when given). */
export function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text != null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** A link reading ``text`` to ``href``. */
export function link(text, href) {
  const a = element("a", text);
  a.href = href;
  return a;
}

let messageTimer = null;

/** Show a line under the board; tone "error" for a refusal, "info" for news.
 * ``about`` says what the line describes, so that it goes when that changes:
 * "position" (a refusal or a pass: gone with the next move or undo), "presence"
 * (who is in the room: replaced when someone comes or goes) or "event" (news
 * that stays true, such as an accepted takeback: it only times out). */
export function say(text, ms = 5000, tone = "error", about = tone === "error" ? "position" : "event") {
  const box = $("message");
  box.textContent = text;
  box.dataset.tone = tone;
  box.dataset.about = about;
  clearTimeout(messageTimer);
  if (ms) messageTimer = setTimeout(() => { box.textContent = ""; }, ms);
}

/** Take the line off once what it describes (``about``, as given to say) has changed. */
export function clearNote(about) {
  const box = $("message");
  if (box.dataset.about !== about) return;
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
