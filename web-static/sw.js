// The app shell, kept for offline use: pages and assets come from the network when it answers,
// from this cache when it does not. The API is never cached (a page must never show a stale
// campaign as current: campaign.js says when it is offline).
const CACHE = 'm44d-shell';
const SHELL = ['/', '/assets/style.css', '/assets/app.js', '/assets/campaign.js', '/assets/actions.js',
  '/assets/battle.js', '/assets/words.js', '/assets/api.js', '/assets/dom.js', '/assets/dice.js',
  '/assets/charts.js', '/assets/verify.js', '/assets/grand.js', '/assets/chat.js', '/assets/share.js', '/assets/store.js', '/assets/qrcode.js',
  '/assets/favicon.svg', '/assets/manifest.webmanifest'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || url.pathname.startsWith('/api/')) return;
  const page = event.request.mode === 'navigate';
  event.respondWith((async () => {
    try {
      const res = await fetch(event.request);
      if (res.ok) {
        const c = await caches.open(CACHE);
        c.put(page ? '/' : event.request, res.clone());
      }
      return res;
    } catch (e) {
      const hit = await caches.match(page ? '/' : event.request);
      if (hit) return hit;
      throw e;
    }
  })());
});
