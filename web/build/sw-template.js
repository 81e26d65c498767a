// resnorm's service worker (generated at build time from web/build/sw-template.js
// by web/build/site-plugin.js; do not edit dist/sw.js). It keeps the site
// working offline once loaded, from whatever folder it is served.
//   install:  caches every file of the build (FILES), in a cache named after
//             this folder and the build's hash (VERSION)
//   activate: deletes this folder's caches of other builds
//   fetch:    pages and unhashed files (HTML, sw.js, resnorm-embed.js, ...):
//             network first, the cached copy when offline; hashed files
//             (assets/): the cache first, they never change.
// A new build changes VERSION, so the browser installs the new worker, which
// takes over at once and drops the old cache.
const VERSION = '__VERSION__';
const FILES = __FILES__;

const SCOPE = new URL(self.registration.scope);
const PREFIX = `resnorm:${SCOPE.pathname}:`;
const CACHE = PREFIX + VERSION;
const inScope = (url) => url.origin === SCOPE.origin && url.pathname.startsWith(SCOPE.pathname);
const hashed = (url) => url.pathname.startsWith(`${SCOPE.pathname}assets/`);

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(FILES.map((f) => new Request(new URL(f, SCOPE), { cache: 'reload' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

async function fromCache(request) {
  const cache = await caches.open(CACHE);
  const url = new URL(request.url);
  url.hash = '';
  let hit = await cache.match(url.href, { ignoreSearch: true });
  if (!hit && url.pathname.endsWith('/')) hit = await cache.match(new URL('index.html', url).href);
  return hit;
}

async function networkFirst(request) {
  try {
    const response = await fetch(request);
    if (response.ok && response.type === 'basic') {
      const copy = response.clone();
      const key = new URL(request.url);
      key.hash = '';
      key.search = '';
      caches.open(CACHE).then((cache) => cache.put(key.href, copy)).catch(() => {});
    }
    return response;
  } catch (err) {
    const hit = await fromCache(request);
    if (hit) return hit;
    throw err;
  }
}

async function cacheFirst(request) {
  const hit = await fromCache(request);
  return hit ?? fetch(request);
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (!inScope(url)) return;
  event.respondWith(hashed(url) ? cacheFirst(request) : networkFirst(request));
});
