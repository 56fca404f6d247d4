// The account in the top bar: who is signed in (GET /api/session), the sign-in
// and sign-up dialog (POST /api/session, POST /api/accounts) and sign out
// (DELETE /api/session).  The session itself is an HttpOnly cookie that this
// script never sees; it only learns the name.  Playing without an account stays
// possible: every other screen works signed out.

import { $, link } from "/web/dom.js";
import { api, ApiError } from "/web/net.js";

/** The signed-in player as the page knows it; ``ready`` settles once the server answered. */
export const account = {
  name: null,
  available: true, // false on a server that keeps no accounts
  ready: null,
  listeners: [],
  /** Call ``fn(name)`` now and after every sign in or out. */
  watch(fn) {
    this.listeners.push(fn);
    fn(this.name);
  },
};

function button(text, onClick, id) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "ghost";
  b.textContent = text;
  if (id) b.id = id;
  b.addEventListener("click", onClick);
  return b;
}

function setName(name) {
  account.name = name;
  const nav = $("account");
  nav.textContent = "";
  if (!account.available) return;
  nav.append(link("Lobby", "/lobby"), link("Tournaments", "/tournaments"));
  if (name) {
    const me = link(name, `/@/${encodeURIComponent(name)}`);
    me.id = "account-name";
    nav.append(me, button("Sign out", signOut, "sign-out"));
  } else {
    nav.append(button("Sign in", () => openDialog(), "open-sign-in"));
  }
  for (const fn of account.listeners) fn(name);
}

/** Open the dialog that signs in, or up with a new name. */
export function openDialog() {
  const dialog = $("account-dialog");
  $("account-error").textContent = "";
  $("account-title").textContent = "Sign in, or sign up with a new name";
  dialog.showModal();
  dialog.querySelector("input[name=name]").focus();
}

async function signOut() {
  try {
    await api("DELETE", "/api/session");
  } catch {
    // the cookie is gone either way once the server saw the request; a failed one changes nothing here
    return;
  }
  setName(null);
}

async function submit(event) {
  event.preventDefault();
  const form = $("account-form");
  const up = event.submitter && event.submitter.value === "up";
  if (!form.reportValidity()) return;
  const body = { name: form.elements.name.value.trim(), password: form.elements.password.value };
  try {
    const me = await api("POST", up ? "/api/accounts" : "/api/session", body);
    form.elements.password.value = "";
    $("account-dialog").close();
    setName(me.name);
  } catch (error) {
    // the server's message as a sentence: "password: a password is…" reads "Password: a password is…."
    const text = String(error.message);
    $("account-error").textContent = text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? "" : ".");
  }
}

/** The browser's own refusal of a name states the rule (its words name none: "Please match
 * the requested format"); kept current as the name is typed. */
function stateNameRule() {
  const name = $("account-form").elements.name;
  name.setCustomValidity("");
  if (!name.validity.valid && !name.validity.valueMissing) name.setCustomValidity(`${name.title}.`);
}

export function initAccount() {
  $("account-form").addEventListener("submit", submit);
  $("account-form").elements.name.addEventListener("input", stateNameRule);
  $("account-close").addEventListener("click", () => $("account-dialog").close());
  account.ready = askSession(SESSION_TRIES);
  return account;
}

// A session check that gets no answer (a dropped connection, a server error) is asked again, after
// 0.25, 0.5, 1 and 2 s, before the page settles as signed out: one lost request must not hide the
// player's account, and what goes with it, until the page is loaded again.
const SESSION_TRIES = 5;

function askSession(tries) {
  return api("GET", "/api/session").then(
    (me) => setName(me.name || null), // a null name: signed out
    (error) => {
      if (error instanceof ApiError && error.status === 400) {
        // the server's refusal: it keeps no accounts
        account.available = false;
        setName(null);
        return undefined;
      }
      if (tries <= 1) return setName(null);
      const wait = 250 * 2 ** (SESSION_TRIES - tries);
      return new Promise((resolve) => setTimeout(resolve, wait)).then(() => askSession(tries - 1));
    },
  );
}
