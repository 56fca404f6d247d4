// The game screen's buttons and the board's mouse and keyboard handling.

import { $, say } from "/web/dom.js";
import { squareAt, squareName } from "/web/board.js";
import { game, COLORS, isLocal, mine } from "/web/state.js";
import { setTapTwice, tapMove, tryMove } from "/web/moves.js";
import { render, markFocus, focusSquare } from "/web/render.js";
import { answerRequest, closeRequest } from "/web/result.js";
import { updateExportLink, exportRecord } from "/web/record.js";
import { onReviewKey, showPly, step } from "/web/review.js";

export function bindControls() {
  const send = (frame) => () => game.conn && game.conn.send(frame);
  $("undo").addEventListener("click", () => {
    game.redoing = false;
    send({ type: "undo" })();
  });
  $("redo").addEventListener("click", () => {
    game.redoing = true;
    send({ type: "redo" })();
  });
  $("takeback").addEventListener("click", send({ type: "takeback" }));
  $("draw").addEventListener("click", send({ type: "draw" }));
  $("resign").addEventListener("click", () => {
    if (confirmResign()) game.conn.send({ type: "resign" });
  });
  $("hint").addEventListener("click", () => {
    $("hint").disabled = true;
    say("Thinking about a hint…", 0, "info", "position");
    game.conn.send({ type: "hint" });
    clearTimeout(game.hintTimer);
    // an engine that cannot analyse this variant never answers; give the button back
    game.hintTimer = setTimeout(() => {
      if (!$("hint").disabled) return;
      $("hint").disabled = false;
      say("No hint came back for this position.", 5000, "info", "position");
    }, 15000);
  });
  const rematch = () => {
    closeRequest();
    $("result-dialog").close();
    game.conn.send({ type: "rematch" });
  };
  $("rematch").addEventListener("click", rematch);
  $("result-rematch").addEventListener("click", rematch);
  $("result-decline").addEventListener("click", () => {
    closeRequest();
    $("result-dialog").close();
    say("Rematch declined.", 5000, "info");
  });
  const newGame = () => location.assign("/");
  $("new-game").addEventListener("click", newGame);
  $("result-new").addEventListener("click", newGame);
  $("result-close").addEventListener("click", () => $("result-dialog").close());
  $("request-accept").addEventListener("click", () => answerRequest(true));
  $("request-decline").addEventListener("click", () => answerRequest(false));
  $("show-legal").addEventListener("change", render);
  $("export-format").addEventListener("change", updateExportLink);
  $("export").addEventListener("click", exportRecord);
  $("copy-invite").addEventListener("click", copyInvite);
  $("tap-twice").addEventListener("change", () => {
    setTapTwice($("tap-twice").checked);
    render();
  });
  const board = $("board");
  let pointer = "mouse"; // the kind of pointer behind the next click: a finger's tap may ask for a second
  board.addEventListener("pointerdown", (event) => {
    pointer = event.pointerType;
  });
  board.addEventListener("click", (event) => {
    const square = event.target.closest("g.sq");
    if (!square) return;
    game.focus = square.dataset.move;
    if (pointer === "touch" || pointer === "pen") {
      tapMove(square.dataset.move);
      render(); // the stone shown, moved or gone
    } else {
      tryMove(square.dataset.move);
    }
    pointer = "mouse";
  });
  board.addEventListener("keydown", onBoardKey);
  // stepping through the game: keys, the move list and the buttons under it
  document.addEventListener("keydown", (event) => onReviewKey(event, render));
  $("move-list").addEventListener("click", (event) => {
    const item = event.target.closest("li[data-ply]");
    if (item) showPly(Number(item.dataset.ply), render);
  });
  $("first-move").addEventListener("click", () => showPly(0, render));
  $("prev-move").addEventListener("click", () => step(-1, render));
  $("next-move").addEventListener("click", () => step(1, render));
  $("last-move").addEventListener("click", () => showPly(Infinity, render));
  board.addEventListener("focusin", (event) => {
    const square = event.target.closest("g.sq");
    if (square && square.dataset.move !== game.focus) {
      game.focus = square.dataset.move;
      markFocus();
    }
  });
}

function confirmResign() {
  // a resignation cannot be undone against a person or the computer; a game between two
  // players at one screen ends at once
  return (isLocal() && COLORS.every(mine)) || window.confirm("Resign this game?");
}

async function copyInvite() {
  const url = $("invite-url").value;
  try {
    await navigator.clipboard.writeText(url);
    say("Invite link copied.", 5000, "info");
  } catch {
    $("invite-url").select();
    say("Select and copy the link above.", 5000, "info");
  }
}

function onBoardKey(event) {
  const room = game.room;
  if (!room || !game.focus) return;
  const at = squareAt(room.game, game.pos.height, game.focus);
  if (!at) return;
  const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  if (event.key in steps) {
    event.preventDefault();
    const [dc, dr] = steps[event.key];
    const col = Math.min(game.pos.width - 1, Math.max(0, at.col + dc));
    const row = Math.min(game.pos.height - 1, Math.max(0, at.row + dr));
    game.focus = squareName(room.game, game.pos.height, col, row);
    markFocus();
    focusSquare(game.focus);
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    tryMove(game.focus);
  }
}
