// The live status line: "computing…", "ready · 16 ms", or what went wrong.
export function createStatus(el) {
  let state = '';
  const set = (name, text) => {
    el.dataset.state = name;
    if (state === `${name}:${text}`) return;
    state = `${name}:${text}`;
    el.textContent = text;
  };
  return {
    computing: () => set('computing', 'computing\u2026'),
    ready: (ms) => set('ready', `ready \u00b7 computed in ${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`),
    error: (text) => set('error', text),
  };
}
