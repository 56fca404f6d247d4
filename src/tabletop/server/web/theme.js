// The light and dark themes: follows the system until the player picks one,
// then remembers the choice in local storage.

import { $ } from "/web/dom.js";

const THEME_KEY = "tabletop.theme";

function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  const other = theme === "dark" ? "light" : "dark";
  const button = $("theme-toggle");
  button.textContent = other === "dark" ? "Dark" : "Light";
  button.setAttribute("aria-label", `Switch to ${other} theme`);
}

export function initTheme() {
  let theme = null;
  try {
    theme = localStorage.getItem(THEME_KEY);
  } catch {
    theme = null;
  }
  if (theme !== "light" && theme !== "dark") {
    theme = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  applyTheme(theme);
  $("theme-toggle").addEventListener("click", () => {
    const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
    applyTheme(next);
    try {
      localStorage.setItem(THEME_KEY, next);
    } catch {
      // the choice lasts for this page only
    }
  });
}
