// The dashboard's main path in headless Chromium at https://m44.test:PORT, served by nginx
// (deploy/nginx/m44d.conf) in front of m44d: tests/proxy/run.sh starts both and passes
//   M44_PROXY_BASE    https://m44.test:PORT (m44.test is mapped to 127.0.0.1 in Chromium)
//   M44_PROXY_PORT    PORT
//   M44_PROXY_SPKI    base64 SHA-256 of the server key's SPKI: Chromium takes the certificate
//                     as valid (--ignore-certificate-errors-spki-list), as it would a real one
//   M44_PROXY_DIRECT  http://m44.test:M44D_PORT, m44d itself over plain http (the control)
//   M44_PROXY_OUT     where screenshots go
// m44.test is not a loopback name, so only TLS can make the page a secure context: the checks
// below fail if the secure-context code paths (WebCrypto, the service worker) are not taken.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(new URL('../e2e/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const BASE = process.env.M44_PROXY_BASE;
const PORT = process.env.M44_PROXY_PORT;
const SPKI = process.env.M44_PROXY_SPKI;
const DIRECT = process.env.M44_PROXY_DIRECT;
const OUT = process.env.M44_PROXY_OUT;

let failures = 0;
let checks = 0;
function check(ok, what) {
  checks++;
  if (ok) console.log(`  ok ${checks} - ${what}`);
  else { failures++; console.log(`  not ok ${checks} - ${what}`); }
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    `--host-resolver-rules=MAP m44.test 127.0.0.1`,
    `--ignore-certificate-errors-spki-list=${SPKI}`],
});

const consoleErrors = [];
const foreign = [];
const pages = [];
async function newPage(options, name) {
  const ctx = await browser.newContext(options);
  const page = await ctx.newPage();
  pages.push([name, page]);
  page.on('request', (req) => {
    const u = req.url();
    if (!u.startsWith(BASE) && !u.startsWith(DIRECT) && !u.startsWith('data:')) foreign.push(u);
  });
  const expected = /^Failed to load resource: net::ERR_INTERNET_DISCONNECTED/;
  page.on('console', (msg) => { if (msg.type() === 'error' && !expected.test(msg.text())) consoleErrors.push(`${name}: ${msg.text()}`); });
  page.on('pageerror', (err) => consoleErrors.push(`${name}: ${err.message}`));
  return page;
}
const text = (page, sel) => page.locator(sel).first().innerText();
const openAll = async (page) => {
  await page.waitForSelector('#sec-now, #create-form');
  await page.evaluate(() => document.querySelectorAll('main details').forEach((d) => { d.open = true; }));
};
// What the page itself knows about its connection and its secure-context features.
const secure = (page) => page.evaluate(async () => {
  const nav = performance.getEntriesByType('navigation')[0];
  const v = await import('/assets/verify.js');
  let digest = null;
  if (window.isSecureContext && crypto.subtle) {
    const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode('abc'));
    digest = Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('');
  }
  return {
    protocol: location.protocol,
    h: nav ? nav.nextHopProtocol : '',
    isSecureContext: window.isSecureContext,
    subtle: typeof crypto !== 'undefined' && Boolean(crypto.subtle),
    webCrypto: Boolean(v.webCrypto),
    digest,
    sw: 'serviceWorker' in navigator,
  };
});

