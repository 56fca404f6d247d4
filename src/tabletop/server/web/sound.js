// Sound: a short tone for a move, two falling tones for a pass and a rising
// chord for the end of a game, made with the Web Audio API (no sound files),
// and the mute toggle in the top bar, kept in localStorage between visits.
//
// Browsers start audio only after the page has been clicked or keyed; a tone
// asked for before that is silently dropped.

import { $ } from "/web/dom.js";

const KEY = "tabletop.muted";
// [frequency Hz, start s, length s] for each tone of a sound
const TONES = {
  move: [[620, 0, 0.08]],
  pass: [[440, 0, 0.12], [330, 0.15, 0.16]],
  end: [[523, 0, 0.14], [659, 0.14, 0.14], [784, 0.28, 0.32]],
};

let audio = null;
// a running audio context keeps the audio device and its rendering thread busy, sound or not
// (on a phone, its battery): it is suspended once a sound has ended and resumed for the next
let sleep = null;

export function isMuted() {
  try {
    return localStorage.getItem(KEY) === "1";
  } catch {
    return false;
  }
}

function setMuted(muted) {
  try {
    if (muted) localStorage.setItem(KEY, "1");
    else localStorage.removeItem(KEY);
  } catch {
    // private mode: the choice lasts as long as the page
  }
  showToggle(muted);
}

function showToggle(muted) {
  const button = $("sound-toggle");
  if (!button) return;
  button.setAttribute("aria-pressed", String(muted));
  button.setAttribute("aria-label", muted ? "Turn sound on" : "Mute sound");
  button.lastChild.textContent = muted ? "Sound off" : "Sound on"; // the words; phones show the note alone
}

export function initSound() {
  const button = $("sound-toggle");
  if (!button) return;
  const words = document.createElement("span");
  words.className = "sound-words";
  button.replaceChildren("♪", words);
  let muted = isMuted();
  showToggle(muted);
  button.addEventListener("click", () => {
    muted = !isMuted();
    setMuted(muted);
    if (!muted) playSound("move"); // a sample, so the player hears the level
  });
}

/** Play "move", "pass" or "end" unless muted. */
export function playSound(kind) {
  const tones = TONES[kind];
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!tones || !Context || isMuted()) return;
  try {
    audio = audio || new Context();
    if (audio.state === "suspended") audio.resume();
    const now = audio.currentTime;
    for (const [frequency, at, length] of tones) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.type = "sine";
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, now + at);
      gain.gain.exponentialRampToValueAtTime(0.18, now + at + 0.01); // a soft attack, no click
      gain.gain.exponentialRampToValueAtTime(0.0001, now + at + length);
      tone.connect(gain).connect(audio.destination);
      tone.start(now + at);
      tone.stop(now + at + length + 0.02);
    }
    const ends = Math.max(...tones.map(([, at, length]) => at + length));
    clearTimeout(sleep);
    sleep = setTimeout(() => audio.suspend(), (ends + 0.5) * 1000);
  } catch {
    // no audio device: the game goes on in silence
  }
}

/** The sound of a room event (a placed stone, a pass, the end), if it has one. */
export function eventSound(event) {
  if (event.kind === "move_played") playSound(event.move === "pass" ? "pass" : "move");
  else if (event.kind === "game_ended") playSound("end");
}
