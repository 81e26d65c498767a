// Registers the site's service worker (dist/sw.js, written by
// web/build/site-plugin.js with the build's file list), which keeps the site
// working offline once loaded. Relative URL: the scope is the site's folder,
// whatever sub-path it is served from. Only in a build made with the plugin
// (it defines __RESNORM_SW__); never in the dev server.
export function registerServiceWorker() {
  // eslint-disable-next-line no-undef
  const enabled = typeof __RESNORM_SW__ !== 'undefined' && __RESNORM_SW__;
  if (!enabled || !('serviceWorker' in navigator) || !window.isSecureContext) return Promise.resolve(null);
  return navigator.serviceWorker.register('./sw.js', { updateViaCache: 'none' }).catch(() => null);
}
