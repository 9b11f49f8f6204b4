// End-to-end: the dashboard in headless Chromium against the real m44d and PostgreSQL.
// A group creates a campaign, opens the organizer, Allies (on a phone) and Axis links in
// separate browser contexts, plays two battles, finishes and verifies every roll.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import jsQR from 'jsqr';

const BIN = process.env.M44_TEST_BIN;
const DB = process.env.M44_E2E_DATABASE;
const OUT = process.env.M44_E2E_OUT;
mkdirSync(OUT, { recursive: true });

let failures = 0;
let checks = 0;
function check(ok, what) {
  checks++;
  if (ok) console.log(`ok ${checks} - ${what}`);
  else { failures++; console.log(`not ok ${checks} - ${what}`); }
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

const port = await freePort();
const BASE = `http://127.0.0.1:${port}`;
const log = createWriteStream(join(OUT, 'm44d.log'));
// Four players on one address, clicking far faster than people: the per-address rate limits
// are off, as for the C suites' daemons (tests/common/daemon.c). With them on, a slow run
// (a bare root) hit the read limit: "Too many reads from your address".
const daemon = spawn(`${BIN}/m44d`, ['--database', DB, '--listen', `127.0.0.1:${port}`,
  '--rate-read=0', '--rate-write=0', '--rate-create=0'], { stdio: ['ignore', 'pipe', 'pipe'] });
daemon.stdout.pipe(log);
daemon.stderr.pipe(log);
for (let i = 0; i < 100; i++) {
  try { if ((await fetch(`${BASE}/healthz`)).ok) break; } catch { /* not yet */ }
  await new Promise((r) => setTimeout(r, 100));
}

async function apiGet(path) {
  const r = await fetch(`${BASE}/api/v1${path}`);
  return r.json();
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

const foreign = [];
const consoleErrors = [];
const pages = [];
async function closePages(names) {
  for (const [name, page] of pages.filter(([n]) => names.includes(n))) {
    await page.context().close();
    pages.splice(pages.findIndex(([n]) => n === name), 1);
  }
}
// `device`: a page of which to open another tab (the same browser, so the same storage).
async function newPage(options, name, device = null) {
  const ctx = device ? device.context() : await browser.newContext(options);
  const page = await ctx.newPage();
  pages.push([name, page]);
  page.on('request', (req) => { if (!req.url().startsWith(BASE) && !req.url().startsWith('data:')) foreign.push(req.url()); });
  // Refused requests and a proxy's 502 (the test provokes them on purpose) and requests made while the test holds
  // a page offline are logged by Chromium; they are not script errors.
  const expected = /^Failed to load resource: (the server responded with a status of (4|50[23])|net::ERR_INTERNET_DISCONNECTED|net::ERR_FAILED)/;
  page.on('console', (msg) => { if (msg.type() === 'error' && !expected.test(msg.text())) consoleErrors.push(`${name}: ${msg.text()}`); });
  page.on('pageerror', (err) => consoleErrors.push(`${name}: ${err.message}`));
  return page;
}
// Every section opened (on a phone the long ones start closed).
const openAll = async (page) => {
  await page.waitForSelector('#sec-now, #create-form');
  await page.evaluate(() => document.querySelectorAll('main details').forEach((d) => { d.open = true; }));
};
// A new screen at phone and at desktop size (the screen as it is seen, not the whole page).
async function shotBoth(page, name) {
  const size = page.viewportSize();
  const sizes = { phone: { width: 375, height: 812 }, desktop: { width: 1280, height: 900 } };
  for (const [label, vp] of Object.entries(sizes)) {
    await page.setViewportSize(vp);
    await page.screenshot({ path: join(OUT, `${name}-${label}.png`) });
  }
  await page.setViewportSize(size);
}
// Rendered text must be players' words: no ruleset, grant or event id (those with a dash; the
// others are plain words such as "infantry"), no field path, file name or raw value.
let dashedIds = null;
async function checkWords(page, name) {
  if (page.isClosed()) return;
  if (!dashedIds) {
    const rulesetIds = (await apiGet('/rulesets')).map((r) => r.id);
    const ids = new Set([...rulesetIds, ...(await apiGet('/grand-rulesets')).map((g) => g.id)]);
    for (const rid of rulesetIds) {
      const doc = await apiGet(`/rulesets/${rid}`);
      for (const g of Object.keys(doc.grants || {})) ids.add(g);
      for (const e of Object.keys((doc.what_if && doc.what_if.events) || {})) ids.add(e);
    }
    dashedIds = [...ids].filter((x) => x.includes('-'));
  }
  await openAll(page).catch(() => {});
  const body = await page.evaluate(() => document.body.innerText);
  const found = dashedIds.filter((x) => new RegExp(`(^|[^\\w-])${x}([^\\w-]|$)`).test(body));
  // ... and one apostrophe throughout, the one the server's own words use ('), never a mix.
  const raw = ['(field:', 'RULES.md', '.json', 'undefined', '[object', 'NaN', '\u2019'].filter((x) => body.includes(x));
  check(found.length === 0 && raw.length === 0, `${name}: no internal id or raw text on the page (${[...found, ...raw].join(', ')})`);
}
const shot = (page, name) => page.screenshot({ path: join(OUT, name), fullPage: true });
const text = (page, sel) => page.locator(sel).first().innerText();
// Waits until a page shows the campaign as the server has it now: a form it draws after that is
// not drawn again by news it had not yet heard (which would reset what the test fills in).
const caughtUp = async (page, id) => {
  const v = (await apiGet(`/campaigns/${id}`)).version;
  return page.waitForFunction((want) => Number(document.querySelector('#status').dataset.version) >= want, v, { timeout: 10000 })
    .then(() => true, () => false);
};

try {
  // ---- create a campaign from the home page ----
  const desk = { viewport: { width: 1280, height: 900 } };
  const phone = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
  const home = await newPage(desk, 'home');
  await home.goto(`${BASE}/`);
  await home.waitForSelector('#create-form');
  await home.fill('#name', 'E2E "Normandy" 🎲');
  await home.selectOption('#ruleset', 'standard');
  await home.check('#dice-either');
  await home.fill('#tokens-axis', '0');
  await home.fill('#player-allies', 'Ann');
  await home.fill('#player-axis', 'Bob');
  check(await home.locator('#ruleset-about').innerText() !== '', 'the ruleset select shows a one-line description');
  const diceLabels = await home.locator('label[for^="dice-"]').allInnerTexts();
  check(diceLabels.length === 3 && diceLabels[0].startsWith('This server') && diceLabels[1].startsWith('The table') && diceLabels.every((t) => !/m44d|^(server|table|either)\b/.test(t)),
    `the dice choices say who rolls, in words (${diceLabels.join(' | ')})`);
  // An emptied token field is said, not taken as 0 tokens.
  await home.fill('#tokens-allies', '');
  await home.click('#create');
  // Whichever comes, the refusal or the links of a campaign made all the same, this check says.
  await home.waitForSelector('#create-error:not([hidden]), #link-organizer', { timeout: 5000 }).catch(() => {});
  check(await home.locator('#create-error:not([hidden])').count() === 1 && (await text(home, '#create-error:not([hidden])')) === "Give the Allies' starting Reserve Tokens (0 or more)." && await home.locator('#link-organizer').count() === 0,
    'an emptied starting-token field is said, and nothing is created');
  await home.fill('#tokens-allies', '3');
  await shot(home, '01-create.png');
  await home.click('#create');
  await home.waitForSelector('#link-organizer');
  const links = {};
  for (const r of ['organizer', 'allies', 'axis']) links[r] = await home.inputValue(`#link-${r}`);
  check(Object.values(links).every((l) => /\/c\/[0-9a-f-]{36}#key=[A-Za-z0-9_-]{43}$/.test(l)), 'three share links, each with its key in the URL fragment');
  check(await home.locator('button#share-allies').count() === 1, 'each link has a share (or copy) button');
  check(await home.locator('#grand-card').isHidden(), 'once created, the links show without "Create a grand campaign instead" above them');
  // Everyday screens speak of sealed dice, not of seeds and hashes (those are for the check).
  const jargon = /\bseeds?\b|SHA-256|commitment|HMAC/i;
  check(!jargon.test(await text(home, '.links')) && (await text(home, '.links')).includes('sealed'), 'the links page says the dice are sealed, in players\' words');
  await shot(home, '02-links.png');
  const id = links.organizer.match(/\/c\/([0-9a-f-]{36})/)[1];

  // ---- the three roles, each in its own browser context ----
  const org = await newPage(desk, 'organizer');
  const allies = await newPage(phone, 'allies');
  const axis = await newPage(desk, 'axis');
  await org.goto(links.organizer);
  await openAll(org);
  await allies.goto(links.allies);
  await openAll(allies);
  await axis.goto(links.axis);
  await openAll(axis);
  for (const [p, want] of [[org, 'Organizer'], [allies, 'Allies'], [axis, 'Axis']]) {
    await p.waitForSelector('#role');
    check((await text(p, '#role')).includes(want), `the ${want} link shows its role`);
  }

  // An API error is shown next to the control that caused it.
  await org.click('#create-battle');
  await org.waitForSelector('#act-new-battle .error:not([hidden])');
  check((await text(org, '#act-new-battle .error')).includes('scenario'), 'an empty scenario is refused, in words, next to the button');

  // ---- battle 1 ----
  await org.fill('#battle-scenario', 'Pegasus Bridge');
  await org.selectOption('#battle-first', 'axis');
  await org.fill('#battle-cards-allies', '4');
  await org.fill('#battle-cards-axis', '5');
  await org.fill('#battle-medals', '4');
  await org.click('#create-battle');
  // Live: the Allies' page offers the reserve roll without a reload.
  await allies.waitForSelector('#act-reserve-roll', { timeout: 5000 });
  check(true, 'the other pages learn of the new battle without a reload');

  // Allies enter table dice by tapping faces: star, infantry.
  await allies.click('#act-reserve-roll .picker button[data-face="star"]');
  await allies.click('#act-reserve-roll .picker button[data-face="infantry"]');
  check(await allies.locator('#act-reserve-roll .entered svg').count() === 2, 'tapped faces show as dice');
  await allies.click('#enter-reserve-roll');
  await allies.waitForSelector('#act-reserve-choice');
  // The Axis page shows the Allies' dice without a reload.
  await axis.waitForSelector('.reserve-side[data-side="allies"] .dice svg', { timeout: 5000 });
  check(await axis.locator('.reserve-side[data-side="allies"] .dice svg').count() === 2, "the Axis page shows the Allies' roll live, as die faces");
  const faces = await axis.locator('.reserve-side[data-side="allies"] .dice svg').evaluateAll((els) => els.map((e) => e.dataset.face));
  check(faces.join(',') === 'star,infantry', 'the dice drawn are the faces entered');

  // Toggles: taking star + infantry disables the infantry alone (same die), with the reason.
  await allies.check('#act-reserve-choice input[data-option="star-infantry@0+1"]');
  const inf = allies.locator('#act-reserve-choice input[data-option="infantry@1"]');
  check(await inf.isDisabled(), 'an option on a die already chosen is disabled');
  check((await text(allies, '#act-reserve-choice .option[data-option="infantry@1"] .reason')).includes('die already taken'), 'the reason is shown');
  await inf.click({ force: true }).catch(() => {});
  check(!(await inf.isChecked()), 'a disabled option cannot be chosen');
  await shot(allies, '03-allies-reserve-choice-phone.png');
  await allies.click('#confirm-choice');
  await allies.waitForSelector('#act-reserve-choice', { state: 'detached' });

  // Axis: 0 tokens. Table dice infantry + armor: both options cost a token and are disabled.
  await axis.click('#act-reserve-roll .picker button[data-face="infantry"]');
  await axis.click('#act-reserve-roll .picker button[data-face="armor"]');
  await axis.click('#enter-reserve-roll');
  await axis.waitForSelector('#act-reserve-choice');
  const axisBoxes = axis.locator('#act-reserve-choice input[type=checkbox]');
  const n = await axisBoxes.count();
  let allDisabled = n === 2;
  for (let i = 0; i < n; i++) allDisabled = allDisabled && await axisBoxes.nth(i).isDisabled();
  check(allDisabled, 'options costing more tokens than the side has are disabled');
  check((await text(axis, '#act-reserve-choice .reason')).includes('you have 0 left'), 'with the reason: not enough tokens');
  check((await text(axis, '#confirm-choice')).includes('take nothing'), 'the side can take nothing');
  await axis.click('#confirm-choice');

  // Organizer: result. Allies win 4-2.
  await org.waitForSelector('#act-result', { timeout: 5000 });
  await org.selectOption('#result-winner', 'allies');
  await org.fill('#result-medals-allies', '4');
  // A negative count, or a box left empty, is asked again, never recorded (nor read as 0).
  for (const wrong of ['-2', '']) {
    await org.fill('#result-medals-axis', wrong);
    await org.click('#record-result');
    const said = await text(org, '#err-medals-axis');
    check(said === "Enter the Axis' medals as a whole number, 0 or more." && await org.$eval('#result-check', (el) => el.hidden),
      `Axis medals "${wrong}": asked again, nothing to confirm (${said})`);
  }
  await org.fill('#result-medals-axis', '2');
  await org.click('#record-result');
  await org.click('#confirm-result');

  // ---- battle 2: victory events ----
  await org.waitForSelector('#act-new-battle');
  await org.fill('#battle-scenario', 'Sword Beach');
  await org.selectOption('#battle-first', 'allies');
  await org.fill('#battle-medals', '5');
  await org.click('#create-battle');
  await allies.waitForSelector('#act-victory-events', { timeout: 5000 });
  check((await text(allies, '#act-victory-events h3')).includes('3 victory event dice'), 'the winner of battle 1 rolls 3 victory event dice');
  await allies.click('#roll-victory-events');
  await axis.waitForSelector('#act-victory-events');
  check((await text(axis, '#act-victory-events h3')).includes('2 victory event dice'), 'the loser rolls 2');
  await axis.click('#roll-victory-events');
  await allies.waitForSelector('#battle .checklist li', { timeout: 5000 });
  check(await allies.locator('#battle .checklist li').count() === 5, 'the ordered checklist has one instruction per die');
  // The checklist is the API's ordered list, item by item (side, face, words).
  const ve = (await apiGet(`/campaigns/${id}/battles/2`)).victory_events.instructions;
  const shown = await allies.locator('#battle .checklist li').evaluateAll((els) => els.map((e) => ({ roller: e.dataset.roller, face: e.dataset.face, text: e.querySelector('.ins-text').textContent })));
  check(shown.length === ve.length && shown.every((x, i) => x.roller === ve[i].roller && x.face === ve[i].face && x.text === ve[i].text),
    `the checklist is in the API's order (${shown.map((x) => `${x.roller}:${x.face}`).join(' ')} / ${ve.map((x) => `${x.roller}:${x.face}`).join(' ')})`);
  await allies.check('#battle .checklist li:first-child input');
  check(await allies.isChecked('#battle .checklist li:first-child input'), 'instructions can be ticked off at the table');
  check((await text(allies, '#hands')).includes('Allies') && (await text(allies, '#hands')).includes('Axis'), 'both starting hands are shown');
  await shot(allies, '04-victory-events-phone.png');
  await axis.waitForSelector('#battle .checklist li');
  await shot(axis, '05-victory-events-desktop.png');

  // Reserves: both let m44d roll, both take nothing.
  for (const p of [allies, axis]) {
    await p.waitForSelector('#roll-reserve-roll', { timeout: 5000 });
    check(!jargon.test(await text(p, '#act-reserve-roll')), 'a server roll is explained without seeds');
    await p.click('#roll-reserve-roll');
    await p.waitForSelector('#confirm-choice');
    await p.click('#confirm-choice');
    await p.waitForSelector('#act-reserve-choice', { state: 'detached' });
  }
  await org.waitForSelector('#act-result', { timeout: 5000 });
  // Axis win 5-3. Neither side called up a unit in this battle, so an undeployed reserve is
  // refused (RULES.md 2), in words, next to its field, and nothing is recorded.
  await org.selectOption('#result-winner', 'axis');
  await org.fill('#result-medals-allies', '3');
  await org.fill('#result-medals-axis', '5');
  await org.fill('#result-undeployed-axis', '1');
  await org.click('#record-result');
  await org.click('#confirm-result');
  await org.waitForSelector('#err-undeployed-axis:not([hidden])', { timeout: 5000 });
  const undeployedRefused = await text(org, '#err-undeployed-axis');
  check(undeployedRefused.includes('The Axis called up no reserve unit in battle 2') && !/undeployed_reserves|axis\b/.test(undeployedRefused),
    `an undeployed reserve no unit was called up for is refused next to its field, in players' words (${undeployedRefused})`);
  check((await apiGet(`/campaigns/${id}/battles/2`)).phase === 'ready', 'the refused result recorded nothing');
  await org.fill('#result-undeployed-axis', '0');
  await org.click('#record-result');
  await org.click('#confirm-result');
  await org.waitForSelector('#act-new-battle');

  // ---- standing and charts show the right numbers ----
  const api = await apiGet(`/campaigns/${id}`);
  for (const p of [org, allies]) {
    await p.waitForFunction(() => document.querySelectorAll('#medals-chart rect.bar').length === 4, null, { timeout: 5000 });
    for (const s of ['allies', 'axis']) {
      for (const stat of ['battles_won', 'medals', 'reserve_tokens']) {
        const shown = Number(await text(p, `#standing-${s} [data-stat="${stat}"]`));
        check(shown === api.sides[s][stat], `${s} ${stat} shows ${api.sides[s][stat]}`);
      }
    }
  }
  check(api.sides.allies.reserve_tokens === 2 && api.sides.axis.reserve_tokens === 0, 'tokens: Allies 3 - 1 = 2, Axis 0');
  const bars = await org.locator('#medals-chart rect.bar').evaluateAll((els) => els.map((e) => `${e.dataset.battle}:${e.dataset.side}:${e.dataset.value}`));
  check(bars.join(' ') === '1:allies:4 1:axis:2 2:allies:3 2:axis:5', 'the medals chart has one bar per side per battle with the medals');
  const points = await org.locator('#tokens-chart circle.point[data-side="allies"]').evaluateAll((els) => els.map((e) => e.dataset.value));
  check(points.join(',') === '3,2,2', `the token chart shows the Allies' tokens at the start and after each battle (${points.join(',')})`);
  const axisPoints = await org.locator('#tokens-chart circle.point[data-side="axis"]').evaluateAll((els) => els.map((e) => e.dataset.value));
  check(axisPoints.join(',') === '0,0,0', `and the Axis' tokens (${axisPoints.join(',')})`);
  check((await text(org, '#stats-words')).includes('dice'), 'dice statistics in words');
  check(await org.locator('#dice-stats tbody tr').count() === 5, 'a row per die symbol');
  await shot(org, '06-organizer-standing.png');

  // ---- phone: no horizontal scroll ----
  const wide = await allies.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(wide <= 0, `the phone page has no horizontal scroll (overflow ${wide}px)`);
  // Nor does the roll log inside its box: every column is seen without sliding it sideways.
  const logWide = await allies.evaluate(() => {
    const w = document.querySelector('#roll-log') && document.querySelector('#roll-log').closest('.table-wrap');
    return w && document.querySelectorAll('#roll-log tbody tr').length ? w.scrollWidth - w.clientWidth : null;
  });
  check(logWide !== null && logWide <= 1, `the roll log fits the phone (overflow ${logWide}px)`);
  const homePhone = await newPage(phone, 'home-phone');
  await homePhone.goto(`${BASE}/`);
  await homePhone.waitForSelector('#create-form');
  check(await homePhone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the home page fits a phone too');
  await shot(homePhone, '00-home-phone.png');
  // Another ruleset chosen on a slow network: the form is not sent until the page knows whether
  // those rules have Reserve Tokens (the Simplified rules have none, and would refuse them).
  let releaseRules;
  const rulesHeld = new Promise((resolve) => { releaseRules = resolve; });
  const simplifiedPath = /\/api\/v1\/rulesets\/simplified$/;
  await homePhone.route(simplifiedPath, async (route) => { await rulesHeld; await route.continue(); });
  await homePhone.selectOption('#ruleset', 'simplified');
  const waitsForRules = await homePhone.locator('#create').isDisabled();
  releaseRules();
  await homePhone.waitForFunction(() => document.querySelector('#tokens').hidden, null, { timeout: 5000 }).catch(() => {});
  check(waitsForRules && await homePhone.locator('#create').isEnabled() && await homePhone.locator('#tokens').isHidden(),
    'the create button waits for the chosen rules, then the Reserve Tokens they do not have are gone');
  await homePhone.unroute(simplifiedPath);

  // ---- every control has a label ----
  for (const [p, name] of [[org, 'organizer'], [allies, 'allies'], [home, 'home']]) {
    const unlabeled = await p.evaluate(() => [...document.querySelectorAll('input, select, button')]
      .filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
      .map((e) => e.id || e.outerHTML.slice(0, 60)));
    check(unlabeled.length === 0, `${name}: every control has a label (${unlabeled.join(', ')})`);
  }

  // ---- finish, then verify every roll in the browser ----
  await org.click('#finish');
  check(!jargon.test(await text(org, '#act-finish')), 'finishing is explained without seeds');
  await org.click('#confirm-finish');
  await allies.waitForFunction(() => document.querySelector('#waiting').textContent.includes('over'), null, { timeout: 5000 });
  check(true, 'the Allies page sees the campaign finish live');
  await allies.waitForSelector('#verify');
  await allies.click('#verify');
  await allies.waitForSelector('#verify-summary');
  const rolls = await apiGet(`/campaigns/${id}/rolls`);
  const server = rolls.filter((r) => r.source === 'server').length;
  const summary = await text(allies, '#verify-summary');
  check(summary.startsWith('Verified:') && summary.includes('matches its commitment'), 'the revealed seed matches its commitment');
  check(summary.includes(`${server} server rolls verified, 0 mismatches`), `all ${server} server rolls verified (${summary})`);
  const statuses = await allies.locator('#verify-table tbody tr').evaluateAll((els) => els.map((e) => e.dataset.status));
  check(statuses.length === rolls.length && statuses.every((s) => s === 'ok' || s === 'table'), 'each roll is marked');
  await shot(allies, '07-verify-phone.png');

  // ---- verifying without WebCrypto (a page opened over plain http on a LAN address) ----
  // The browser's own SHA-256 is hidden, so the page uses its built-in one: known vectors
  // first (FIPS 180-2, RFC 4231), then "Verify all rolls" end to end.
  const plain = await newPage({ viewport: { width: 375, height: 812 } }, 'plain-http');
  await plain.context().addInitScript(() => Object.defineProperty(window, 'isSecureContext', { value: false }));
  await plain.goto(links.allies);
  await openAll(plain);
  await plain.waitForSelector('#verify');
  const vectors = await plain.evaluate(async () => {
    const v = await import('/assets/verify.js');
    const enc = new TextEncoder();
    const hex = (b) => v.bytesToHex(b);
    return {
      fallback: !v.webCrypto,
      empty: hex(v.sha256js(enc.encode(''))),
      abc: hex(v.sha256js(enc.encode('abc'))),
      two: hex(v.sha256js(enc.encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))),
      million: hex(v.sha256js(enc.encode('a'.repeat(1000000)))),
      b55: hex(v.sha256js(enc.encode('x'.repeat(55)))),
      b56: hex(v.sha256js(enc.encode('x'.repeat(56)))),
      b64: hex(v.sha256js(enc.encode('x'.repeat(64)))),
      hmac1: hex(v.hmacjs(new Uint8Array(20).fill(0x0b), enc.encode('Hi There'))),
      hmac2: hex(v.hmacjs(enc.encode('Jefe'), enc.encode('what do ya want for nothing?'))),
      hmacLongKey: hex(v.hmacjs(new Uint8Array(131).fill(0xaa), enc.encode('Test Using Larger Than Block-Size Key - Hash Key First'))),
    };
  });
  check(vectors.fallback, 'with WebCrypto hidden, the page uses its own SHA-256');
  const want = {
    empty: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    abc: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    two: '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    million: 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    hmac1: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    hmac2: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    hmacLongKey: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
  };
  for (const [k, h] of Object.entries(want)) check(vectors[k] === h, `built-in SHA-256 / HMAC vector "${k}" (${vectors[k]})`);
  // Padding edges (55, 56 and 64 bytes) against Node's own SHA-256.
  const { createHash } = await import('node:crypto');
  for (const [k, n] of [['b55', 55], ['b56', 56], ['b64', 64]]) {
    check(vectors[k] === createHash('sha256').update('x'.repeat(n)).digest('hex'), `built-in SHA-256 of ${n} bytes`);
  }
  await plain.click('#verify');
  await plain.waitForSelector('#verify-summary');
  const plainSummary = await text(plain, '#verify-summary');
  check(plainSummary.includes(`${server} server rolls verified, 0 mismatches`), `without WebCrypto all ${server} server rolls verify too (${plainSummary})`);
  check(await plain.locator('#verify-more a[href$="/export"]').count() === 1, 'the page links the record to save for the full check');
  // Seeds follow one another: a roll that goes back to an older seed than an earlier roll used is
  // a mismatch, even though its faces are what that seed gives.
  const epochs = await plain.evaluate(async () => {
    const v = await import('/assets/verify.js');
    const bytes = { 1: new Uint8Array(32).fill(1), 2: new Uint8Array(32).fill(2) };
    const seeds = [1, 2].map((e) => ({ epoch: e, server_seed: v.bytesToHex(bytes[e]), commitment: v.bytesToHex(v.sha256js(bytes[e])), origin: 'server' }));
    const id = 'c0ffee00-0000-4000-8000-00000000e2e9';
    const roll = async (n, e) => ({ n, source: 'server', client_seed: '', seed_epoch: e, faces: await v.deriveFaces(bytes[e], id, n, '', 2) });
    const statuses = async (list) => (await v.verifyRolls(id, seeds, list, 'server')).rolls.map((r) => r.status).join(',');
    return [await statuses([await roll(1, 1), await roll(2, 2), await roll(3, 2)]), await statuses([await roll(1, 2), await roll(2, 1)])];
  });
  check(epochs[0] === 'ok,ok,ok' && epochs[1] === 'ok,mismatch', `a roll back on an older seed is a mismatch (${epochs.join(' / ')})`);

  // ---- a campaign whose rolls cannot be checked is never shown as verified ----
  // An export crafted with a seed commitment but no seed, and "server" rolls with chosen faces:
  // the import takes it (nothing can be checked), and the page must say "not verified".
  const craftedId = 'c0ffee00-0000-4000-8000-00000000e2e1';
  const roll = (n, side, faces) => ({ action: 'roll', detail: { n, side, purpose: 'reserve', battle: 1, source: 'server', client_seed: '', seed_epoch: 1, faces } });
  const craftedActions = [
    { action: 'campaign_created', detail: { name: 'Crafted', ruleset: 'standard', what_if: false, dice: 'server', reserve_tokens: { allies: 0, axis: 0 }, players: { allies: '', axis: '' }, scenarios: null } },
    { action: 'battle_created', detail: { number: 1, scenario: 'Crafted', first_player: 'allies', cards: { allies: 5, axis: 5 }, medals_to_win: 6, commissar: null } },
    roll(1, 'allies', ['star', 'star']), roll(2, 'axis', ['flag', 'flag']),
    { action: 'reserve_choice', detail: { battle: 1, side: 'allies', options: [] } },
    { action: 'reserve_choice', detail: { battle: 1, side: 'axis', options: [] } },
    { action: 'result', detail: { battle: 1, winner: 'allies', medals: { allies: 6, axis: 0 } } },
  ];
  const crafted = { format: 'm44d-campaign-export', format_version: 1, campaign: { id: craftedId }, seeds: [{ epoch: 1, commitment: '1'.repeat(64) }], rolls: craftedActions.filter((a) => a.action === 'roll').map((a) => a.detail), actions: craftedActions };
  const imported = await (await fetch(`${BASE}/api/v1/campaigns/import`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(crafted) })).json();
  check(imported.id === craftedId, `the crafted export imports (${JSON.stringify(imported).slice(0, 120)})`);
  await fetch(`${BASE}/api/v1/campaigns/${craftedId}/finish`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${imported.organizer_key}` }, body: '{}' });
  const reader = await newPage(desk, 'unverifiable');
  // A finished campaign's page: "Verify all rolls" tapped, and what it says.
  const verifySummary = async (page, id) => {
    await page.goto(`${BASE}/c/${id}`);
    await openAll(page);
    await page.waitForSelector('#verify');
    await page.click('#verify');
    await page.waitForSelector('#verify-summary');
    return text(page, '#verify-summary');
  };
  const unverified = await verifySummary(reader, craftedId);
  check(unverified.startsWith('Not verified') && await reader.locator('#verify-summary.verify-ok').count() === 0, `rolls that cannot be checked: "not verified", never the green success (${unverified})`);
  await shot(reader, '08-not-verified.png');

  // ---- rolls that match a seed which came in the document: consistent, not witnessed ----
  // The seed and the faces are made here with Node's own HMAC (RULES.md 1.2), so the import
  // accepts them; the page must still not call them verified.
  const { createHmac, randomBytes } = await import('node:crypto');
  const plantedId = 'c0ffee00-0000-4000-8000-00000000e2e2';
  const seedBytes = randomBytes(32);
  const FACE = ['infantry', 'infantry', 'armor', 'grenade', 'star', 'flag'];
  const derive = (n, count) => {
    const out = [];
    for (let k = 0; out.length < count; k++) {
      for (const b of createHmac('sha256', seedBytes).update(`${plantedId}:${n}:${''}:${k}`).digest()) {
        if (out.length < count && b < 252) out.push(FACE[b % 6]);
      }
    }
    return out;
  };
  const plantedActions = [
    { action: 'campaign_created', detail: { ...craftedActions[0].detail, name: 'Planted' } },
    craftedActions[1],
    { action: 'roll', detail: { n: 1, side: 'allies', purpose: 'reserve', battle: 1, source: 'server', client_seed: '', seed_epoch: 1, faces: derive(1, 2) } },
    { action: 'roll', detail: { n: 2, side: 'axis', purpose: 'reserve', battle: 1, source: 'server', client_seed: '', seed_epoch: 1, faces: derive(2, 2) } },
    ...craftedActions.slice(4),
  ];
  const planted = {
    format: 'm44d-campaign-export', format_version: 1, campaign: { id: plantedId },
    seeds: [{ epoch: 1, commitment: createHash('sha256').update(seedBytes).digest('hex'), server_seed: seedBytes.toString('hex') }],
    rolls: plantedActions.filter((a) => a.action === 'roll').map((a) => a.detail), actions: plantedActions,
  };
  const plantedIn = await (await fetch(`${BASE}/api/v1/campaigns/import`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(planted) })).json();
  check(plantedIn.id === plantedId, `an export with its seed and matching rolls imports (${JSON.stringify(plantedIn).slice(0, 120)})`);
  await fetch(`${BASE}/api/v1/campaigns/${plantedId}/finish`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${plantedIn.organizer_key}` }, body: '{}' });
  const notHere = await verifySummary(reader, plantedId);
  const marks = await reader.locator('#verify-table tbody tr').evaluateAll((els) => els.map((e) => e.dataset.status));
  check(notHere.startsWith('Not verified here') && marks.join(',') === 'imported,imported' && await reader.locator('#verify-summary.verify-ok').count() === 0,
    `rolls under a seed that came with an import: "not verified here", each marked (${marks.join(',')}: ${notHere.slice(0, 80)})`);

  // ---- only dice from the table: nothing to verify, never "verified" ----
  const tableId = 'c0ffee00-0000-4000-8000-00000000e2e3';
  const tableRoll = (n, side, faces) => ({ action: 'roll', detail: { n, side, purpose: 'reserve', battle: 1, source: 'table', client_seed: null, seed_epoch: null, faces } });
  const tableActions = [
    { action: 'campaign_created', detail: { ...craftedActions[0].detail, name: 'At the table', dice: 'table' } },
    craftedActions[1], tableRoll(1, 'allies', ['star', 'star']), tableRoll(2, 'axis', ['flag', 'flag']),
    ...craftedActions.slice(4),
  ];
  const tableDoc = { format: 'm44d-campaign-export', format_version: 1, campaign: { id: tableId }, seeds: [{ epoch: 1, commitment: '2'.repeat(64) }], rolls: tableActions.filter((a) => a.action === 'roll').map((a) => a.detail), actions: tableActions };
  const tableIn = await (await fetch(`${BASE}/api/v1/campaigns/import`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(tableDoc) })).json();
  check(tableIn.id === tableId, `a table campaign imports (${JSON.stringify(tableIn).slice(0, 120)})`);
  await fetch(`${BASE}/api/v1/campaigns/${tableId}/finish`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tableIn.organizer_key}` }, body: '{}' });
  const nothing = await verifySummary(reader, tableId);
  check(nothing.startsWith('Nothing to verify: every roll was entered from the table') && await reader.locator('#verify-summary.verify-ok').count() === 0,
    `only table dice: "nothing to verify", never the green success (${nothing.slice(0, 90)})`);

  // Pages of a finished part are closed, as players close them: every open page holds a long
  // poll and a few connections, and all of them come from one address here.
  await closePages(['home', 'organizer', 'allies', 'axis', 'home-phone', 'plain-http', 'unverifiable']);

  // ---- rules fidelity at the table (RULES.md 7, 9) ----
  const post = async (path, key, body) => {
    const r = await fetch(`${BASE}/api/v1${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
    return r.json();
  };
  // Island Hoppers, dice at the table: the Allies' What-if star is Naval Struggle, the Axis'
  // grenade Night Attacks (the data's face reading).
  const ih = await post('/campaigns', null, { name: 'Pacific', ruleset: 'island-hoppers', dice: 'table', what_if: true, reserve_tokens: { allies: 2, axis: 2 } });
  // The Allies tap theirs in on the page; what it gave stays said at the top when the Axis roll
  // theirs a moment later, and goes once the battle it speaks of is set up.
  const ihAllies = await newPage(desk, 'ih-allies');
  await ihAllies.goto(`${BASE}/c/${ih.id}#key=${ih.allies_key}`);
  await ihAllies.click('#act-what-if .picker button[data-face="star"]');
  await ihAllies.click('#enter-what-if');
  await ihAllies.waitForFunction(() => document.querySelector('#done').textContent.startsWith('Your What-if roll: Star: Naval Struggle'), null, { timeout: 5000 })
    .catch(async () => check(false, `the Allies' What-if roll is said at the top (${await text(ihAllies, '#done')})`));
  await post(`/campaigns/${ih.id}/what-if`, ih.axis_key, { faces: ['grenade'] });
  const ihAxisSeen = await ihAllies.waitForFunction(() => !document.querySelector('#waiting').textContent.includes('Axis'), null, { timeout: 5000 }).then(() => true, () => false);
  check(ihAxisSeen && (await text(ihAllies, '#done')).startsWith('Your What-if roll: Star: Naval Struggle'),
    `the Axis' What-if roll leaves the Allies' page saying what theirs gave (${await text(ihAllies, '#done')})`);
  const ihOrg = await newPage(desk, 'ih-organizer');
  const ihAxis = await newPage(phone, 'ih-axis');
  await ihOrg.goto(`${BASE}/c/${ih.id}#key=${ih.organizer_key}`);
  await openAll(ihOrg);
  await ihAxis.goto(`${BASE}/c/${ih.id}#key=${ih.axis_key}`);
  await openAll(ihAxis);
  await openAll(ihAllies);
  await ihOrg.waitForSelector('#act-new-battle');
  check((await text(ihOrg, '#what-if-note')).includes('icons'), 'the What-if face reading is said on the page');
  await ihOrg.fill('#battle-scenario', 'Guadalcanal');
  await ihOrg.check('#feature-destroyers');
  await ihOrg.click('#create-battle');
  await ihAllies.waitForFunction(() => document.querySelector('#done').hidden, null, { timeout: 5000 })
    .then(() => check(true, 'the next battle set up, the What-if roll before it is no longer said at the top'))
    .catch(async () => check(false, `the next battle set up, the Allies' page still says: ${await text(ihAllies, '#done')}`));
  // Naval Struggle: the Axis roll 3 dice before the battle; stars and grenades are hits.
  await ihAxis.waitForSelector('#act-pre-battle-roll', { timeout: 5000 });
  check((await text(ihAxis, '#act-pre-battle-roll h3')).includes('3 dice'), 'the Axis are asked for the Naval Struggle roll of 3 dice');
  for (const f of ['star', 'grenade', 'flag']) await ihAxis.click(`#act-pre-battle-roll .picker button[data-face="${f}"]`);
  await ihAxis.click('#enter-pre-battle-roll');
  await ihAllies.waitForSelector('.pre-battle .pb-hits', { timeout: 5000 });
  check((await text(ihAllies, '.pre-battle .pb-hits')).includes('2 hits'), 'the other side sees the naval roll and its 2 hits, live');
  // Night Attacks: the Axis pick this battle.
  await ihAxis.waitForSelector('#pick-night-attacks');
  await ihAxis.click('#pick-night-attacks');
  await ihAxis.waitForSelector('#battle-effects li[data-event="night-attacks"]');
  check((await text(ihAxis, '#effects li[data-event="night-attacks"]')).includes('picked battle 1'), 'the picked battle is shown with the event');
  // Reserves: the Allies take an air token (kept), the Axis nothing.
  await ihAllies.waitForSelector('#act-reserve-roll');
  for (const f of ['star', 'star']) await ihAllies.click(`#act-reserve-roll .picker button[data-face="${f}"]`);
  await ihAllies.click('#enter-reserve-roll');
  await ihAllies.waitForSelector('#act-reserve-choice select');
  const alternatives = await ihAllies.locator('#act-reserve-choice select option').allInnerTexts();
  check(alternatives.some((t) => t.startsWith('an Air Sortie') && t.endsWith('(free)')) && alternatives.every((t) => !/elite-|air-sortie/.test(t)),
    `alternatives in the ruleset's words, each with its cost (${alternatives.join(' | ')})`);
  // The Axis start tapping in their dice while the Allies choose: the other side's move must
  // not wipe a half-entered roll.
  await ihAxis.waitForSelector('#act-reserve-roll');
  await ihAxis.click('#act-reserve-roll .picker button[data-face="flag"]');
  await ihAllies.check('#act-reserve-choice input[type=checkbox]');
  await ihAllies.selectOption('#act-reserve-choice select', 'air-sortie');
  await ihAllies.click('#confirm-choice');
  await ihAxis.waitForSelector('.reserve-side[data-side="allies"] .chosen', { timeout: 5000 });
  check(await ihAxis.locator('#act-reserve-roll .entered svg').count() === 1, "a half-entered roll survives the other side's move");
  await ihAxis.click('#act-reserve-roll .picker button[data-face="flag"]');
  await ihAxis.click('#enter-reserve-roll');
  await ihAxis.waitForSelector('#confirm-choice');
  await ihAxis.click('#confirm-choice');
  // The token is held in the Allies' standing; the organizer marks it used.
  await ihOrg.waitForSelector('#held-allies li', { timeout: 5000 });
  check((await text(ihOrg, '#held-allies li')).includes('Air Sortie'), 'the air token is held in the Allies\' standing');
  await ihOrg.click('#held-allies button');
  await ihOrg.waitForSelector('#held-allies', { state: 'detached' });
  check((await apiGet(`/campaigns/${ih.id}`)).sides.allies.held.length === 0, 'marked used: no longer held');
  // A result below the medals to win is refused unless it was a sudden death.
  await ihOrg.waitForSelector('#act-result');
  await ihOrg.selectOption('#result-winner', 'allies');
  await ihOrg.fill('#result-medals-allies', '3');
  await ihOrg.fill('#result-medals-axis', '2');
  await ihOrg.click('#record-result');
  await ihOrg.waitForSelector('#act-result .error:not([hidden])');
  check((await text(ihOrg, '#act-result .error')).includes('medals'), 'a result that cannot be right is refused, in words');
  await ihOrg.check('#result-sudden-death');
  await ihOrg.click('#record-result');
  await ihOrg.click('#confirm-result');
  await ihOrg.waitForSelector('#act-new-battle');
  check((await text(ihOrg, '#battle-1 .result, #history-1 .result, .result')).includes('own victory condition'), 'a sudden death is recorded and said');
  // The Pacific set-up offers neither Normandy's D-Day Landings maps nor the Eastern Front's
  // Political Commissar (the ruleset has neither); the standard rules offer both.
  check(await ihOrg.locator('#battle-scenario').count() === 1 && await ihOrg.locator('#battle-maps').count() === 0 && await ihOrg.locator('#battle-commissar').count() === 0,
    'an Island Hoppers set-up offers no D-Day Landings maps and no Political Commissar');
  await shot(ihAxis, '09-naval-night-phone.png');
  // A battle on two D-Day Landings maps: the medals and the command cards come from the table.
  const dday = await post('/campaigns', null, { name: 'D-Day', ruleset: 'standard', dice: 'table' });
  const ddOrg = await newPage(desk, 'dday-organizer');
  await ddOrg.goto(`${BASE}/c/${dday.id}#key=${dday.organizer_key}`);
  await ddOrg.waitForSelector('#battle-maps');
  check(await ddOrg.locator('#battle-commissar').count() === 1, 'the standard rules offer the Political Commissar');
  await ddOrg.fill('#battle-scenario', 'Sword and Juno');
  await ddOrg.selectOption('#battle-maps', { label: 'OverThrough: Sword Beach + Juno Beach — 29 medals' });
  check(await ddOrg.inputValue('#battle-medals') === '29' && await ddOrg.inputValue('#battle-cards-allies') === '12' && await ddOrg.inputValue('#battle-cards-axis') === '9',
    'choosing Sword + Juno fills 29 medals and 12 / 9 command cards');
  await ddOrg.click('#create-battle');
  await ddOrg.waitForSelector('#battle-maps-shown');
  check((await text(ddOrg, '#battle-maps-shown')).includes('Sword Beach + Juno Beach'), 'the battle shows its maps');
  check((await apiGet(`/campaigns/${dday.id}/battles/1`)).medals_to_win === 29, 'the battle has 29 medals to win');
  await closePages(['dday-organizer']);

  // Fall of Poland, Axis flag + star: the elite infantry costs a token, the air token nothing.
  const fop = await post('/campaigns', null, { name: 'Poland', ruleset: 'fall-of-poland', dice: 'table', reserve_tokens: { allies: 0, axis: 0 } });
  await post(`/campaigns/${fop.id}/battles`, fop.organizer_key, { scenario: 'Mokra', first_player: 'axis', cards: { allies: 5, axis: 5 }, medals_to_win: 6 });
  await post(`/campaigns/${fop.id}/battles/1/reserve-roll`, fop.axis_key, { faces: ['flag', 'star'] });
  const fopAxis = await newPage(phone, 'fop-axis');
  await fopAxis.goto(`${BASE}/c/${fop.id}#key=${fop.axis_key}`);
  await openAll(fopAxis);
  await fopAxis.waitForSelector('#act-reserve-choice select');
  const sf = fopAxis.locator('#act-reserve-choice input[data-option="star-flag@0+1"]');
  check(await sf.isDisabled() && (await text(fopAxis, '.option[data-option="star-flag@0+1"] .reason')).includes('1 token'), 'the elite infantry (1 token) cannot be taken with no token');
  await fopAxis.selectOption('#act-reserve-choice select', 'air-sortie');
  check(!(await sf.isDisabled()), 'the air token (free) can');
  await sf.check();
  await fopAxis.click('#confirm-choice');
  await fopAxis.waitForSelector('#act-reserve-choice', { state: 'detached' });
  check((await apiGet(`/campaigns/${fop.id}`)).sides.axis.held[0].grant === 'air-sortie', 'and is held');

  for (const name of ['ih-organizer', 'ih-axis', 'ih-allies', 'fop-axis']) await checkWords(pages.find(([n]) => n === name)[1], name);
  await closePages(['ih-organizer', 'ih-axis', 'ih-allies', 'fop-axis']);

  // ---- a half-typed battle set-up survives the sides' What-if rolls ----
  const wf = await post('/campaigns', null, { name: 'Forms', ruleset: 'bicycle-blitzkrieg', dice: 'table', what_if: true, reserve_tokens: { allies: 2, axis: 2 } });
  const wfOrg = await newPage(desk, 'wf-organizer');
  await wfOrg.goto(`${BASE}/c/${wf.id}#key=${wf.organizer_key}`);
  await wfOrg.waitForSelector('#battle-scenario');
  await wfOrg.fill('#battle-scenario', 'Jitra');
  await wfOrg.fill('#battle-medals', '5');
  for (const [key, face, who] of [[wf.allies_key, 'star', 'Allies'], [wf.axis_key, 'flag', 'Axis']]) {
    await post(`/campaigns/${wf.id}/what-if`, key, { faces: [face] });
    await wfOrg.waitForFunction((w) => !document.querySelector('#waiting').textContent.includes(`${w}: What-if`), who, { timeout: 5000 });
  }
  check(await wfOrg.inputValue('#battle-scenario') === 'Jitra' && await wfOrg.inputValue('#battle-medals') === '5',
    `the organizer's half-typed set-up survives both What-if rolls (${await wfOrg.inputValue('#battle-scenario')}, ${await wfOrg.inputValue('#battle-medals')})`);
  await closePages(['wf-organizer']);

  // Forward Command: the Axis may roll the What-if die once more before battle 2 (RULES.md 9).
  // The organizer's page says so, so that battle 2 is not set up without knowing.
  const fwd = await post('/campaigns', null, { name: 'Forward', ruleset: 'island-hoppers', dice: 'table', what_if: true });
  await post(`/campaigns/${fwd.id}/what-if`, fwd.allies_key, { faces: ['infantry'] });
  await post(`/campaigns/${fwd.id}/what-if`, fwd.axis_key, { faces: ['star'] });
  await post(`/campaigns/${fwd.id}/battles`, fwd.organizer_key, { scenario: 'Guadalcanal', first_player: 'allies', cards: { allies: 5, axis: 5 }, medals_to_win: 6 });
  for (const key of [fwd.allies_key, fwd.axis_key]) {
    await post(`/campaigns/${fwd.id}/battles/1/reserve-roll`, key, { faces: ['flag', 'flag'] });
    await post(`/campaigns/${fwd.id}/battles/1/reserve-choice`, key, { options: [] });
  }
  await post(`/campaigns/${fwd.id}/battles/1/result`, fwd.organizer_key, { winner: 'allies', medals: { allies: 6, axis: 2 } });
  const fwdOrg = await newPage(desk, 'fwd-organizer');
  await fwdOrg.goto(`${BASE}/c/${fwd.id}#key=${fwd.organizer_key}`);
  await fwdOrg.waitForSelector('#waiting');
  const fwdWaiting = await text(fwdOrg, '#waiting');
  check(fwdWaiting.includes('The Axis may roll the What-if die once more before the next battle is set up'), `the organizer is told the Axis may roll again (${fwdWaiting})`);
  // The organizer types battle 2's set-up meanwhile; the Axis roll again: what was typed stays.
  await fwdOrg.fill('#battle-scenario', 'Tarawa');
  await fwdOrg.fill('#battle-medals', '7');
  await post(`/campaigns/${fwd.id}/what-if`, fwd.axis_key, { faces: ['infantry'] });
  const fwdTaken = await fwdOrg.waitForFunction(() => !document.querySelector('#waiting').textContent.includes('may roll'), null, { timeout: 5000 }).then(() => true, () => false);
  check(fwdTaken && await fwdOrg.inputValue('#battle-scenario') === 'Tarawa' && await fwdOrg.inputValue('#battle-medals') === '7',
    `the Axis' second What-if roll leaves the organizer's half-typed set-up as it was (${await fwdOrg.inputValue('#battle-scenario')}, ${await fwdOrg.inputValue('#battle-medals')})`);
  await closePages(['fwd-organizer']);

  // ---- a forgiving table: corrections, links, live updates, offline, players' words ----
  const get = async (path, key) => {
    const r = await fetch(`${BASE}/api/v1${path}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
    const body = await r.json();
    if (!r.ok) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(body)}`);
    return body;
  };
  const fx = await post('/campaigns', null, { name: 'Forgiving', ruleset: 'standard', dice: 'either', reserve_tokens: { allies: 2, axis: 2 } });
  const fOrg = await newPage(desk, 'f-organizer');
  const fAllies = await newPage(phone, 'f-allies');
  const fAxis = await newPage(phone, 'f-axis');
  for (const [p, key] of [[fOrg, fx.organizer_key], [fAllies, fx.allies_key], [fAxis, fx.axis_key]]) {
    await p.goto(`${BASE}/c/${fx.id}#key=${key}`);
    await openAll(p);
  }
  check((await text(fOrg, '#waiting')).includes('setting up the next battle') && await fOrg.locator('#act-finish').count() === 0,
    '"Finish" is not offered before a battle is played');
  await post(`/campaigns/${fx.id}/battles`, fx.organizer_key, { scenario: 'Pegasus Bridge', first_player: 'allies', cards: { allies: 5, axis: 5 }, medals_to_win: 4 });

  // A mis-tapped table die, undone by the side that tapped it: the roll is voided, entered again.
  await fAllies.waitForSelector('#act-reserve-roll', { timeout: 5000 });
  for (const f of ['flag', 'flag']) await fAllies.click(`#act-reserve-roll .picker button[data-face="${f}"]`);
  await fAllies.click('#enter-reserve-roll');
  await fAllies.waitForSelector('#undo');
  await fAllies.click('#undo');
  check((await text(fAllies, '#confirm-undo')).includes('the Allies\' reserve roll for battle 1 (Flag, Flag)'), 'the undo says what it will undo, naming the faces as the page does');
  await shotBoth(fAllies, '10-undo-confirm');
  await fAllies.click('#confirm-undo');
  await fAllies.waitForSelector('#act-reserve-roll .picker', { timeout: 5000 });
  check((await text(fAllies, '#done')).startsWith('Undone:'), 'the page says what was undone, at the top');
  let fRolls = await get(`/campaigns/${fx.id}/rolls`);
  check(fRolls.length === 1 && fRolls[0].voided === true, 'the undone roll stays in the roll log, voided');
  // Tapped in wrong again, and this time the organizer undoes it from another phone: the Allies'
  // page no longer says "Your reserve roll: ..." of a roll that is gone.
  for (const f of ['grenade', 'grenade']) await fAllies.click(`#act-reserve-roll .picker button[data-face="${f}"]`);
  await fAllies.click('#enter-reserve-roll');
  await fAllies.waitForFunction(() => document.querySelector('#done').textContent.startsWith('Your reserve roll: Grenade'), null, { timeout: 5000 });
  await post(`/campaigns/${fx.id}/undo`, fx.organizer_key, {});
  await fAllies.waitForSelector('#act-reserve-roll .picker', { timeout: 5000 });
  await fAllies.waitForFunction(() => document.querySelector('#done').hidden, null, { timeout: 5000 })
    .then(() => check(true, 'undone from another phone: the Allies\' page no longer says what was rolled'))
    .catch(async () => check(false, `undone from another phone, the Allies' page still says: ${await text(fAllies, '#done')}`));
  for (const f of ['star', 'infantry']) await fAllies.click(`#act-reserve-roll .picker button[data-face="${f}"]`);
  await fAllies.click('#enter-reserve-roll');
  await fAllies.waitForSelector('#act-reserve-choice');
  fRolls = await get(`/campaigns/${fx.id}/rolls`);
  check(fRolls.length === 3 && fRolls[2].n === 3 && fRolls[2].faces.join(',') === 'star,infantry', 'entered again, with a new number');
  await fAllies.waitForFunction(() => document.querySelectorAll('#roll-log tr.voided').length === 2, null, { timeout: 5000 });
  check(await fAllies.locator('#roll-log tr.voided').count() === 2, 'the roll log on the page shows the undone rolls struck through');

  // A server roll is never undone: the organizer is told why, the Axis get no undo at all.
  await fAxis.click('#roll-reserve-roll');
  await fAxis.waitForSelector('#act-reserve-choice');
  await fOrg.waitForSelector('#undo-not', { timeout: 5000 });
  check((await text(fOrg, '#undo-not')).includes('never undone'), 'the organizer sees why a server roll cannot be undone');
  check(await fAxis.locator('#undo').count() === 0, 'the side that rolled gets no undo for a server roll');
  await fAxis.waitForSelector('#undo-not', { timeout: 5000 }).catch(() => {});
  check(await fAxis.locator('#undo-not').count() === 1 && (await text(fAxis, '#undo-not')).includes('never undone'), 'and is told why');
  check(await caughtUp(fAllies, fx.id) && await fAllies.locator('#undo-not').count() === 0, 'the other side is not told of an undo that was never theirs');
  // The roll log's cells in words: who rolled (a server roll with the side's own number, said as such, not a
  // bare string of hex), and the kind of roll as a table names it.
  const logCells = await fAllies.evaluate(() => [...document.querySelectorAll('#roll-log tbody tr')].map((tr) => ({
    roll: tr.children[2].textContent, by: tr.children[5].textContent })));
  const serverBy = logCells.filter((c) => c.by.startsWith('the server'));
  check(serverBy.some((c) => c.by.includes(' number ')) && serverBy.every((c) => /^the server(with the (Allies|Axis)' number [0-9a-f]{8}…)?$/.test(c.by)) &&
    logCells.every((c) => ['What-if', 'Victory events', 'Pre-battle', 'Reserve'].includes(c.roll)),
    `the roll log says who rolled and what in words (${logCells.map((c) => `${c.roll}: ${c.by}`).join(' | ')})`);
  const refused = await (await fetch(`${BASE}/api/v1/campaigns/${fx.id}/undo`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${fx.organizer_key}` }, body: '{}' })).json();
  check(refused.code === 'not-undoable', 'and the server refuses it');
  // The Allies see they tapped their dice in wrong after the Axis let the server roll: the last
  // action is the Axis', yet the Allies' own table roll can be undone, and the Axis' roll stands.
  await fAllies.waitForSelector('#undo-roll-3', { timeout: 5000 }).catch(() => {});
  check(await fAxis.locator('[id^="undo-roll-"], [id^="undo-choice-"]').count() === 0, 'the Axis are offered nothing of the Allies\' to undo');
  const offered = await fAllies.locator('#undo-roll-3').count() === 1;
  if (offered) await fAllies.click('#undo-roll-3');
  check(offered && (await text(fAllies, '#confirm-undo-roll-3')).includes('your reserve roll for battle 1 (Star, Infantry)'), 'a side\'s own table roll is offered to undo after the other side rolled on the server');
  await fAllies.click('#confirm-undo-roll-3');
  await fAllies.waitForSelector('#act-reserve-roll .picker', { timeout: 5000 });
  await fOrg.waitForFunction(() => !document.querySelector('#undo-roll-3'), null, { timeout: 5000 }).catch(() => {});
  check(await fAllies.locator('#undo-roll-3').count() === 0 && await fOrg.locator('#undo-roll-3').count() === 0,
    'once undone, no page offers to undo that roll again');
  fRolls = await get(`/campaigns/${fx.id}/rolls`);
  check(fRolls.length === 4 && fRolls[2].voided === true && fRolls[3].voided !== true && fRolls[3].source === 'server',
    'undone: the Allies\' roll voided, the Axis\' server roll stands');
  for (const f of ['star', 'infantry']) await fAllies.click(`#act-reserve-roll .picker button[data-face="${f}"]`);
  await fAllies.click('#enter-reserve-roll');
  await fAllies.waitForSelector('#act-reserve-choice');
  await fAxis.waitForSelector('#act-reserve-choice');
  // What a side just did stays said at the top while the other side goes on at the same step:
  // the Axis choose, the Allies' page takes it and still says what the Allies rolled; the Allies
  // choose, the Axis' page still says what the Axis chose.
  await fAxis.click('#confirm-choice');
  const axisChoiceSeen = await fAllies.waitForFunction(() => !document.querySelector('#waiting').textContent.includes('Axis'), null, { timeout: 5000 }).then(() => true, () => false);
  check(axisChoiceSeen && (await text(fAllies, '#done')).startsWith('Your reserve roll: Star, Infantry'),
    `the Axis' reserve choice leaves the Allies' page saying what they rolled (${await text(fAllies, '#done')})`);
  await fAllies.click('#confirm-choice');
  const alliesChoiceSeen = await fAxis.waitForFunction(() => !document.querySelector('#waiting').textContent.includes('Allies'), null, { timeout: 5000 }).then(() => true, () => false);
  check(alliesChoiceSeen && (await text(fAxis, '#done')) === 'You took no reserves.',
    `the Allies' reserve choice leaves the Axis' page saying what they chose (${await text(fAxis, '#done')})`);
  // The Allies' choice undone from another phone and made anew, otherwise, while their page heard
  // of neither: once it reads again, it no longer says "You took no reserves." (a choice is
  // recorded, but not that one). Then put back as it was.
  await fAllies.route(/\?wait=25$/, () => {}); // the page hears of nothing
  await fAllies.evaluate(() => window.dispatchEvent(new Event('online')));
  const liveWhileHeld = await fAllies.waitForFunction(() => document.querySelector('#status').dataset.status === 'live', null, { timeout: 5000 }).then(() => true, () => false);
  check(liveWhileHeld, 'woken while its poll waits, the page still says Live (the poll aborted on purpose is no failure)');
  const alliesOption = (await get(`/campaigns/${fx.id}/battles/1`)).reserves.allies.options.find((o) => (o.costs ? o.costs[0] : o.cost) <= 2);
  const rechoose = async (options) => {
    await post(`/campaigns/${fx.id}/undo`, fx.organizer_key, {});
    await post(`/campaigns/${fx.id}/battles/1/reserve-choice`, fx.allies_key, { options });
  };
  await rechoose([{ id: alliesOption.id, grant: alliesOption.grants[0] }]);
  check((await get(`/campaigns/${fx.id}/battles/1`)).reserves.allies.chosen.length === 1, 'the Allies\' choice made anew from another phone');
  await fAllies.click('#refresh');
  await fAllies.waitForFunction(() => document.querySelector('#done').hidden, null, { timeout: 5000 })
    .then(() => check(true, 'a side\'s choice made anew elsewhere: its page no longer says what it chose before'))
    .catch(async () => check(false, `the Allies chose anew elsewhere, their page still says: ${await text(fAllies, '#done')}`));
  await fAllies.unroute(/\?wait=25$/);
  await rechoose([]);
  await fAllies.evaluate(() => window.dispatchEvent(new Event('online')));

  // A wrong result, recorded after a confirmation that names it, then undone by the organizer
  // (on a page that has heard of the choice undone and made anew, or it draws the form again).
  check(await caughtUp(fOrg, fx.id), 'the organizer\'s page hears of the choice undone and made anew');
  await fOrg.waitForSelector('#act-result', { timeout: 5000 });
  check(await fOrg.inputValue('#result-medals-allies') === '4' && await fOrg.inputValue('#result-medals-axis') === '0', 'the result starts from the medals to win');
  await fOrg.selectOption('#result-winner', 'axis');
  check(await fOrg.inputValue('#result-medals-axis') === '4' && await fOrg.inputValue('#result-medals-allies') === '3', 'changing the winner never leaves both sides at the medals to win');
  await fOrg.fill('#result-medals-allies', '1');
  await fOrg.click('#record-result');
  check((await text(fOrg, '#result-summary')).includes('Axis won battle 1') && (await text(fOrg, '#result-summary')).includes('Allies 1, Axis 4'), 'the confirmation names the winner and the medals');
  await shotBoth(fOrg, '11-result-confirm');
  await fOrg.click('#confirm-result');
  // Once the battle has its result, what the Axis chose before it is no longer said at the top.
  await fAxis.waitForFunction(() => document.querySelector('#done').hidden, null, { timeout: 5000 })
    .then(() => check(true, 'the battle\'s result clears a side\'s line on what it chose before it'))
    .catch(async () => check(false, `after the result, the Axis' page still says: ${await text(fAxis, '#done')}`));
  // The undo offered before the result (the Axis' choice) is on the page until the result's
  // answer redraws it: wait for the one that undoes the result.
  await fOrg.waitForFunction(() => (document.querySelector('#confirm-undo') || {}).textContent?.includes('the result of battle 1'), null, { timeout: 10000 });
  await fOrg.click('#undo');
  check((await text(fOrg, '#confirm-undo')).includes('the result of battle 1 (Axis won'), 'undoing names the result');
  await fOrg.click('#confirm-undo');
  await fOrg.waitForSelector('#act-result', { timeout: 5000 });
  let standing = await get(`/campaigns/${fx.id}`);
  check(standing.sides.axis.battles_won === 0 && standing.battles[0].phase === 'ready', 'the result is undone: nobody won, the battle is back to being played');
  await fOrg.selectOption('#result-winner', 'allies');
  await fOrg.fill('#result-medals-allies', '4');
  await fOrg.fill('#result-medals-axis', '1');
  await fOrg.click('#record-result');
  await fOrg.click('#confirm-result');
  await fOrg.waitForSelector('#act-new-battle');

  // The page's word on its connection follows what the server answers. A tap on Refresh, the
  // connection fine, never says "Reconnecting…"; while the long poll fails (here: refused on its
  // way), a read that the server answers says "Live" at once, not after the next poll.
  const watchStatus = () => fOrg.evaluate(() => {
    window.statusSeen = [];
    new MutationObserver(() => window.statusSeen.push(document.querySelector('#status').dataset.status))
      .observe(document.querySelector('#status'), { attributes: true, attributeFilter: ['data-status'] });
  });
  await watchStatus();
  await fOrg.click('#refresh');
  await new Promise((r) => setTimeout(r, 1500));
  let seen = await fOrg.evaluate(() => window.statusSeen);
  check(!seen.includes('reconnecting'), `a tap on Refresh never says Reconnecting… (${seen.join(', ') || 'no change'})`);
  await fOrg.route(/wait=25/, (route) => route.abort());
  await fOrg.click('#refresh');
  await fOrg.waitForFunction(() => document.querySelector('#status').dataset.status === 'reconnecting', null, { timeout: 10000 });
  await watchStatus();
  await fOrg.click('#refresh');
  await new Promise((r) => setTimeout(r, 500));
  seen = await fOrg.evaluate(() => window.statusSeen);
  check(seen.includes('live'), `a read the server answers says Live at once (${seen.join(', ') || 'no change'})`);
  await fOrg.unroute(/wait=25/);
  await fOrg.click('#refresh');

  // A short drop: the organizer offline while the battle is set up and rolled in elsewhere; back
  // online, the page shows it within seconds.
  await fOrg.context().setOffline(true);
  await fOrg.waitForFunction(() => document.querySelector('#status').dataset.status === 'offline', null, { timeout: 5000 });
  await shotBoth(fOrg, '12-offline');
  await post(`/campaigns/${fx.id}/battles`, fx.organizer_key, { scenario: 'Merville', first_player: 'axis', cards: { allies: 5, axis: 5 }, medals_to_win: 4 });
  await post(`/campaigns/${fx.id}/battles/2/victory-events`, fx.allies_key, {});
  await new Promise((r) => setTimeout(r, 3000));
  await fOrg.context().setOffline(false);
  const t0 = Date.now();
  await fOrg.waitForFunction(() => document.querySelector('#sec-battle h2').textContent.includes('Battle 2'), null, { timeout: 10000 });
  await fOrg.waitForFunction(() => document.querySelector('#status').dataset.status === 'live', null, { timeout: 10000 });
  check(true, `after a drop the page converges (${Date.now() - t0} ms after coming back)`);

  // An action taken offline waits on the phone, and is sent exactly once when back.
  await fAxis.waitForSelector('#roll-victory-events', { timeout: 5000 });
  await fAxis.context().setOffline(true);
  await fAxis.click('#roll-victory-events');
  await fAxis.waitForSelector('#queued', { timeout: 5000 });
  check((await text(fAxis, '#done')).includes('waits on this phone'), 'offline, the roll is queued and the page says so');
  check(await fAxis.$eval('#done', (el) => el.className) === 'done waits', 'and shows it as waiting, not as done');
  await shotBoth(fAxis, '13-queued-offline');
  const before = (await get(`/campaigns/${fx.id}/rolls`)).length;
  await fAxis.context().setOffline(false);
  await fAxis.waitForFunction(() => !document.querySelector('#queued'), null, { timeout: 15000 });
  await new Promise((r) => setTimeout(r, 3000));
  const after = await get(`/campaigns/${fx.id}/rolls`);
  check(after.length === before + 1 && after[after.length - 1].side === 'axis' && after[after.length - 1].purpose === 'victory_events', `sent once when back (${before} then ${after.length} rolls)`);
  // The faces named as the roll log has them (the die's face, capitalized).
  const sentFaces = after[after.length - 1].faces.map((f) => f[0].toUpperCase() + f.slice(1)).join(', ');
  const sentLine = await text(fAxis, '#done');
  check(sentLine === `Sent: your victory event roll: ${sentFaces}.`, `the page says it was sent, and what it rolled (${sentLine})`);
  check(await fAxis.$eval('#done', (el) => el.className) === 'done', 'and shows it as done once sent');

  // The long poll's answer arrives but the reads that follow it fail (a drop in between): the page
  // must not take the new version as seen, or every later poll gets 304 and it stays stale.
  await fOrg.route(/\/rolls$/, (route) => route.abort());
  await post(`/campaigns/${fx.id}/battles/2/reserve-roll`, fx.axis_key, { client_seed: 'drop' });
  await new Promise((r) => setTimeout(r, 2500));
  await fOrg.unroute(/\/rolls$/);
  await fOrg.waitForFunction(() => document.querySelector('#battle .reserve-side[data-side="axis"] .dice'), null, { timeout: 10000 });
  check(true, 'a poll answered but its follow-up reads failed: the page still converges');


  // A second phone of the Allies: what one does, the other shows.
  const fAllies2 = await newPage(phone, 'f-allies-2');
  await fAllies2.goto(`${BASE}/c/${fx.id}#key=${fx.allies_key}`);
  await openAll(fAllies2);
  // Faces tapped in, so that the same options are offered every run; the first one is taken.
  await fAllies.waitForSelector('#enter-reserve-roll', { timeout: 5000 });
  await fAllies.click('#act-reserve-roll .picker button[data-face="star"]');
  await fAllies.click('#act-reserve-roll .picker button[data-face="infantry"]');
  await fAllies.click('#enter-reserve-roll');
  await fAllies2.waitForSelector('#act-reserve-choice', { timeout: 5000 });
  await fAllies.waitForSelector('#confirm-choice');
  await fAllies.locator('#act-reserve-choice input[type="checkbox"]:not([disabled])').first().check();
  // The server restarting behind its proxy: the choice is answered by nginx's own 502 page (the
  // send and its one retry, then every try of the queue's) until the server is back, which the
  // test says only once it has read the page (the page tries again every 5 s: it must not get
  // through while the test reads). It waits on the phone, and is sent by itself once it can be.
  const choicePath = new RegExp(`/campaigns/${fx.id}/battles/2/reserve-choice$`);
  let gatewayDown = true;
  let badGateways = 0;
  let throughGateway = 0;
  await fAllies.route(choicePath, (route) => {
    if (!gatewayDown) { throughGateway++; return route.continue(); }
    badGateways++;
    return route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>' });
  });
  await fAllies.click('#confirm-choice');
  await fAllies.waitForSelector('#queued', { timeout: 5000 }).catch(() => {});
  const waitsWords = await text(fAllies, '#done');
  const whileQueued = await fAllies.evaluate(() => ({ queued: Boolean(document.querySelector('#queued')), line: document.querySelector('#waiting').textContent, title: document.title }));
  const sendsWhileDown = badGateways;
  gatewayDown = false;
  check(await fAllies.locator('#queued').count() === 1 && waitsWords.includes('cannot be reached just now, so it waits on this phone'),
    `the server behind its proxy not reached (502): the choice waits on the phone, in words (${waitsWords})`);
  // Done on the phone: no longer "Your turn" (the choice is made, it only waits to be sent).
  check(whileQueued.queued && !whileQueued.line.includes('Your turn') && whileQueued.line.includes('waits on this phone') && !whileQueued.title.includes('Your turn'),
    `while it waits, the page does not ask for it again (${whileQueued.line} | ${whileQueued.title})`);
  await fAllies.waitForFunction(() => !document.querySelector('#queued'), null, { timeout: 15000 }).catch(() => {});
  await fAllies.unroute(choicePath);
  const chosenOnce = (await get(`/campaigns/${fx.id}/battles/2`)).reserves.allies.chosen;
  // The reserve it gives, in the ruleset's words as the server serves them.
  const fxGrants = (await apiGet('/rulesets/standard')).grants;
  const grantText = (g) => (typeof fxGrants[g] === 'string' ? fxGrants[g] : fxGrants[g].text);
  const choiceSent = await text(fAllies, '#done');
  // Refused twice before it was queued (the send and its one retry), perhaps again by the queue
  // while the test read the page; then sent once.
  check(sendsWhileDown >= 2 && badGateways === sendsWhileDown && throughGateway === 1 && Array.isArray(chosenOnce) && chosenOnce.length === 1 && choiceSent === `Sent: your reserves: ${grantText(chosenOnce[0].grant)}.`,
    `and it is sent by itself once the server can be reached, and says what was chosen (${badGateways} refused, ${throughGateway} through; ${choiceSent})`);
  await fAllies2.waitForSelector('#act-reserve-choice', { state: 'detached', timeout: 5000 });
  check(!(await text(fAllies2, '#waiting')).includes('Your turn'), 'the second phone converges: no choice left to make');

  // A write that waited on the phone, sent by a page of the same campaign opened with another
  // link (the organizer's phone holds every link): it is said as the side's, never as "your".
  const qc = await post('/campaigns', null, { name: 'Two links', ruleset: 'standard', dice: 'either', reserve_tokens: { allies: 2, axis: 2 } });
  await post(`/campaigns/${qc.id}/battles`, qc.organizer_key, { scenario: 'Pegasus Bridge', first_player: 'allies', cards: { allies: 5, axis: 5 }, medals_to_win: 4 });
  const qPage = await newPage(phone, 'q-two-links');
  await qPage.goto(`${BASE}/c/${qc.id}#key=${qc.allies_key}`);
  await qPage.waitForSelector('#enter-reserve-roll', { timeout: 5000 });
  const qRoll = new RegExp(`/campaigns/${qc.id}/battles/1/reserve-roll$`);
  await qPage.route(qRoll, (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }));
  for (const f of ['star', 'armor']) await qPage.click(`#act-reserve-roll .picker button[data-face="${f}"]`);
  await qPage.click('#enter-reserve-roll');
  await qPage.waitForSelector('#queued', { timeout: 5000 });
  await qPage.goto('about:blank');
  await qPage.goto(`${BASE}/c/${qc.id}#key=${qc.axis_key}`);
  // The Axis page says the Allies' roll waits, and still offers the Axis' own roll.
  await qPage.waitForSelector('#queued-others', { timeout: 5000 });
  check(await qPage.locator('#queued').count() === 0 && await qPage.locator('#enter-reserve-roll').count() === 1,
    "a page opened while another link's write waits on the phone offers its own actions");
  // The Axis player taps a face in while the page sends the Allies' roll: once it is done, the
  // face is still there, after the page has read the campaign again (a tap on Refresh, after
  // the roll is said sent: any redraw the send would cause has happened by then).
  await qPage.click('#act-reserve-roll .picker button[data-face="flag"]');
  await qPage.evaluate(() => { window.e2eRollCard = document.querySelector('#act-reserve-roll'); });
  await qPage.unroute(qRoll);
  await qPage.waitForFunction(() => document.querySelector('#done').textContent.startsWith('Sent: ') && !document.querySelector('#queued-others:not([hidden])'), null, { timeout: 15000 }).catch(() => {});
  await qPage.evaluate(() => { window.e2eStanding = document.querySelector('#standing-allies'); });
  await qPage.click('#refresh');
  const qRead = await qPage.waitForFunction(() => document.querySelector('#standing-allies') !== window.e2eStanding, null, { timeout: 10000 }).then(() => true, () => false);
  const qKept = await qPage.evaluate(() => ({
    same: window.e2eRollCard === document.querySelector('#act-reserve-roll'),
    entered: [...document.querySelectorAll('#act-reserve-roll .entered button')].map((b) => b.getAttribute('aria-label')),
  }));
  check(qRead && qKept.same && qKept.entered.join() === 'Remove Flag (die 1)',
    `the Axis' face tapped in stays while the page sends the Allies' roll that waited, and after (${qKept.entered.join() || 'no face left'})`);
  const qRolls = await get(`/campaigns/${qc.id}/rolls`);
  const qLine = await text(qPage, '#done');
  check(qRolls.length === 1 && qRolls[0].side === 'allies' && qLine === "Sent: the Allies' reserve roll: Star, Armor.",
    `an Allies' roll that waited, sent from the Axis page of the same phone: said as the Allies' (${qLine})`);
  // One that can no longer be done when it is sent (its roll undone meanwhile, from the
  // organizer's phone): the Axis page says whose it was and why, not "your".
  await qPage.goto('about:blank');
  await qPage.goto(`${BASE}/c/${qc.id}#key=${qc.allies_key}`);
  await qPage.waitForSelector('#confirm-choice', { timeout: 5000 });
  const qChoice = new RegExp(`/campaigns/${qc.id}/battles/1/reserve-choice$`);
  await qPage.route(qChoice, (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }));
  await qPage.click('#confirm-choice');
  await qPage.waitForSelector('#queued', { timeout: 5000 });
  await post(`/campaigns/${qc.id}/undo`, qc.organizer_key, {});
  await qPage.goto('about:blank');
  await qPage.goto(`${BASE}/c/${qc.id}#key=${qc.axis_key}`);
  await qPage.waitForSelector('#queued-others', { timeout: 5000 });
  await qPage.unroute(qChoice);
  await qPage.waitForFunction(() => !document.querySelector('#queued-others:not([hidden])'), null, { timeout: 15000 }).catch(() => {});
  const qFailed = await text(qPage, '#done');
  const qChosen = (await get(`/campaigns/${qc.id}/battles/1`)).reserves.allies.chosen;
  check(qFailed.startsWith("With another link on this phone: the Allies' reserve choice could not be done: ") && !/\byour\b/i.test(qFailed) && !qChosen,
    `an Allies' choice that waited and can no longer be done, sent from the Axis page: said as the Allies', with why (${qFailed})`);
  check(await qPage.$eval('#done', (el) => el.className) === 'done refused', 'and shown as a refusal, not as done');
  // An answer that does not say plainly what was done gets no words of its own (the page then
  // says the write's name and "sent"): never "undefined", raw values or an id.
  const oddWords = await qPage.evaluate(async () => {
    const { sentWords } = await import('/assets/actions.js');
    const st = { rs: { grants: { 'infantry-unit': 'an infantry unit' } } };
    const roll = '/campaigns/x/battles/1/reserve-roll';
    return [
      sentWords(st, roll, { faces: [] }, true),
      sentWords(st, roll, { faces: ['star', 'seven'] }, true),
      sentWords(st, '/campaigns/x/what-if', { faces: ['star'], event: {} }, true),
      sentWords(st, '/campaigns/x/battles/1/pre-battle-roll', { faces: ['star'], hits: null }, true),
      sentWords(st, '/campaigns/x/battles/1/constructor', { faces: ['star'] }, true),
      sentWords(st, '/campaigns/x/battles/1/reserve-choice', { side: 'allies', chosen: [{ id: 'a', grant: 'no-such' }] }, true),
      sentWords(st, roll, { side: 'organizer', faces: ['star'] }, false),
      sentWords(st, roll, null, true),
    ];
  });
  check(oddWords.every((x) => x === null), `an oddly shaped answer gets no words of its own (${oddWords.filter((x) => x !== null).join(' | ')})`);

  // Two tabs of the same link, both cut off, each queue the Allies' reserve roll: once sent, the
  // first is done and the second refused; the page says both, in the order sent, not only the last,
  // even when the second finds the server restarting and goes 5 s later, in the next round.
  const tc = await post('/campaigns', null, { name: 'Two tabs', ruleset: 'standard', dice: 'either', reserve_tokens: { allies: 2, axis: 2 } });
  await post(`/campaigns/${tc.id}/battles`, tc.organizer_key, { scenario: 'Pegasus Bridge', first_player: 'allies', cards: { allies: 5, axis: 5 }, medals_to_win: 4 });
  const tPage = await newPage(phone, 't-two-tabs');
  const tPage2 = await newPage(phone, 't-two-tabs-2', tPage);
  const tRoll = new RegExp(`/campaigns/${tc.id}/battles/1/reserve-roll$`);
  const gateway = (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' });
  for (const p of [tPage, tPage2]) {
    await p.route(tRoll, gateway);
    await p.goto(`${BASE}/c/${tc.id}#key=${tc.allies_key}`);
    await p.waitForSelector('#enter-reserve-roll', { timeout: 5000 });
  }
  // Both tabs are tapped before either has queued its roll: a tab that has heard of a write of
  // its own link waiting (at its next 5 s round) offers that roll no more. So the second tab's
  // roll is held on its way (a slow network) while the first tab's is refused by the gateway and
  // queued; then it is refused too, and queued after it.
  let holdSecond;
  const secondHeld = new Promise((resolve) => { holdSecond = resolve; });
  let tSecondSends = 0;
  await tPage2.route(tRoll, (route) => (tSecondSends++ === 0 ? holdSecond(route) : gateway(route)));
  for (const f of ['infantry', 'armor']) await tPage2.click(`#act-reserve-roll .picker button[data-face="${f}"]`);
  await tPage2.click('#enter-reserve-roll');
  const tHeld = await secondHeld;
  for (const f of ['star', 'armor']) await tPage.click(`#act-reserve-roll .picker button[data-face="${f}"]`);
  await tPage.click('#enter-reserve-roll');
  await tPage.waitForSelector('#queued', { timeout: 5000 });
  await gateway(tHeld);
  await tPage2.waitForFunction(() => document.querySelector('#done').textContent.includes('waits on this phone'), null, { timeout: 5000 });
  const tQueued = await tPage.evaluate(async () => (await import('/assets/api.js')).queued().length);
  await tPage2.close();
  pages.splice(pages.findIndex(([n]) => n === 't-two-tabs-2'), 1);
  let tSends = 0;
  await tPage.route(tRoll, (route) => (tSends++ === 1 ? gateway(route) : route.continue()));
  await tPage.unroute(tRoll, gateway);
  await tPage.waitForFunction(() => !document.querySelector('#queued'), null, { timeout: 20000 }).catch(() => {});
  await caughtUp(tPage, tc.id);
  const tLine = await text(tPage, '#done');
  const tRolls = (await get(`/campaigns/${tc.id}/rolls`)).filter((r) => r.side === 'allies');
  const tAgain = await fetch(`${BASE}/api/v1/campaigns/${tc.id}/battles/1/reserve-roll`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tc.allies_key}` }, body: JSON.stringify({ faces: ['infantry', 'armor'] }) });
  const tWhy = tAgain.status === 409 ? (await tAgain.json()).detail : `(${tAgain.status})`;
  check(tQueued === 2 && tSends === 3 && tRolls.length === 1 && tRolls[0].faces.join() === 'star,armor'
    && tLine.startsWith("Sent: your reserve roll: Star, Armor. ") && tLine.endsWith(` could not be done: ${tWhy}`),
    `two writes of the same link that waited in two tabs, the second refused once sent: the page says both (${tSends} sends; ${tLine})`);
  // As a roll done at once, it stays said while the other side rolls.
  await post(`/campaigns/${tc.id}/battles/1/reserve-roll`, tc.axis_key, { faces: ['flag', 'flag'] });
  const tHeard = await caughtUp(tPage, tc.id);
  const tLater = await text(tPage, '#done');
  check(tHeard && tLater === tLine, `and it stays said while the Axis roll (${tLater || 'nothing said'})`);
  await closePages(['t-two-tabs']);

  // The page's own write and, after it in the same round, one made with another link of the
  // same campaign on this phone (the Axis tab): once sent, the page says both, in the order sent.
  const uc = await post('/campaigns', null, { name: 'Two links, one round', ruleset: 'standard', dice: 'either', reserve_tokens: { allies: 2, axis: 2 } });
  await post(`/campaigns/${uc.id}/battles`, uc.organizer_key, { scenario: 'Pegasus Bridge', first_player: 'allies', cards: { allies: 5, axis: 5 }, medals_to_win: 4 });
  const uPage = await newPage(phone, 'u-two-links');
  const uPage2 = await newPage(phone, 'u-two-links-2', uPage);
  const uRoll = new RegExp(`/campaigns/${uc.id}/battles/1/reserve-roll$`);
  // When the Axis tab first tries to send a roll (its round, every 5 s, sends what waits).
  let uAxisTries = 0;
  let uAxisFirstTry = 0;
  const uAxisGateway = (route) => { if (!uAxisTries++) uAxisFirstTry = Date.now(); return gateway(route); };
  for (const [p, key] of [[uPage, uc.allies_key], [uPage2, uc.axis_key]]) {
    await p.route(uRoll, p === uPage ? gateway : uAxisGateway);
    await p.goto(`${BASE}/c/${uc.id}#key=${key}`);
    await p.waitForSelector('#enter-reserve-roll', { timeout: 5000 });
  }
  // The Axis player has tapped one face in when the Allies' roll, in the other tab, is queued.
  // The Axis tab says at once that the roll waits (the browser tells it the queue changed),
  // before its next round (every 5 s) tries to send that roll too and reads the campaign again;
  // the faces tapped in stay through both, and the roll is still offered (a tab that drew its
  // actions again would lose them, and offer nothing more to tap).
  await uPage2.click('#act-reserve-roll .picker button[data-face="infantry"]');
  await uPage2.evaluate(() => {
    window.e2eRollCard = document.querySelector('#act-reserve-roll');
    const line = document.querySelector('#queued-others');
    new MutationObserver(() => { if (!line.hidden && !window.e2eOthersAt) window.e2eOthersAt = Date.now(); })
      .observe(line, { attributes: true, childList: true, characterData: true, subtree: true });
  });
  for (const f of ['star', 'armor']) await uPage.click(`#act-reserve-roll .picker button[data-face="${f}"]`);
  await uPage.click('#enter-reserve-roll');
  await uPage.waitForSelector('#queued', { timeout: 5000 });
  await uPage2.waitForSelector('#queued-others', { timeout: 15000 });
  const uOthersAt = await uPage2.evaluate(() => window.e2eOthersAt);
  const uSaidFirst = { said: Boolean(uOthersAt), tries: uAxisTries, before: !uAxisTries || uOthersAt < uAxisFirstTry };
  check(uSaidFirst.said && uSaidFirst.before,
    `the Axis tab says the Allies' roll waits as soon as the Allies tab queued it, before its own round tried to send it (${uSaidFirst.tries} tries then)`);
  // Then its round: it tries to send the roll, and reads the campaign again (its standing, the
  // battle and the rolls), and draws what it read.
  const uReread = ['', '/battles/1', '/rolls'].map((tail) => uPage2.waitForResponse((r) => r.request().method() === 'GET'
    && r.url().endsWith(`/api/v1/campaigns/${uc.id}${tail}`), { timeout: 15000 }).catch(() => null));
  for (let i = 0; i < 150 && !uAxisTries; i++) await new Promise((resolve) => { setTimeout(resolve, 100); });
  await Promise.all(uReread);
  await uPage2.evaluate(() => new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(resolve)); }));
  const uKept = await uPage2.evaluate(() => ({
    same: window.e2eRollCard === document.querySelector('#act-reserve-roll'),
    entered: [...document.querySelectorAll('#act-reserve-roll .entered button')].map((b) => b.getAttribute('aria-label')),
    queued: Boolean(document.querySelector('#queued')),
    words: document.querySelector('#queued-others').textContent,
  }));
  check(uAxisTries > 0 && uKept.same && uKept.entered.join() === 'Remove Infantry (die 1)' && !uKept.queued
    && uKept.words === "Waiting on this phone to be sent, made with another link: the Allies' reserve roll. It goes as soon as the server can be reached.",
    `the Allies' roll waiting on the phone leaves the Axis tab's half-entered roll as it was, its round included, and the tab says it waits (${uAxisTries} tries; ${uKept.entered.join() || 'no face left'}; ${uKept.words})`);
  await uPage2.click('#act-reserve-roll .picker button[data-face="grenade"]');
  await uPage2.click('#enter-reserve-roll');
  await uPage2.waitForSelector('#queued', { timeout: 5000 });
  await uPage2.close();
  pages.splice(pages.findIndex(([n]) => n === 'u-two-links-2'), 1);
  await uPage.unroute(uRoll, gateway);
  // Until nothing of the campaign waits: this page's own write (#queued) goes first, the Axis'
  // (said apart, #queued-others) after it.
  await uPage.waitForFunction(() => !document.querySelector('#queued') && !document.querySelector('#queued-others:not([hidden])'), null, { timeout: 20000 }).catch(() => {});
  await caughtUp(uPage, uc.id);
  const uLine = await text(uPage, '#done');
  const uRolls = await get(`/campaigns/${uc.id}/rolls`);
  check(uRolls.length === 2 && uLine === "Sent: your reserve roll: Star, Armor. Sent: the Axis' reserve roll: Infantry, Grenade.",
    `this page's own write and another link's after it, sent in one round: the page says both, in order (${uLine || 'nothing said'})`);
  await closePages(['u-two-links']);

  // Two tabs of one link: the Allies' roll made in the first waits on the phone, and the second
  // says so in place of its actions. When the first tab sends it, the second reads the campaign
  // before it draws its actions again: the roll is not offered again. (Its reads are held here
  // once the roll waits, so a tab that drew from the standing it had, the one before the roll,
  // would offer the roll.)
  const vc = await post('/campaigns', null, { name: 'Sent in another tab', ruleset: 'standard', dice: 'either', reserve_tokens: { allies: 2, axis: 2 } });
  await post(`/campaigns/${vc.id}/battles`, vc.organizer_key, { scenario: 'Pegasus Bridge', first_player: 'allies', cards: { allies: 5, axis: 5 }, medals_to_win: 4 });
  const vPage = await newPage(phone, 'v-sent-elsewhere');
  const vPage2 = await newPage(phone, 'v-sent-elsewhere-2', vPage);
  const vRoll = new RegExp(`/campaigns/${vc.id}/battles/1/reserve-roll$`);
  let vHold = false;
  const vHeld = [];
  await vPage2.route(new RegExp(`/api/v1/campaigns/${vc.id}(/[^?]*)?(\\?.*)?$`), async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    const response = await route.fetch({ timeout: 0 }).catch(() => null);
    if (!response) return route.abort().catch(() => {});
    if (vHold) await new Promise((resolve) => { vHeld.push(resolve); });
    return route.fulfill({ response }).catch(() => {});
  });
  for (const p of [vPage, vPage2]) {
    await p.route(vRoll, gateway); // only the first tab sends it, once let through
    await p.goto(`${BASE}/c/${vc.id}#key=${vc.allies_key}`);
    await p.waitForSelector('#enter-reserve-roll', { timeout: 5000 });
  }
  for (const f of ['star', 'armor']) await vPage.click(`#act-reserve-roll .picker button[data-face="${f}"]`);
  await vPage.click('#enter-reserve-roll');
  await vPage.waitForSelector('#queued', { timeout: 5000 });
  const vWaited = await vPage2.waitForSelector('#enter-reserve-roll', { state: 'detached', timeout: 15000 }).then(() => true).catch(() => false);
  await vPage2.evaluate(() => {
    window.e2eOffered = false;
    new MutationObserver(() => { if (document.querySelector('#enter-reserve-roll')) window.e2eOffered = true; })
      .observe(document.body, { childList: true, subtree: true });
  });
  vHold = true;
  await vPage.unroute(vRoll, gateway);
  await vPage.waitForFunction(() => !document.querySelector('#queued'), null, { timeout: 20000 }).catch(() => {});
  const vSent = (await get(`/campaigns/${vc.id}/rolls`)).length === 1;
  // What the second tab does on hearing of it, its reads held: nothing offered.
  await vPage2.waitForTimeout(1000);
  const vOfferedHeld = await vPage2.evaluate(() => window.e2eOffered);
  vHold = false;
  vHeld.splice(0).forEach((release) => release());
  // (Once let through, the reads held come in at once, some begun before the roll was sent: only
  // what the page shows once it caught up is asked of it then.)
  const vCaught = await caughtUp(vPage2, vc.id);
  const vOffered = await vPage2.evaluate(() => Boolean(document.querySelector('#enter-reserve-roll')));
  check(vWaited && vSent && vCaught && !vOfferedHeld && !vOffered,
    `a roll of this link sent from another tab is not offered again in this one while it reads the campaign, nor after (${vWaited ? 'waited' : 'never said it waits'}; ${vSent ? 'sent' : 'not sent'}; ${vOfferedHeld ? 'offered again while reading' : 'not offered while reading'}; ${vOffered ? 'offered after' : 'not offered after'})`);
  await closePages(['v-sent-elsewhere']);

  // A new Allies link: the old one is refused at once, the new one works, and its QR code reads.
  // Only a page whose own key's tag moved asks about its key again.
  const roleAsks = { org: 0, allies2: 0 };
  const countRoleAsks = (who) => (req) => { if (new URL(req.url()).pathname === `/api/v1/campaigns/${fx.id}/role`) roleAsks[who]++; };
  fOrg.on('request', countRoleAsks('org'));
  fAllies2.on('request', countRoleAsks('allies2'));
  const doneLine = (page) => page.evaluate(() => (document.querySelector('#done') || {}).textContent || '');
  const doneBefore = await doneLine(fAllies);
  await fOrg.click('#reissue-allies');
  await fOrg.click('#confirm-reissue-allies');
  await fOrg.waitForFunction((old) => document.querySelector('#link-allies') && !document.querySelector('#link-allies').value.endsWith(old), fx.allies_key, { timeout: 5000 });
  const newLink = await fOrg.inputValue('#link-allies');
  const oldRefused = await fetch(`${BASE}/api/v1/campaigns/${fx.id}/battles/2/reserve-roll`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${fx.allies_key}` }, body: '{}' });
  check(oldRefused.status === 401, 'the old Allies link is refused at once');
  // A page still open on the old link learns it live, without a tap, and offers nothing more.
  const learned = await fAllies2.waitForSelector('#key-error', { timeout: 5000 }).then(() => true, () => false);
  check(learned && (await text(fAllies2, '#key-error')).includes('replaced') && await fAllies2.locator('#actions button').count() === 0,
    'a page on the old link learns it was replaced without a tap, says so, and acts no more');
  // The page that said what the Allies chose no longer says it as theirs: it only reads now.
  await fAllies.waitForSelector('#key-error', { timeout: 5000 }).catch(() => {});
  const doneAfter = await doneLine(fAllies);
  check(/\byour\b/i.test(doneBefore) && !/\byour\b/i.test(doneAfter),
    `a page on the old link no longer speaks as the side once it only reads (before: "${doneBefore}"; after: "${doneAfter}")`);
  check(roleAsks.allies2 === 1 && roleAsks.org === 0,
    `only the page whose key was replaced asks about its key again (${roleAsks.allies2} on the old link's page, ${roleAsks.org} on the organizer's)`);
  check((await fOrg.inputValue('#link-reader')) === `${BASE}/c/${fx.id}` && await fAllies2.inputValue('#link-reader') === `${BASE}/c/${fx.id}`,
    'every page offers a read-only link to share, without a key');
  await fOrg.click('#show-qr-allies');
  await fOrg.waitForSelector('#qr-allies svg');
  await fOrg.locator('#sec-links').scrollIntoViewIfNeeded();
  await shotBoth(fOrg, '14-links-qr');
  const pixels = await fOrg.evaluate(async () => {
    const svgEl = document.querySelector('#qr-allies svg');
    const src = `data:image/svg+xml;base64,${btoa(new XMLSerializer().serializeToString(svgEl))}`;
    const img = new Image();
    await new Promise((ok, bad) => { img.onload = ok; img.onerror = bad; img.src = src; });
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 400;
    const g = canvas.getContext('2d');
    g.drawImage(img, 0, 0, 400, 400);
    return Array.from(g.getImageData(0, 0, 400, 400).data);
  });
  const decoded = jsQR(Uint8ClampedArray.from(pixels), 400, 400);
  check(decoded && decoded.data === newLink, `the QR code reads as the new link (${decoded ? decoded.data.slice(0, 60) : 'unreadable'})`);
  const fAllies3 = await newPage(phone, 'f-allies-new');
  await fAllies3.goto(newLink);
  await fAllies3.waitForSelector('#role');
  check((await text(fAllies3, '#role')).includes('Allies'), 'the new link opens the Allies page');

  // A wake-up (the phone unlocked, the network back) reads the campaign again once, then waits:
  // it does not ask again and again while nothing changes.
  const standingPath = `/api/v1/campaigns/${fx.id}`;
  let reads = 0;
  const countReads = (req) => { if (new URL(req.url()).pathname === standingPath) reads++; };
  fAllies3.on('request', countReads);
  await fAllies3.evaluate(() => window.dispatchEvent(new Event('online')));
  // (The flood this guards against asked hundreds of times a second.)
  await new Promise((r) => setTimeout(r, 2000));
  const onlineReads = reads;
  reads = 0;
  await fAllies3.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
  await new Promise((r) => setTimeout(r, 2000));
  fAllies3.off('request', countReads);
  check(onlineReads >= 1 && onlineReads <= 4 && reads >= 1 && reads <= 4, `a wake-up reads the campaign once, then waits (${onlineReads} reads in 2 s after coming online, ${reads} after waking)`);
  check(await fAllies3.evaluate(() => document.querySelector('#status').dataset.status) === 'live', 'and the page is live');

  // The key cannot be checked just when the page opens (the network drops, the server is busy):
  // the page goes on as the role this phone keeps the link for, keeps the link, says so, and asks
  // again by itself.
  const newKey = newLink.split('#key=')[1];
  const blip = await newPage(phone, 'f-allies-blip');
  await blip.goto(newLink);
  await blip.waitForSelector('#role');
  await blip.route(/\/role$/, (route) => route.abort());
  await blip.reload();
  await blip.waitForSelector('#key-unsure', { timeout: 10000 }).catch(() => {});
  const keptLinks = await blip.evaluate(() => localStorage.getItem('m44d:campaigns') || '');
  const unsure = await blip.locator('#key-unsure').count() ? await text(blip, '#key-unsure') : `no notice; ${await text(blip, '#sec-header')}`;
  check((await text(blip, '#role')).includes('Allies') && keptLinks.includes(newKey) && await blip.locator('#key-error').count() === 0
    && await blip.locator('#key-unsure').count() === 1,
    `a key that could not be checked is not taken for a refused one: the page stays the Allies', says so, the link is kept (${unsure})`);
  await blip.unroute(/\/role$/);
  const confirmed = await blip.waitForFunction(() => !document.querySelector('#key-unsure'), null, { timeout: 12000 }).then(() => true, () => false);
  check(unsure !== '' && confirmed && (await text(blip, '#role')).includes('Allies'), 'asked again by itself, the key is confirmed and the notice goes');

  // A page opened while the server cannot reach its database says so in words and shows the
  // campaign by itself once it can; a link to no campaign says that, not "try again".
  const notReady = await newPage(phone, 'f-not-ready');
  let refusedOnce = false;
  await notReady.route((url) => url.pathname === standingPath, (route) => {
    if (refusedOnce) return route.continue();
    refusedOnce = true;
    return route.fulfill({ status: 503, contentType: 'application/problem+json', headers: { 'Retry-After': '1' },
      body: JSON.stringify({ type: 'urn:m44d:problem:database-unavailable', title: 'Database unavailable', status: 503, detail: 'The database is unavailable; retry shortly.', code: 'database-unavailable' }) });
  });
  await notReady.goto(`${BASE}/c/${fx.id}`);
  await notReady.waitForSelector('#not-ready', { timeout: 5000 }).catch(() => {});
  const notReadyText = await notReady.locator('#not-ready').count() ? await text(notReady, '#not-ready') : await text(notReady, 'main');
  check(notReadyText.includes('cannot reach its database'), `the database away: said in words (${notReadyText})`);
  const back = await notReady.waitForSelector('#sec-now', { timeout: 10000 }).then(() => true, () => false);
  check(back, 'and the campaign shows by itself once it is back');
  // A link whose key was cut short on the way: said so, in words, without asking the server.
  await notReady.goto('about:blank');
  await notReady.goto(`${BASE}/c/${fx.id}#key=${newKey.slice(0, 10)}`);
  await notReady.waitForSelector('#key-error', { timeout: 5000 }).catch(() => {});
  const damaged = await notReady.locator('#key-error').count() ? await text(notReady, '#key-error') : 'no message';
  check(damaged.startsWith("This link's key is damaged") && (await text(notReady, '#role')).includes('no key'), `a link cut short says so (${damaged})`);
  await notReady.goto(`${BASE}/c/00000000-0000-4000-8000-000000000000`);
  await notReady.waitForSelector('#not-found', { timeout: 5000 });
  check((await text(notReady, '#not-found')).includes('No such campaign') && await notReady.locator('#not-found a[href="/"]').count() === 1, 'a link to no campaign says so, and where to go');
  // A link cut short before the end of its id, and an address that is nothing: said so in the
  // same words (the page itself answers 404), never the create page or the server's JSON.
  for (const [path, words] of [[`/c/${fx.id.slice(0, 20)}`, 'No such campaign'], [`/g/${fx.id.slice(0, 8)}`, 'No such grand campaign'], ['/campaigns', 'No such page']]) {
    const resp = await notReady.goto(`${BASE}${path}`);
    await notReady.waitForSelector('#not-found', { timeout: 5000 }).catch(() => {});
    const said = await notReady.locator('#not-found').count() ? await text(notReady, '#not-found') : await text(notReady, 'main');
    check(said.includes(words) && await notReady.locator('#create-form').count() === 0 && await notReady.locator('#not-found a[href="/"]').count() === 1,
      `${path} says "${words}" (${said.slice(0, 60)})`);
    if (path === '/campaigns') check(resp.status() === 404 && (resp.headers()['content-type'] || '').startsWith('text/html'), `an address that is nothing is a page with 404 (${resp.status()} ${resp.headers()['content-type']})`);
  }
  const busy = await notReady.evaluate(async () => {
    const { problemWords } = await import('/assets/words.js');
    return ['database-unavailable', 'database-read-only', 'outcome-unknown', 'shutting-down', 'busy', 'idempotency-key-reused'].map((code) =>
      problemWords({ message: 'Retry with the same Idempotency-Key.', code, status: 503 }));
  });
  check(busy.every((t) => !t.includes('Idempotency')) && busy.slice(0, 5).every((t) => t.includes('server')), `the server's "not now" answers in words (${busy[0]} / ${busy[5]})`);

  // A write refused because the page was behind (another phone acted meanwhile): the page is read
  // again, and the reason stays at the top even though the control it came from is redrawn.
  await fOrg.route(/\?wait=25$/, () => {}); // the page hears of nothing
  await fOrg.evaluate(() => window.dispatchEvent(new Event('online')));
  await fOrg.waitForSelector('#undo', { timeout: 5000 });
  const undoBefore = (await get(`/campaigns/${fx.id}`)).undo.what;
  await post(`/campaigns/${fx.id}/battles/2/reserve-choice`, fx.axis_key, { options: [] });
  await fOrg.click('#undo');
  await fOrg.click('#confirm-undo');
  await fOrg.waitForFunction(() => document.querySelector('#done').textContent.startsWith('Not done:'), null, { timeout: 5000 })
    .catch(() => {});
  const notDone = await text(fOrg, '#done');
  const undoAfter = (await get(`/campaigns/${fx.id}`)).undo.what;
  check(notDone.startsWith('Not done: Something was done meanwhile') && undoAfter !== undoBefore && undoAfter.includes('Axis'),
    `an undo decided on an older page is refused, the reason stays at the top (${notDone}), nothing is undone`);
  check(await fOrg.$eval('#done', (el) => el.className) === 'done refused', 'the refusal is shown as a refusal, not in the colours of something done');
  await fOrg.unroute(/\?wait=25$/);
  await fOrg.evaluate(() => window.dispatchEvent(new Event('online')));
  // It speaks of the campaign as the page read it then: a change made after it clears it (the
  // Axis' choice undone and made again, as it was).
  await caughtUp(fOrg, fx.id);
  await post(`/campaigns/${fx.id}/undo`, fx.organizer_key, {});
  await post(`/campaigns/${fx.id}/battles/2/reserve-choice`, fx.axis_key, { options: [] });
  const clearedHeard = await caughtUp(fOrg, fx.id);
  const afterChange = await text(fOrg, '#done');
  check(clearedHeard && !afterChange.startsWith('Not done:'), `and a change made after it clears it (${afterChange || 'nothing said'})`);

  // Back on the home page of the organizer's browser: the campaign and its links are there.
  await fOrg.goto(`${BASE}/`);
  await fOrg.waitForSelector(`#mine li[data-campaign="${fx.id}"]`);
  check(await fOrg.locator(`#mine li[data-campaign="${fx.id}"] a[data-role="organizer"]`).count() === 1, 'the home page keeps this device\'s links (Back loses nothing)');
  await shotBoth(fOrg, '15-home-mine');
  await fOrg.click(`#mine li[data-campaign="${fx.id}"] a[data-role="organizer"]`);
  await fOrg.waitForSelector('#role');
  check((await text(fOrg, '#role')).includes('Organizer'), 'and opens the campaign as organizer again');
  await openAll(fOrg); // the battles' history opens with the rest
  await fOrg.waitForSelector('#battle-1 .result');
  check((await text(fOrg, '#battle-1 .result')).includes('Allies won'), 'an earlier battle can be opened, with its result');
  await fOrg.locator('#battle-1').scrollIntoViewIfNeeded();
  await shotBoth(fOrg, '16-history');

  // Installable and offline-aware: the app shell comes from this phone's copy without a
  // connection, says so, and shows the campaign when the server can be reached again.
  check(await fAllies.evaluate(async () => Boolean(document.querySelector('link[rel=manifest]')) && Boolean(await navigator.serviceWorker.getRegistration())), 'a web app manifest and a service worker');
  await fAllies.waitForFunction(() => Boolean(navigator.serviceWorker.controller), null, { timeout: 10000 }).catch(async () => { await fAllies.reload(); });
  await fAllies.context().setOffline(true);
  await fAllies.reload();
  await fAllies.waitForSelector('#no-connection', { timeout: 10000 });
  await shotBoth(fAllies, '17-no-connection');
  await fAllies.context().setOffline(false);
  await fAllies.waitForSelector('#sec-now', { timeout: 10000 });
  check(true, 'offline, the page comes up from the phone and says so; back online it shows the campaign');

  // ---- a grand campaign, created from the home page, played into its second campaign ----
  const gHome = await newPage(desk, 'grand-home');
  await gHome.goto(`${BASE}/`);
  await gHome.waitForSelector('#grand-card');
  await gHome.click('#grand-card summary');
  await gHome.selectOption('#grand-ruleset', 'island-hoppers-grand');
  check((await text(gHome, '#grand-about')).includes('Guadalcanal, Marshall Islands'), 'the grand campaign\'s campaigns are named, in order');
  const grandDice = await gHome.locator('label[for^="grand-dice-"]').allInnerTexts();
  check(grandDice.join('|') === diceLabels.join('|'), `a grand campaign's dice choices read as a campaign's (${grandDice.join(' | ')})`);
  await gHome.fill('#grand-name', 'Pacific "war"');
  await gHome.fill('#grand-player-allies', 'Ann');
  await gHome.fill('#grand-player-axis', 'Bob');
  await gHome.click('#create-grand');
  await gHome.waitForSelector('#link-organizer');
  const gLinks = {};
  for (const r of ['organizer', 'allies', 'axis']) gLinks[r] = await gHome.inputValue(`#link-${r}`);
  check(Object.values(gLinks).every((l) => /\/g\/[0-9a-f-]{36}#key=[A-Za-z0-9_-]{43}$/.test(l)), 'a grand campaign: three links, to its page, each with its key');
  const gid = gLinks.organizer.match(/\/g\/([0-9a-f-]{36})/)[1];
  const gOrg = await newPage(desk, 'grand-organizer');
  await gOrg.goto(gLinks.organizer);
  await gOrg.waitForSelector('#start-next');
  check((await text(gOrg, '#start-next')).includes('Guadalcanal'), 'the organizer starts the first campaign from the grand campaign page');
  await gOrg.click('#start-next');
  await gOrg.waitForSelector('#open-current');
  await shotBoth(gOrg, '18-grand');
  // The group's chat: a link to this machine is refused by default, and the page says why.
  await openAll(gOrg);
  await gOrg.fill('#chat-url', 'http://127.0.0.1:9/hook');
  await gOrg.click('#chat-save');
  await gOrg.waitForFunction(() => (document.querySelector('#chat-error') || {}).textContent?.includes('private'), null, { timeout: 15000 });
  check((await text(gOrg, '#chat-state')).includes('127.0.0.1') && !(await gOrg.evaluate(() => document.body.innerText.includes('/hook'))), 'the chat shows its host only, and why a message was not delivered');
  // Each role opens the campaign being played from the grand campaign's page, with its key.
  const side = {};
  for (const r of ['organizer', 'allies', 'axis']) {
    const p = r === 'organizer' ? await newPage(desk, 'grand-c-organizer') : await newPage(phone, `grand-c-${r}`);
    await p.goto(gLinks[r]);
    await p.waitForSelector('#open-current');
    await p.click('#open-current');
    await p.waitForSelector('#role');
    check((await text(p, '#role')).includes(r === 'organizer' ? 'Organizer' : r === 'allies' ? 'Allies' : 'Axis') && (await text(p, '#grand-link')).includes('Campaign 1 of 4'), `the ${r} link of the grand campaign works in its first campaign`);
    side[r] = p;
  }
  const cOrg = side.organizer;
  await cOrg.fill('#battle-scenario', 'Henderson Field');
  await cOrg.selectOption('#battle-first', 'axis');
  await cOrg.fill('#battle-medals', '6');
  await cOrg.click('#create-battle');
  for (const r of ['allies', 'axis']) {
    await side[r].waitForSelector('#roll-reserve-roll', { timeout: 5000 });
    await side[r].click('#roll-reserve-roll');
    await side[r].waitForSelector('#confirm-choice');
    await side[r].click('#confirm-choice');
    await side[r].waitForSelector('#act-reserve-choice', { state: 'detached' });
  }
  await cOrg.waitForSelector('#act-result', { timeout: 5000 });
  await cOrg.selectOption('#result-winner', 'allies');
  await cOrg.fill('#result-medals-allies', '6');
  await cOrg.fill('#result-medals-axis', '3');
  await cOrg.click('#record-result');
  await cOrg.click('#confirm-result');
  await cOrg.waitForSelector('#finish');
  await cOrg.click('#finish');
  await cOrg.click('#confirm-finish');
  // The grand campaign's page learns of it live: 1 battle to 0 is a Major victory, 2 points.
  await gOrg.waitForSelector('#start-next', { timeout: 10000 });
  const first = gOrg.locator('#grand-campaigns li[data-place="1"]');
  check(await first.getAttribute('data-status') === 'finished' && await first.getAttribute('data-winner') === 'allies' && await first.getAttribute('data-points') === '2',
    `campaign 1 shows the Allies' win and its 2 points (${await first.innerText()})`);
  check((await first.innerText()).includes('Major'), 'with its grade, in words');
  check(await text(gOrg, '#grand-standing-allies [data-stat="points"]') === '2' && await text(gOrg, '#grand-standing-axis [data-stat="points"]') === '0', 'the standing: Allies 2 points, Axis 0');
  const pts = await gOrg.locator('#points-chart circle.point[data-side="allies"]').evaluateAll((els) => els.map((e) => e.dataset.value));
  check(pts.join(',') === '0,2', `the points chart: Allies 0 at the start, 2 after Guadalcanal (${pts.join(',')})`);
  check(await gOrg.locator('#grand-timeline li').count() === 1 && (await text(gOrg, '#grand-timeline li')).includes('Henderson Field'), 'the timeline has the battle');
  check((await text(gOrg, '#start-next')).includes('Marshall Islands'), 'the next campaign is Marshall Islands');
  // Its Reserve Tokens are the organizer's to give, as the book's page for it does: the rules'
  // own are filled in (2 each, rules/data/island-hoppers.json).
  check(await gOrg.inputValue('#next-tokens-allies') === '2' && await gOrg.inputValue('#next-tokens-axis') === '2', 'the next campaign offers its rules\' starting tokens');
  // Half-typed, then the phone wakes (the page reads the grand campaign again): what was typed stays.
  await gOrg.fill('#next-tokens-axis', '1');
  let grandReads = 0;
  const countGrandReads = (req) => { if (new URL(req.url()).pathname === `/api/v1/grand-campaigns/${gid}`) grandReads++; };
  gOrg.on('request', countGrandReads);
  await gOrg.evaluate(() => window.dispatchEvent(new Event('online')));
  await gOrg.waitForFunction(() => document.querySelector('#status').dataset.status === 'live', null, { timeout: 5000 }).catch(() => {});
  await new Promise((r) => setTimeout(r, 1500));
  gOrg.off('request', countGrandReads);
  check(grandReads >= 1 && await gOrg.inputValue('#next-tokens-axis') === '1', `the grand campaign read again after a wake-up (${grandReads} reads) keeps the tokens being typed`);
  await gOrg.fill('#next-tokens-allies', '');
  await gOrg.click('#start-next');
  await gOrg.waitForSelector('#next-error:not([hidden])', { timeout: 5000 }).catch(() => {});
  const emptyRefused = await gOrg.locator('#next-error:not([hidden])').count() ? await text(gOrg, '#next-error') : 'no refusal';
  check(emptyRefused === "Give the Allies' starting Reserve Tokens (0 or more).", `an empty token field is asked for in words (${emptyRefused})`);
  await gOrg.fill('#next-tokens-allies', '100');
  await gOrg.click('#start-next');
  await gOrg.waitForFunction(() => document.querySelector('#next-error').textContent.includes('starting tokens'), null, { timeout: 5000 });
  check((await text(gOrg, '#next-error')).includes("Allies' starting tokens"), `tokens out of range are refused in words (${await text(gOrg, '#next-error')})`);
  await gOrg.fill('#next-tokens-allies', '3');
  await gOrg.fill('#next-tokens-axis', '1');
  await shotBoth(gOrg, '18-grand-next-campaign');
  await gOrg.click('#start-next');
  await gOrg.waitForFunction(() => (document.querySelector('#current') || {}).textContent?.includes('Marshall Islands'), null, { timeout: 5000 });
  check((await text(gOrg, '#done')).startsWith('Marshall Islands has begun.'), 'the organizer is told the next campaign has begun');
  // Something done there since (its first battle set up from another phone): the top line goes.
  const marshall = (await apiGet(`/grand-campaigns/${gid}`)).current;
  const kwajalein = await post(`/campaigns/${marshall}/battles`, gLinks.organizer.split('#key=')[1],
    { scenario: 'Kwajalein', first_player: 'allies', cards: { allies: 5, axis: 5 }, medals_to_win: 6 });
  check(kwajalein.number === 1, `its first battle set up elsewhere (${JSON.stringify(kwajalein).slice(0, 120)})`);
  await gOrg.waitForFunction(() => !document.querySelector('#done'), null, { timeout: 10000 })
    .then(() => check(true, 'and that line goes once something is done there'))
    .catch(async () => check(false, `and that line goes once something is done there (it still says: ${await text(gOrg, '#done')})`));
  await gOrg.click('#open-current');
  await gOrg.waitForSelector('#grand-link');
  check((await text(gOrg, '#grand-link')).includes('Campaign 2 of 4') && (await text(gOrg, 'h1')).includes('Marshall Islands'), 'the second campaign is under way, with the same key');
  check((await text(gOrg, '#role')).includes('Organizer'), 'the organizer is the organizer there too');
  await gOrg.waitForSelector('#standing-allies [data-stat="reserve_tokens"]');
  check(await text(gOrg, '#standing-allies [data-stat="reserve_tokens"]') === '3' && await text(gOrg, '#standing-axis [data-stat="reserve_tokens"]') === '1', 'Marshall Islands starts with the tokens given: Allies 3, Axis 1');
  const gApi = await apiGet(`/grand-campaigns/${gid}`);
  check(gApi.campaigns[1].status === 'active' && gApi.points.allies === 2, 'the API agrees: campaign 2 active, Allies 2 points');
  await shotBoth(gOrg, '19-grand-second-campaign');

  // A lost link replaced from the campaign being played: the grand campaign's page on this
  // device shows the new one (one set of keys for the grand campaign and its campaigns).
  const roleOf = async (path, key) => {
    const r = await fetch(`${BASE}/api/v1${path}/role`, { headers: { Authorization: `Bearer ${key}` } });
    return r.status === 200 ? (await r.json()).role : r.status;
  };
  await openAll(gOrg);
  await gOrg.click('#reissue-allies');
  await gOrg.click('#confirm-reissue-allies');
  const oldAllies = gLinks.allies.split('#key=')[1];
  await gOrg.waitForFunction((old) => ((el) => el && !el.value.endsWith(old))(document.querySelector('#link-allies')), oldAllies, { timeout: 5000 });
  const alliesKey = (await gOrg.inputValue('#link-allies')).split('#key=')[1];
  await gOrg.goto(gLinks.organizer);
  await openAll(gOrg);
  await gOrg.waitForSelector('#link-allies');
  check(await gOrg.inputValue('#link-allies') === `${BASE}/g/${gid}#key=${alliesKey}` && await roleOf(`/grand-campaigns/${gid}`, alliesKey) === 'allies',
    'a link replaced in a campaign is the one the grand campaign\'s page offers');
  // Replaced from the grand campaign's page itself: refused everywhere at once, the new one works
  // in the campaign being played.
  const oldAxis = gLinks.axis.split('#key=')[1];
  const gAxisOld = await newPage(phone, 'grand-axis-old');
  await gAxisOld.goto(gLinks.axis);
  await gAxisOld.waitForSelector('#role');
  await gOrg.click('#reissue-axis');
  await gOrg.click('#confirm-reissue-axis');
  await gOrg.waitForFunction((old) => ((el) => el && !el.value.endsWith(old))(document.querySelector('#link-axis')), oldAxis, { timeout: 5000 });
  const axisKey = (await gOrg.inputValue('#link-axis')).split('#key=')[1];
  check(await roleOf(`/grand-campaigns/${gid}`, oldAxis) === 401 && await roleOf(`/campaigns/${marshall}`, oldAxis) === 401 &&
    await roleOf(`/campaigns/${marshall}`, axisKey) === 'axis' && (await text(gOrg, '#done')).includes('no longer works in any campaign'),
  'a link replaced from the grand campaign\'s page: the old one refused in its campaigns, the new one works, and the page says so');
  const gLearned = await gAxisOld.waitForSelector('#key-error', { timeout: 5000 }).then(() => true, () => false);
  check(gLearned && (await text(gAxisOld, '#key-error')).includes('replaced') && (await text(gAxisOld, '#role')).includes('no key'),
    'the grand campaign\'s page open on the old link learns it was replaced without a tap');
  // The organizer's own new link: the page goes on with it and asks about it once, then no more.
  let orgAsks = 0;
  gOrg.on('request', (req) => { if (new URL(req.url()).pathname === `/api/v1/grand-campaigns/${gid}/role`) orgAsks++; });
  const oldOrg = gLinks.organizer.split('#key=')[1];
  await gOrg.click('#reissue-organizer');
  await gOrg.click('#confirm-reissue-organizer');
  await gOrg.waitForFunction((old) => ((el) => el && !el.value.endsWith(old))(document.querySelector('#link-organizer')), oldOrg, { timeout: 5000 });
  await new Promise((r) => setTimeout(r, 1500));
  check(orgAsks === 1 && (await text(gOrg, '#role')).includes('Organizer') && await gOrg.locator('#key-error').count() === 0,
    `the organizer's own new link: the page goes on with it, asking about it once (${orgAsks})`);
  // Another link pasted into the same tab (only the part after # changes): the page is the new
  // link's, never left acting with the key it was opened with.
  await gOrg.evaluate((k) => { window.location.hash = `key=${k}`; }, axisKey);
  await gOrg.waitForFunction(() => (document.querySelector('#role') || {}).textContent?.includes('Axis'), null, { timeout: 5000 })
    .then(() => check(true, 'another link pasted into the same tab: the page becomes that link\'s'))
    .catch(async () => check(false, `another link pasted into the same tab: the page becomes that link's (it says: ${await text(gOrg, '#role')})`));

  // ---- a page's key: a replaced one never left acting, a new one never lost ----
  const kx = await post('/campaigns', null, { name: 'Keys', ruleset: 'standard', dice: 'either', reserve_tokens: { allies: 2, axis: 2 } });
  const keyOf = (page) => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('key');
  const roleNow = async (key) => {
    const r = await fetch(`${BASE}/api/v1/campaigns/${kx.id}/role`, { headers: { Authorization: `Bearer ${key}` } });
    return r.status === 200 ? (await r.json()).role : r.status;
  };
  // The Allies' link replaced while their page cannot ask about its key (the server busy): it
  // asks again by itself once it can, and learns it.
  const kAllies = await newPage(phone, 'keys-allies');
  await kAllies.goto(`${BASE}/c/${kx.id}#key=${kx.allies_key}`);
  await kAllies.waitForSelector('#role');
  let roleBusy = true;
  await kAllies.route(/\/role$/, (route) => (roleBusy ? route.fulfill({ status: 503, contentType: 'application/json', body: '{"code":"unavailable"}' }) : route.continue()));
  await post(`/campaigns/${kx.id}/keys/allies`, kx.organizer_key, {});
  await new Promise((r) => setTimeout(r, 3000));
  roleBusy = false;
  const learnedLater = await kAllies.waitForSelector('#key-error', { timeout: 15000 }).then(() => true, () => false);
  check(learnedLater && (await text(kAllies, '#key-error')).includes('replaced'),
    'a page whose key was replaced while it could not ask learns it by itself once it can');
  // Two tabs of the organizer on one device: a new organizer link made in one, the other goes
  // on with it instead of locking.
  const kOrg = await newPage(desk, 'keys-organizer');
  await kOrg.goto(`${BASE}/c/${kx.id}#key=${kx.organizer_key}`);
  await openAll(kOrg);
  const kOrg2 = await newPage(desk, 'keys-organizer-tab', kOrg);
  await kOrg2.goto(`${BASE}/c/${kx.id}#key=${kx.organizer_key}`);
  await kOrg2.waitForSelector('#role');
  await kOrg.click('#reissue-organizer');
  await kOrg.click('#confirm-reissue-organizer');
  await kOrg.waitForFunction((old) => ((el) => el && !el.value.endsWith(old))(document.querySelector('#link-organizer')), kx.organizer_key, { timeout: 5000 });
  const orgKey2 = keyOf(kOrg);
  const tabFollows = await kOrg2.waitForFunction((k) => window.location.hash === `#key=${k}` && (document.querySelector('#role') || {}).textContent?.includes('Organizer'), orgKey2, { timeout: 15000 }).then(() => true, () => false);
  check(tabFollows && await kOrg2.locator('#key-error').count() === 0 && await roleNow(orgKey2) === 'organizer',
    'another tab of the organizer on this device goes on with the new organizer link, not locked');
  // The answer to a new organizer link lost on the way (the server made it): the page gets it by
  // sending the same request again, and goes on as the organizer with it.
  // (One tab: the other tab would find the same kept request and could take the answer first.)
  await kOrg2.close();
  pages.splice(pages.findIndex(([n]) => n === 'keys-organizer-tab'), 1);
  let lost = 0;
  const keysPath = new RegExp(`/campaigns/${kx.id}/keys/organizer$`);
  await kOrg.route(keysPath, async (route) => {
    if (lost >= 2) { await route.continue(); return; }
    lost++;
    await route.fetch();
    await route.abort('failed');
  });
  await kOrg.click('#reissue-organizer');
  await kOrg.click('#confirm-reissue-organizer');
  // The page opens again with the new key (a navigation): watched from here, not from the page.
  let orgKey3 = null;
  for (let i = 0; i < 100 && !orgKey3; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const k = keyOf(kOrg);
    if (k && k !== orgKey2) orgKey3 = k;
  }
  await kOrg.waitForLoadState('load');
  const recovered = orgKey3 !== null && await kOrg.waitForFunction(() => (document.querySelector('#role') || {}).textContent?.includes('Organizer'), null, { timeout: 10000 }).then(() => true, () => false);
  check(recovered && lost === 2 && await kOrg.locator('#key-error').count() === 0 && await roleNow(orgKey3) === 'organizer' && await roleNow(orgKey2) === 401,
    `the answer to a new organizer link lost on the way: the page gets it again and goes on as the organizer (${lost} answers lost)`);

  // No internal id, file name or field path in any page's text.
  for (const [name, page] of pages) await checkWords(page, name);

  check(foreign.length === 0, `no request left the server (${foreign.slice(0, 3).join(', ')})`);
  check(consoleErrors.length === 0, `no script errors (${consoleErrors.slice(0, 3).join(' | ')})`);
} catch (e) {
  check(false, `the scenario ran to the end: ${e.stack || e}`);
  // What each page showed when it stopped.
  for (const [name, page] of pages) {
    try {
      await page.screenshot({ path: join(OUT, `failed-${name}.png`), fullPage: true });
      console.log(`--- ${name}: ${(await page.locator('#sec-now').innerText({ timeout: 1000 })).slice(0, 600)}`);
    } catch { /* closed */ }
  }
} finally {
  await browser.close();
  daemon.kill('SIGTERM');
  await new Promise((r) => daemon.on('exit', r));
}

console.log(`\ne2e: ${checks} checks, ${failures} failed; screenshots in ${OUT}`);
process.exit(failures ? 1 : 0);
