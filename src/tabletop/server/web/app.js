// The browser app: the start screen and the game screen of one page.
//
// Every game, hot-seat and against the computer included, is a room on the
// server; the modules of this page only turn clicks into wire-contract frames
// and server frames into pictures.  They never decide a rule: legal moves,
// forbidden points, flips and outcomes all come from the server (so any other
// client could do the same), and a refused move is explained from those lists
// or from the server's error message.
//
//   state.js     the game screen's state, in one place, and questions about it
//   room.js      a full room state adopted; events.js: frames and events applied
//   render.js    the game screen drawn from the state
//   moves.js     a click sent as a move or refused with the reason
//   controls.js  buttons, board clicks and keys;  result.js: requests, result, hint
//   record.js    record export;  play.js: the game screen's start
//   start.js     the start screen;  theme.js: light and dark;  dom.js: helpers
//   board.js, graph.js, net.js: the board picture, the graph, the server calls
//   analysis.js  a whole game analysed (progress, graph, marks, best line) and /review/ID
//   import.js    open a record;  mygames.js: the games of this browser;  sound.js: tones, mute
//   account.js   sign up, in and out (the top bar);  lobby.js: seeks and Play now
//   player.js    a player's page and a pool's leaderboard
//   away.js      an opponent who left: the countdown, claiming the win, aborting
//   live.js      the games being played, to watch (start page and lobby)
//   incoming.js  challenges to the signed-in player, to accept or decline (every screen but a game's)
//   tournaments.js  the tournaments' list and form, a tournament's page
//   (these two are loaded only where they are needed: a signed-in player; the tournament pages)

import { initTheme } from "/web/theme.js";
import { initStart } from "/web/start.js";
import { initPlay } from "/web/play.js";
import { initReview } from "/web/analysis.js";
import { showMissing } from "/web/dom.js";
import { initSound } from "/web/sound.js";
import { initMyGames } from "/web/mygames.js";
import { initYourMove } from "/web/yourmove.js";
import { initImport } from "/web/import.js";
import { initAccount } from "/web/account.js";
import { initLobby } from "/web/lobby.js";
import { initPlayer, initLeaderboard } from "/web/player.js";

/** Call ``fn`` once, when a player is first signed in on this page. */
function whenSignedIn(account, fn) {
  let done = false;
  account.watch((name) => {
    if (name && !done) {
      done = true;
      fn();
    }
  });
}

function main() {
  initTheme();
  initSound();
  const account = initAccount();
  const match = /^\/play\/([^/]+)\/?$/.exec(location.pathname);
  const player = /^\/@\/([^/]+)\/?$/.exec(location.pathname);
  const pool = /^\/leaderboard\/([^/]+)\/?$/.exec(location.pathname);
  const review = /^\/review\/([^/]+)\/?$/.exec(location.pathname);
  const tournament = /^\/tournament\/([^/]+)\/?$/.exec(location.pathname);
  if (!match && !review) whenSignedIn(account, () => import("/web/incoming.js").then((m) => m.initIncoming(account)));
  if (match) initPlay(decodeURIComponent(match[1]));
  else if (review) initReview(decodeURIComponent(review[1]));
  else if (location.pathname === "/") {
    initStart();
    initMyGames();
    initYourMove();
    initImport();
  }
  else if (location.pathname === "/lobby") initLobby(account);
  else if (player) initPlayer(decodeURIComponent(player[1]));
  else if (pool) initLeaderboard(decodeURIComponent(pool[1]));
  else if (location.pathname === "/tournaments") import("/web/tournaments.js").then((m) => m.initTournaments(account));
  else if (tournament) import("/web/tournaments.js").then((m) => m.initTournament(decodeURIComponent(tournament[1]), account));
  else showMissing("Page not found", `There is no page at ${location.pathname} on this server.`);
}

main();