try {
  const desk = { viewport: { width: 1280, height: 900 } };
  const phone = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

  // ---- the home page over https: a secure context, WebCrypto, the service worker ----
  const home = await newPage(desk, 'home');
  const res = await home.goto(`${BASE}/`);
  check(res && res.ok(), `the home page loads from ${BASE}/ (${res && res.status()})`);
  const s = await secure(home);
  check(s.protocol === 'https:' && s.h === 'h2', `over https, HTTP/2 (${s.protocol} ${s.h})`);
  check(s.isSecureContext, 'the page is a secure context (the certificate is valid for Chromium)');
  check(s.subtle && s.webCrypto, 'WebCrypto is there, and verify.js uses it');
  check(s.digest === 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', `crypto.subtle computes SHA-256 ("abc": ${s.digest})`);
  const reg = await home.evaluate(async () => {
    const r = await Promise.race([navigator.serviceWorker.ready, new Promise((ok) => setTimeout(() => ok(null), 10000))]);
    return r ? { scope: r.scope, script: r.active && r.active.scriptURL } : null;
  });
  check(reg && reg.script === `${BASE}/sw.js`, `the service worker registers and activates (${JSON.stringify(reg)})`);
  await home.waitForFunction(() => Boolean(navigator.serviceWorker.controller), null, { timeout: 10000 })
    .catch(async () => { await home.reload(); });
  check(await home.evaluate(() => Boolean(navigator.serviceWorker.controller)), 'and controls the page');

  // ---- create a campaign from the form ----
  await home.fill('#name', 'Behind nginx');
  await home.selectOption('#ruleset', 'standard');
  await home.fill('#player-allies', 'Ann');
  await home.fill('#player-axis', 'Bob');
  await home.click('#create');
  await home.waitForSelector('#link-organizer');
  const links = {};
  for (const r of ['organizer', 'allies', 'axis']) links[r] = await home.inputValue(`#link-${r}`);
  check(Object.values(links).every((l) => l.startsWith(`${BASE}/c/`) && /#key=[A-Za-z0-9_-]{43}$/.test(l)),
    `three links at the https address (${links.organizer.replace(/#key=.*/, '#key=...')})`);

  // ---- the three roles; the other sides learn of each move without a reload (long polls) ----
  const org = await newPage(desk, 'organizer');
  const allies = await newPage(phone, 'allies');
  const axis = await newPage(desk, 'axis');
  for (const [p, r] of [[org, 'organizer'], [allies, 'allies'], [axis, 'axis']]) {
    await p.goto(links[r]);
    await openAll(p);
  }
  await org.fill('#battle-scenario', 'Pegasus Bridge');
  await org.selectOption('#battle-first', 'axis');
  await org.fill('#battle-medals', '4');
  await org.click('#create-battle');
  for (const p of [allies, axis]) {
    await p.waitForSelector('#roll-reserve-roll', { timeout: 10000 });
    await p.click('#roll-reserve-roll');
    await p.waitForSelector('#confirm-choice');
    await p.click('#confirm-choice');
    await p.waitForSelector('#act-reserve-choice', { state: 'detached' });
  }
  check(true, 'both sides see the new battle live and roll their reserves with server dice');
  await org.waitForSelector('#act-result', { timeout: 10000 });
  await org.selectOption('#result-winner', 'allies');
  await org.fill('#result-medals-allies', '4');
  await org.fill('#result-medals-axis', '2');
  await org.click('#record-result');
  await org.click('#confirm-result');
  await org.waitForSelector('#finish', { timeout: 10000 });
  await org.click('#finish');
  await org.click('#confirm-finish');
  await allies.waitForFunction(() => document.querySelector('#waiting').textContent.includes('over'), null, { timeout: 10000 });
  check(true, 'the Allies page sees the campaign finish live');

  // ---- verify every roll, with WebCrypto ----
  await openAll(allies);
  await allies.waitForSelector('#verify');
  const a = await secure(allies);
  check(a.isSecureContext && a.webCrypto, 'the Allies page (phone) verifies with WebCrypto');
  await allies.click('#verify');
  await allies.waitForSelector('#verify-summary', { timeout: 10000 });
  const summary = await text(allies, '#verify-summary');
  const id = links.organizer.match(/\/c\/([0-9a-f-]{36})/)[1];
  const rolls = await allies.evaluate(async (u) => (await fetch(u)).json(), `/api/v1/campaigns/${id}/rolls`);
  const server = rolls.filter((r) => r.source === 'server').length;
  check(server === 2 && summary.startsWith('Verified:') && summary.includes(`${server} server rolls verified, 0 mismatches`),
    `every roll verified in the browser (${summary})`);
  await allies.screenshot({ path: join(OUT, 'verified-phone.png'), fullPage: true });

  // ---- the service worker keeps the app shell: offline, the page still comes up ----
  await allies.waitForFunction(() => Boolean(navigator.serviceWorker.controller), null, { timeout: 10000 })
    .catch(async () => { await allies.reload(); await allies.waitForSelector('#sec-now'); });
  check(await allies.evaluate(() => Boolean(navigator.serviceWorker.controller)), 'the service worker controls the campaign page');
  await allies.context().setOffline(true);
  await allies.reload();
  await allies.waitForSelector('#no-connection', { timeout: 10000 });
  check(true, 'offline, the page comes from the service worker\'s copy and says so');
  await allies.screenshot({ path: join(OUT, 'offline-phone.png'), fullPage: true });
  await allies.context().setOffline(false);
  await allies.waitForSelector('#sec-now', { timeout: 15000 });
  check(true, 'back online, it shows the campaign again');

  // ---- the control: the same name over plain http (m44d itself) is not a secure context ----
  const plain = await newPage(desk, 'plain-http');
  await plain.goto(`${DIRECT}/`);
  await plain.waitForSelector('#create-form');
  const p = await secure(plain);
  check(p.protocol === 'http:' && !p.isSecureContext && !p.webCrypto && !p.sw,
    `control: http://m44.test is no secure context (no WebCrypto, no service worker): ${JSON.stringify(p)}`);

  check(foreign.length === 0, `no request went elsewhere (${foreign.slice(0, 3).join(', ')})`);
  check(consoleErrors.length === 0, `no script errors (${consoleErrors.slice(0, 3).join(' | ')})`);
} catch (e) {
  check(false, `the scenario ran to the end: ${e.stack || e}`);
  for (const [name, page] of pages) {
    try {
      await page.screenshot({ path: join(OUT, `failed-${name}.png`), fullPage: true });
    } catch { /* closed */ }
  }
} finally {
  await browser.close();
}

console.log(`  proxy.mjs: ${checks} checks, ${failures} failed (https port ${PORT})`);
process.exit(failures ? 1 : 0);
