// The live status line: "computing…", "ready · 16 ms", what was cancelled, or what went wrong.
import { fmtMs } from './format.js';

export function createStatus(el) {
  let state = '';
  const set = (name, text) => {
    if (el.dataset.state !== name) el.dataset.state = name;
    if (state === `${name}:${text}`) return;
    state = `${name}:${text}`;
    el.textContent = text;
  };
  return {
    computing: () => set('computing', 'computing\u2026'),
    ready: (ms) => set('ready', `ready \u00b7 computed in ${fmtMs(ms)} ms`),
    error: (text) => set('error', text),
    cancelled: (text) => set('cancelled', text),
  };
}
