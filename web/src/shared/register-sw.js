// Registers the site's service worker (dist/sw.js, written by
// web/build/site-plugin.js with the build's file list), which keeps the site
// working offline once loaded. Relative URL: the scope is the site's folder,
// whatever sub-path it is served from. Only in a build made with the plugin
// (it defines __RESNORM_SW__); never in the dev server.
//
// Its install fetches and caches every file of the build: about half a second
// of the browser's own threads. On a two-core machine, with a worker training
// on the other core, that stretched the lab's first frames past 50 ms (none
// over 50 ms in 20 runs without it, 9 in 20 with it). So the registration
// waits for the page's load event, `settle` ms more (a reader who presses
// Start at once is then training already), an idle moment and, where the page
// says so (`quiet`, a function returning a promise), for the page's heavy work
// to stop: the lab registers once no run is training.
export function registerServiceWorker({ quiet = () => Promise.resolve(), settle = 2000 } = {}) {
  // eslint-disable-next-line no-undef
  const enabled = typeof __RESNORM_SW__ !== 'undefined' && __RESNORM_SW__;
  if (!enabled || !('serviceWorker' in navigator) || !window.isSecureContext) return Promise.resolve(null);
  return loaded()
    .then(() => new Promise((resolve) => setTimeout(resolve, settle)))
    .then(idle)
    .then(quiet)
    .then(() => navigator.serviceWorker.register('./sw.js', { updateViaCache: 'none' }))
    .catch(() => null);
}

const loaded = () =>
  document.readyState === 'complete'
    ? Promise.resolve()
    : new Promise((resolve) => window.addEventListener('load', resolve, { once: true }));

const idle = () =>
  new Promise((resolve) =>
    typeof requestIdleCallback === 'function' ? requestIdleCallback(resolve, { timeout: 2000 }) : setTimeout(resolve),
  );

/**
 * The `quiet` of registerServiceWorker for a page whose work comes and goes:
 * set(busy) whenever it may have changed; quiet() resolves at once while not
 * busy, else when set(false) comes.
 */
export function quietGate() {
  let busy = false;
  const waiting = [];
  return {
    set(next) {
      busy = Boolean(next);
      if (!busy) for (const resolve of waiting.splice(0)) resolve();
    },
    quiet: () => (busy ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve()),
  };
}
