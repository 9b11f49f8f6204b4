// A campaign's page: what to do now at the top, the standing, the battle being played and every
// earlier one, the roll log, links to share, charts, dice statistics and verification. It
// stays current by long polling the campaign's ETag; after any error, offline time or sleep
// it reads everything again (no If-None-Match), so it always ends up showing what the server
// has. Its state is visible: live, reconnecting, or offline.
import { api, flushQueue, askKey, keyRefusedHere, keyTagMoved, onQueueChanged, openingRole, queued, reissueKey, versionOf, watch } from './api.js';
import { h, say, SIDES, SIDE_TITLE } from './dom.js';
import { diceRow, die } from './dice.js';
import { medalsChart, tokensChart } from './charts.js';
import { verifyRolls, diceStats } from './verify.js';
import { actionsPanel, afterRefusal, earlierUndos, holdsFor, queuedName, sentWords, undoAction, errorSlot, showError } from './actions.js';
import { battleCard, phaseBadge } from './battle.js';
import { linkCard, linkFor, readOnlyCard, reissueControl } from './share.js';
import { chatPanel } from './chat.js';
import { remember, keysFor, forgetKey, keepKey } from './store.js';
import { FACE_TITLE, KEY_UNSURE_WORDS, PHASE_WORDS, PURPOSE_WORDS, WHO, grantWords, waitingWords, needWords, sideTitle, problemWords } from './words.js';

const wide = () => window.matchMedia('(min-width: 48rem)').matches;

export async function showCampaign(main, id) {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const st = {
    id, key: params.get('key'), role: null, keyError: null, keyUnsure: false, c: null, etag: null, battle: null, rolls: [],
    rs: null, sig: null, main, sections: {}, done: '', doneVersion: 0, status: 'live', poll: null, wasMyTurn: false,
    history: new Map(),
  };
  // The top line: what this page just did, or why it was not done. `version`: the campaign's
  // version it speaks of (a write's own); a change made elsewhere after it clears the line, so
  // it never says "Your reserve roll: ..." of a roll the organizer has since undone. `holds(st)`,
  // when given, says whether the line is still true of a newer version (actions.js holdsFor): a
  // side's roll or reserve choice stays said while the other side rolls and chooses too.
  // `kind`: 'refused' (not done) or 'waits' (kept on this phone until it can be sent), each
  // shown in its own colour, not as done.
  st.setDone = (text, version, holds, kind) => {
    st.done = text || '';
    st.doneVersion = version || (st.c ? st.c.version : 0);
    st.doneHolds = holds || null;
    st.doneKind = kind || '';
    paintNow(st);
  };
  const queuedHere = () => queued().filter((q) => q.path.startsWith(`/campaigns/${id}/`));
  // Every write of this campaign waiting on this phone, whichever link made it: this page sends
  // them all (the link's own page may be closed).
  st.queueCount = () => queuedHere().length;
  // What this link did here that waits on this phone: its turn is taken, only not yet sent. Only
  // these change what the page offers (paintNow).
  st.queuedOwn = () => queuedHere().filter((q) => q.key === st.key).length;
  st.queuedMine = () => st.queuedOwn() > 0;
  // What other links of this campaign made on this phone and wait to be sent (a phone passed
  // round the table, the organizer's holding every link): that side's moves, only not sent yet.
  // Said beside this page's controls, which they leave as they are.
  st.queuedOthers = () => queuedHere().filter((q) => q.key !== st.key);
  st.queueChanged = () => { st.sig = null; update(st); };
  st.reload = (full) => reload(st, full);
  // Everything read again; a line said of the version still to be read (setDone with Infinity:
  // a refusal) then speaks of the version on screen, whether or not the read succeeded.
  st.rereadForLine = () => reload(st, true).catch(() => {}).finally(() => { if (st.doneVersion === Infinity) st.doneVersion = st.c.version; });
  // A key the server refuses now (the organizer gave the role a new link): the page goes on
  // read-only and says so, and this device forgets the old link (not a newer one it may hold
  // for the same role).
  // `key`: the key the refused request was sent with; if the page has gone on with another one
  // since (the organizer's own new link), only that old one is forgotten.
  // Before that, a key this device holds instead is taken, if any (keyInstead: this device's own
  // new link whose answer was lost, or one made in another tab): the page opens again with it.
  st.keyRefused = async (e, key = st.key) => {
    if (await keyRefusedHere(st, `/campaigns/${id}`, `/c/${id}`, key)) return;
    st.role = null;
    st.keyUnsure = false;
    st.keyError = problemWords(e);
    st.sig = null;
    st.undoSig = null;
    st.linksSig = null;
    // What this page did as that role is no longer its to say ("Your reserves: ..."): the key
    // line says why the page now only reads.
    st.setDone('');
    update(st);
  };
  // Only a refusal says the key does not work; when the server cannot be asked just now, the
  // page goes on as the role this device knows the key for, and asks again (checkKey). The
  // standing is read first: the key's tag in it is then no newer than the answer about the key.
  const first = await api('GET', `/campaigns/${id}`).catch((e) => { e.noSuchPage = e.status === 404; throw e; });
  Object.assign(st, await openingRole(`/campaigns/${id}`, id, st.key, first.data));
  if (st.key !== params.get('key')) window.history.replaceState(null, '', `/c/${id}#key=${st.key}`);
  try { st.rs = (await api('GET', `/rulesets/${first.data.ruleset}`)).data; } catch { st.rs = null; }
  const details = await loadDetails(st, first.data);
  st.c = first.data;
  st.battle = details.battle;
  st.rolls = details.rolls;
  st.etag = first.etag;
  st.shown = first.etag;
  if (st.role) remember(id, st.c.name, st.role, st.key);
  else if (st.keyError && st.key) forgetKey(id, st.key); // a link whose key no longer works
  build(st);
  live(st);
  window.addEventListener('online', () => { wake(st); sendQueued(st); });
  window.addEventListener('offline', () => setStatus(st, 'offline'));
  document.addEventListener('visibilitychange', () => { if (!document.hidden) wake(st); });
  // A write queued or sent in another tab: what waits on this phone is said here at once. When
  // one of this link's own left the queue (sent there), the campaign is read first: drawn from
  // the standing before it, the actions would offer for a moment what was just done.
  onQueueChanged(() => {
    if (st.queuedOwn() < st.paintedOwn) st.reload(false).catch(() => {}).finally(() => paintNow(st));
    else paintNow(st);
  });
  sendQueued(st);
  setInterval(() => {
    if (st.queueCount()) sendQueued(st);
    // Asked again while it could not be, and while a new tag of its key is not yet answered for.
    if (st.keyUnsure || keyTagMoved(st, st.c)) checkKey(st);
  }, 5000);
}

// Asks the server about the page's key again: after a wake-up, coming back online, a Refresh, a
// standing whose tag of the page's key changed (keyTagMoved), and every 5 s while it could not be
// asked. A refusal makes the page read-only; a role other than the one the page went on with
// reloads it (the parts a role sees differ).
async function checkKey(st) {
  const k = await askKey(st, `/campaigns/${st.id}`, st.c);
  if (!k) return;
  if (k.refused) { st.keyRefused(k.refused, k.key); return; }
  remember(st.id, st.c.name, k.role, st.key);
  if (k.role !== st.role) { window.location.reload(); return; }
  if (st.keyUnsure) {
    st.keyUnsure = false;
    fill(st.sections.header, header(st));
  }
  if (keyTagMoved(st, st.c)) checkKey(st); // a new key given while this one was asked about
}

// The battle and the rolls that go with a standing `c`.
async function loadDetails(st, c) {
  const n = c.current_battle || (c.battles.length ? c.battles[c.battles.length - 1].number : null);
  const [battle, rolls] = await Promise.all([
    n ? api('GET', `/campaigns/${st.id}/battles/${n}`) : Promise.resolve(null),
    api('GET', `/campaigns/${st.id}/rolls`),
  ]);
  return { battle: battle ? battle.data : null, rolls: rolls.data };
}

// A standing and everything read after it, taken as one: only when all of it is in, and only if
// it is not older than what the page shows (the live loop and a page's own re-read may cross).
// The live loop's news of the version already shown is not taken again: drawing the page anew
// would close what a player has open on it (a confirmation, say). Returns whether it was taken.
function commit(st, r, details, again = false) {
  if (st.c && (r.data.version < st.c.version || (r.data.version === st.c.version && !again))) {
    // What the page shows is as new: the next poll waits for a change to it (left without one,
    // it would be answered at once, again and again).
    st.etag = st.shown;
    return false;
  }
  const since = st.done && r.data.version > st.doneVersion; // something done since
  st.c = r.data;
  if (keyTagMoved(st, r.data)) checkKey(st);
  st.battle = details.battle;
  st.rolls = details.rolls;
  if (since && !(st.doneHolds && st.doneHolds(st))) st.done = '';
  st.etag = r.etag; // only now: every part of the page is as new as this version
  st.shown = r.etag; // the version on screen (a write decided on it sends it as If-Match)
  st.history.clear(); // earlier battles are read again when opened
  update(st);
  // The version on screen, for whoever needs to know the page has caught up (not shown).
  const status = document.getElementById('status');
  if (status) status.dataset.version = String(r.data.version);
  return true;
}

// Everything read again: a failure half-way changes nothing, so the page never believes it is
// current when it is not.
async function reload(st, full) {
  const r = await api('GET', `/campaigns/${st.id}`, { etag: full ? undefined : st.etag });
  setStatus(st, 'live'); // the server answered: the page need not wait for the next poll to say so
  if (r.status === 304) return;
  commit(st, r, await loadDetails(st, r.data), true);
}

function setStatus(st, status) {
  st.status = status;
  const el = document.getElementById('status');
  if (!el) return;
  const words = {
    live: 'Live: this page updates by itself',
    reconnecting: 'Reconnecting…',
    offline: 'Offline: what you do waits on this phone and is sent when you are back',
  };
  el.dataset.status = status;
  el.querySelector('.status-text').textContent = words[status];
}

// Read everything again now: after coming back online, waking up, or a tap on Refresh. The key
// is asked about again too: the organizer may have given this role a new link meanwhile.
function wake(st) {
  if (st.poll) st.poll.abort();
  st.etag = null;
  checkKey(st);
}

function live(st) {
  return watch(st, `/campaigns/${st.id}`, async (r) => {
    if (commit(st, r, await loadDetails(st, r.data))) {
      const words = waitingWords(st.c.waiting_for).join('; ');
      say(`Campaign updated${words ? `: waiting for ${words}` : ''}`);
    }
  }, (status) => setStatus(st, status));
}

// Queued actions, sent in order once the server can be reached.
function sendQueued(st) {
  if (!st.queueCount()) return;
  // What this round's writes said (roundLine), carried on when a flush stopped midway is taken
  // up again (and forgotten below if the line says something else by then).
  const said = [...(st.queuedSaid || [])];
  flushQueue((item, error, data, etag) => {
    // The queue holds every campaign's writes, made with every link this phone has: one of
    // another campaign, or made with another link of this one, is said as such. Every write of
    // the round is said, in the order sent (two tabs of the same link both queued one, or one
    // link's writes and another's).
    // What was said is forgotten once the line says something else (cleared as no longer true,
    // or the player's own action since).
    if (said.length && st.done !== roundLine(said)) said.length = 0;
    const here = item.path.startsWith(`/campaigns/${st.id}/`);
    const mine = here && item.key === st.key;
    const what = mine ? item.label : `${here ? 'With another link on this phone' : 'In another campaign'}: ${queuedName(item)}`;
    const sent = (here && !error && sentWords(st, item.path, data, mine)) || `${what}: sent.`;
    const words = error ? `${what} could not be done: ${problemWords(error)}` : sent;
    // A refusal speaks of the version the page reads after this round (as afterRefusal): one
    // made meanwhile by a write sent before it does not clear it at once.
    const version = error ? Infinity : here ? versionOf(etag) : 0;
    // Only this page's own writes done hold the line (see roundHolds); the rest ride along.
    const holds = mine && !error ? holdsFor(st, data) : null;
    said.push({ words, version, rides: !mine || Boolean(error), holds, failed: Boolean(error) });
    st.setDone(roundLine(said), ...roundHolds(said), said.some((p) => p.failed) ? 'refused' : '');
    // Only this link's own write answered changes what the page offers: another link's, once
    // done, is that side's move, and redraws the actions only if it changes what this key may
    // do (paintNow), as when it is made on another phone. (The Axis tab of a phone sending the
    // Allies' roll that waited must not wipe the faces the Axis player is tapping in.)
    if (mine) st.sig = null;
  }).then((how) => {
    if (how !== 'busy') st.queuedSaid = how === 'stopped' && said.length ? said : null;
    st.rereadForLine();
  });
}

const roundLine = (said) => said.map((p) => p.words).join(' ');

// The version and holds (see st.setDone) of that line: it stays while every write of this page's
// own link done in the round still stands, the others said along with them; from the earliest
// such write's version, so that a change made between two of them is checked too. Else it goes
// at the next change.
function roundHolds(said) {
  const done = said.filter((p) => !p.rides);
  if (done.length && done.every((p) => p.holds)) {
    return [Math.min(...done.map((p) => p.version)), (s) => done.every((p) => p.holds(s))];
  }
  return [Math.max(...said.map((p) => p.version)), null];
}

const SECTIONS = [
  ['now', 'Now', true], ['standing', 'Standing', true], ['battle', 'Battle', true], ['history', 'All battles', false],
  ['effects', 'What if? events', false], ['log', 'Roll log', false], ['links', 'Links', false],
  ['charts', 'Charts', false], ['stats', 'Dice statistics', false], ['verify', 'Verify the dice', false],
  ['chat', 'Group chat', false],
];

function build(st) {
  const header = h('section', { id: 'sec-header' });
  const status = h('div', { class: 'status', id: 'status', 'data-status': 'live', role: 'status' },
    h('span', { class: 'dot', 'aria-hidden': 'true' }), h('span', { class: 'status-text' }),
    h('button', { type: 'button', class: 'secondary small', id: 'refresh', onclick: () => { wake(st); reload(st, true).catch(() => setStatus(st, navigator.onLine ? 'reconnecting' : 'offline')); } }, 'Refresh'));
  st.sections.header = header;
  const parts = [header, status];
  for (const [key, title, open] of SECTIONS) {
    if (key === 'chat' && st.role !== 'organizer') continue; // the organizer's alone
    // On a phone the long parts start closed; what to do now never is.
    const body = h('div', { class: 'section-body' });
    const el = key === 'now' ? h('section', { id: `sec-${key}` }, h('h2', { text: title }), body)
      : h('details', { id: `sec-${key}`, open: open || wide() }, h('summary', {}, h('h2', { text: title })), body);
    st.sections[key] = body;
    st.sections[`${key}-el`] = el;
    parts.push(el);
  }
  st.main.replaceChildren(...parts);
  setStatus(st, 'live');
  // The chat panel keeps itself current; it is drawn once.
  if (st.sections.chat) st.sections.chat.append(chatPanel(`/campaigns/${st.id}`, st.key, 'this campaign'));
  update(st);
}

// Sections hold lists that may contain null / false (left out) and nested lists.
function fill(section, items) {
  section.replaceChildren(...[items].flat(Infinity).filter((x) => x !== null && x !== undefined && x !== false));
}

function update(st) {
  const myTurn = !st.queuedMine() && st.c.waiting_for.some((w) => w.startsWith(`${st.role}:`));
  document.title = `${myTurn ? '● Your turn — ' : ''}${st.c.name} — m44d`;
  if (myTurn && !st.wasMyTurn && st.sig !== null) {
    say('Your turn');
    if (navigator.vibrate) navigator.vibrate(200);
  }
  st.wasMyTurn = myTurn;
  fill(st.sections.header, header(st));
  paintNow(st);
  fill(st.sections.standing, standing(st));
  st.sections['battle-el'].querySelector('h2').textContent = st.battle ? `Battle ${st.battle.number}: ${st.battle.scenario}` : 'Battle';
  fill(st.sections.battle, st.battle ? [phaseBadge(st.battle), battleCard(st, st.battle, true)] : h('p', { class: 'muted', text: 'No battle yet.' }));
  // Opened parts stay open: the history and the links are drawn again only when they change.
  const historySig = JSON.stringify(st.c.battles);
  if (historySig !== st.historySig) {
    st.historySig = historySig;
    fill(st.sections.history, history(st));
  }
  fill(st.sections.effects, effects(st));
  fill(st.sections.log, rollLog(st));
  const linksSig = JSON.stringify([st.role, st.key, keysFor(st.id), st.c.status]);
  if (linksSig !== st.linksSig) {
    st.linksSig = linksSig;
    fill(st.sections.links, links(st));
  }
  fill(st.sections.charts, charts(st));
  fill(st.sections.stats, stats(st));
  if (!st.sections.verify.dataset.done) fill(st.sections.verify, verifyView(st));
}

// The top: what was just done, what to do next, the actions, and undo.
function paintNow(st) {
  const now = st.sections.now;
  if (!now) return;
  if (!st.nowParts) {
    st.nowParts = { done: h('p', { class: 'done', id: 'done', 'aria-live': 'polite' }), waiting: h('p', { id: 'waiting' }),
      others: h('p', { class: 'notice', id: 'queued-others', hidden: true }), actions: h('div'), undo: h('div', { id: 'undo-slot' }) };
    fill(now, [st.nowParts.done, st.nowParts.waiting, st.nowParts.others, st.nowParts.actions, st.nowParts.undo]);
  }
  st.nowParts.done.textContent = st.done;
  st.nowParts.done.className = st.doneKind ? `done ${st.doneKind}` : 'done';
  st.nowParts.done.hidden = !st.done;
  st.nowParts.waiting.textContent = waitingLine(st);
  const others = st.queuedOthers();
  st.nowParts.others.textContent = othersWaitingWords(others);
  st.nowParts.others.hidden = !others.length;
  // The action panel is rebuilt only when what this key may do changes, so a half-filled form,
  // half-entered dice or half-chosen reserves survive the other side's moves, those waiting on
  // this phone to be sent included: of the writes waiting, only this link's own count here.
  const c = st.c;
  const mine = c.waiting_for.filter((w) => w.startsWith(`${st.role}:`));
  // (Of the What-if events, and of the rolls a side may make once more, only this role's own:
  // another side's roll must not wipe the organizer's half-typed set-up.)
  const sig = JSON.stringify([st.role, c.status, c.current_battle, st.battle && st.battle.phase, mine, c.battles.length,
    Boolean(c.what_if_again && c.what_if_again[st.role]),
    c.effects.filter((e) => e.picked_by === st.role && !e.picked_battle).map((e) => e.id), c.next, st.queuedOwn()]);
  if (sig !== st.sig) {
    st.sig = sig;
    st.paintedOwn = st.queuedOwn(); // this link's writes waiting, as the actions were drawn
    st.nowParts.actions.replaceChildren(actionsPanel(st));
  }
  // (An earlier action undone leaves the last one as it was: what else may be undone is in it.)
  const undoSig = JSON.stringify([st.role, c.undo, earlierUndos(st).map((x) => x.id)]);
  if (undoSig !== st.undoSig) {
    st.undoSig = undoSig;
    fill(st.nowParts.undo, undoAction(st));
  }
}

// Writes of other links of this campaign waiting on this phone (`items`), in words: each named
// by the side whose link made it ("the Allies' reserve roll"; "an action" when the phone does
// not know whose, never a label that says "your").
function othersWaitingWords(items) {
  if (!items.length) return '';
  const names = items.map((q) => { const n = queuedName(q); return n === q.label ? 'an action' : n; });
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  const links = new Set(items.map((q) => q.key)).size === 1 ? 'another link' : 'other links';
  return `Waiting on this phone to be sent, made with ${links}: ${list}. ${names.length === 1 ? 'It goes' : 'They go'} as soon as the server can be reached.`;
}

function waitingLine(st) {
  const c = st.c;
  const mineNow = c.waiting_for.filter((w) => w.startsWith(`${st.role}:`)).map((w) => needWords(w.split(':')[1]));
  const others = waitingWords(c.waiting_for.filter((w) => !w.startsWith(`${st.role}:`)));
  if (c.status === 'finished') return outcomeWords(c);
  // A roll a side may make but need not (Forward Command): the others are told, so the next
  // battle is not set up without knowing (the roll is no longer possible then).
  const may = SIDES.filter((s) => s !== st.role && c.what_if_again && c.what_if_again[s])
    .map((s) => ` The ${SIDE_TITLE[s]} may roll the What-if die once more before the next battle is set up.`).join('');
  if (mineNow.length) {
    const mine = st.queuedMine() ? 'What you did waits on this phone to be sent.' : `Your turn: ${mineNow.join(', ')}.`;
    return `${mine}${others.length ? ` Also waiting for ${others.join('; ')}.` : ''}${may}`;
  }
  return `${others.length ? `Waiting for ${others.join('; ')}.` : 'Nothing to do.'}${may}`;
}

function outcomeWords(c) {
  const o = c.outcome;
  if (!o.winner) return 'The campaign is over: a draw.';
  return `The campaign is over: ${SIDE_TITLE[o.winner]} win${o.grade ? ` (${o.grade})` : ''}.`;
}

function header(st) {
  const c = st.c;
  const role = st.role ? h('span', { class: `badge ${st.role}`, id: 'role', text: `You are: ${WHO[st.role]}` })
    : h('span', { class: 'badge', id: 'role', text: 'Reading (no key)' });
  return [
    h('h1', { text: c.name }),
    grandLink(st),
    h('p', {}, role, ' ', h('span', { class: 'muted', text: `${c.ruleset_name} · dice: ${c.dice === 'server' ? 'rolled by the server' : c.dice === 'table' ? 'rolled at the table' : 'server or table'} · ${c.status === 'finished' ? 'finished' : 'in progress'}` })),
    st.keyError ? h('p', { class: 'error', role: 'alert', id: 'key-error', text: `${st.keyError} You can still read the campaign.` }) : null,
    st.keyUnsure ? h('p', { class: 'notice', role: 'status', id: 'key-unsure', text: KEY_UNSURE_WORDS }) : null,
  ];
}

// "Campaign 2 of 4 of <grand campaign>", linked to its page (with this page's key: the same).
function grandLink(st) {
  const gc = st.c.grand_campaign;
  if (!gc) return null;
  const href = `/g/${gc.id}${st.role && st.key ? `#key=${st.key}` : ''}`;
  const next = st.c.status === 'finished' && gc.of && gc.place < gc.of ? ' The next campaign starts from there.' : '';
  return h('p', { class: 'grand-link', id: 'grand-link' }, `Campaign ${gc.place}${gc.of ? ` of ${gc.of}` : ''} of `,
    h('a', { href, text: gc.name }), `.${next}`);
}

// ---- reading ----

function heldList(st, side, held) {
  if (!held.length) return null;
  return [h('h4', { text: 'Held for later' }), h('ul', { class: 'held', id: `held-${side}` }, held.map((x) => {
    const li = h('li', { 'data-held': x.id }, `${x.text} (won in battle ${x.battle}) `);
    if (st.role === 'organizer' && st.c.status === 'active') {
      const err = errorSlot();
      const b = h('button', { type: 'button', class: 'secondary', id: `use-held-${x.id}`, 'aria-label': `Mark ${x.text} of the ${SIDE_TITLE[side]} used` }, 'Mark used');
      b.addEventListener('click', async () => {
        err.hidden = true;
        b.disabled = true;
        try {
          const r = await api('POST', `/campaigns/${st.id}/held/${x.id}/use`, { key: st.key, body: {} });
          st.setDone(`Marked used: the ${SIDE_TITLE[side]}' ${x.text}.`, versionOf(r.etag));
          await reload(st, true);
        } catch (e) {
          showError(err, e);
          b.disabled = false;
          afterRefusal(st, e);
        }
      });
      li.append(b, err);
    }
    return li;
  }))];
}

function standing(st) {
  const c = st.c;
  const reserve = c.token_history.length > 0 || SIDES.some((s) => c.sides[s].reserve_tokens > 0);
  const points = st.rs && st.rs.outcome && (st.rs.outcome.rank_by || []).includes('victory_points');
  const played = c.battles.some((b) => b.phase === 'finished');
  return [h('div', { class: 'grid2' }, SIDES.map((s) => {
    const d = c.sides[s];
    return h('div', { class: `card side-${s}`, id: `standing-${s}` },
      h('h3', {}, SIDE_TITLE[s], d.player ? h('span', { class: 'muted', text: ` — ${d.player}` }) : null),
      h('dl', { class: 'stats' },
        h('dt', { text: 'Battles won' }), h('dd', { 'data-stat': 'battles_won', text: d.battles_won }),
        h('dt', { text: 'Medals' }), h('dd', { 'data-stat': 'medals', text: d.medals }),
        reserve ? [h('dt', { text: 'Reserve Tokens' }), h('dd', { 'data-stat': 'reserve_tokens', text: d.reserve_tokens })] : null,
        points && played ? [h('dt', { text: 'Victory points' }), h('dd', { 'data-stat': 'victory_points', text: d.victory_points })] : null),
      heldList(st, s, d.held || []));
  })), c.next ? h('p', { id: 'next' }, 'Next: ', h('strong', { text: c.next.scenario })) : null,
  c.next_by_winner ? h('p', { id: 'next' }, `Next: ${c.next_by_winner.allies === 'END' ? 'the end' : c.next_by_winner.allies} if the Allies win, ${c.next_by_winner.axis === 'END' ? 'the end' : c.next_by_winner.axis} if the Axis win.`) : null,
  c.campaign_over && c.status === 'active' ? h('p', { id: 'next', text: 'The scenario list has ended: the organizer can finish the campaign.' }) : null];
}

// Every battle, each opened on demand with everything it had.
function history(st) {
  const c = st.c;
  if (!c.battles.length) return h('p', { class: 'muted', text: 'No battle yet.' });
  return h('ol', { class: 'timeline', id: 'timeline' }, c.battles.map((b) => {
    const body = h('div', { class: 'history-body' });
    const det = h('details', { 'data-battle': b.number, id: `history-${b.number}` },
      h('summary', {}, h('strong', { text: `${b.number}. ${b.scenario}` }), ' — ',
        b.result ? `${SIDE_TITLE[b.result.winner]} won, medals Allies ${b.result.medals.allies}, Axis ${b.result.medals.axis}` : PHASE_WORDS[b.phase]),
      body);
    det.addEventListener('toggle', async () => {
      if (!det.open || body.firstChild) return;
      body.append(h('p', { class: 'muted', text: 'Loading…' }));
      try {
        const full = st.history.get(b.number) || (await api('GET', `/campaigns/${st.id}/battles/${b.number}`)).data;
        st.history.set(b.number, full);
        body.replaceChildren(battleCard(st, full, false));
      } catch (e) {
        body.replaceChildren(h('p', { class: 'error', text: problemWords(e) }));
      }
    });
    return h('li', {}, det);
  }));
}

function effects(st) {
  const c = st.c;
  if (!c.what_if && !c.effects.length) return h('p', { class: 'muted', text: 'This campaign is played without What-if events.' });
  const rolls = c.what_if_rolls || {};
  const names = {};
  for (const [eid, e] of Object.entries((st.rs && st.rs.what_if && st.rs.what_if.events) || {})) names[eid] = e.name;
  return [h('p', {}, SIDES.map((s) => h('span', { class: 'what-if-roll', 'data-side': s }, `${SIDE_TITLE[s]}: `,
    rolls[s] ? [die(rolls[s].face, { small: true }), ` ${names[rolls[s].event] || ''} `] : 'not rolled yet',
    rolls[s] && rolls[s].again ? [' and after battle ', rolls[s].again.after_battle, ': ', die(rolls[s].again.face, { small: true }), ` ${names[rolls[s].again.event] || ''}`] : null, ' '))),
  c.what_if_note ? h('p', { class: 'hint', id: 'what-if-note', text: c.what_if_note }) : null,
  c.effects.length ? h('ul', { id: 'effects' }, c.effects.map((e) => h('li', { 'data-event': e.id }, h('strong', { text: e.name }),
    h('span', { class: 'muted', text: ` (rolled by ${e.rolled_by.map((s) => SIDE_TITLE[s]).join(' and ')})` }), ` — ${e.text}`,
    e.picked_by ? h('p', { class: 'hint', text: e.picked_battle ? `The ${SIDE_TITLE[e.picked_by]} picked battle ${e.picked_battle}.` : `The ${SIDE_TITLE[e.picked_by]} have not picked the battle for it yet.` }) : null))) : null];
}

// Every roll, in order, with its client seed in words (a number that does not look random says
// somebody chose it); an undone table roll is struck through.
function rollLog(st) {
  if (!st.rolls.length) return h('p', { class: 'muted', text: 'No roll yet.' });
  return h('div', { class: 'table-wrap' }, h('table', { id: 'roll-log' },
    h('thead', {}, h('tr', {}, ['#', 'Side', 'Roll', 'Battle', 'Faces', 'Rolled by'].map((t) => h('th', { text: t })))),
    h('tbody', {}, st.rolls.map((r) => h('tr', { 'data-roll': r.n, class: r.voided ? 'voided' : null },
      h('td', { text: r.n }), h('td', { text: SIDE_TITLE[r.side] }), h('td', { text: PURPOSE_WORDS[r.purpose] || '' }),
      h('td', { text: r.battle || '—' }), h('td', {}, diceRow(r.faces, { small: true }), r.voided ? h('span', { class: 'hint', text: ' undone' }) : null),
      // (The side's own seed for a server roll, under it: what the check at the end uses. One
      // column fewer, so that the log fits a phone.)
      h('td', {}, r.source === 'server' ? 'the server' : 'the table',
        r.client_seed ? h('span', { class: 'seed' }, `with the ${SIDE_TITLE[r.side]}' number `,
          h('span', { class: 'mono', title: r.client_seed, text: r.client_seed.length > 10 ? `${r.client_seed.slice(0, 8)}…` : r.client_seed })) : null))))));
}

// Links to share. The organizer sees every link this device knows and can issue a new key for
// any role (the old link stops working); a side can share its own link to a second phone.
function links(st) {
  const c = st.c;
  if (!st.role) return readOnlyCard(st.id);
  const known = keysFor(st.id);
  if (st.key) known[st.role] = st.key;
  const roles = st.role === 'organizer' ? ['organizer', 'allies', 'axis'] : [st.role];
  const label = (r) => (r === 'organizer' ? 'Organizer' : SIDE_TITLE[r]);
  const out = [h('p', { class: 'hint', text: 'Each link holds a secret key after the #: whoever has it can act for that role. Share it only with that player.' })];
  for (const r of roles) {
    if (known[r]) out.push(linkCard(r, label(r), linkFor(st.id, known[r])));
    else out.push(h('p', { 'data-role': r, class: 'muted', text: `The ${label(r)} link is not on this device.` }));
    if (st.role === 'organizer' && c.status === 'active') out.push(reissue(st, r, label(r)));
  }
  out.push(readOnlyCard(st.id));
  return out;
}

function reissue(st, role, label) {
  return reissueControl(role, label, async () => {
    const key = st.key;
    // While the new link is being made, this page's key is not asked about: an answer about the
    // organizer's old key could come before the new one (then it is asked about after).
    st.keyMoving = true;
    try {
      const { data, etag } = await reissueKey(`/campaigns/${st.id}`, role, key);
      remember(st.id, st.c.name, role, data.key);
      // One set of keys for a grand campaign and every campaign of it.
      if (st.c.grand_campaign) keepKey([st.c.grand_campaign.id], role, data.key);
      st.setDone(`A new ${label} link: the old one no longer works. Share the new one below.`, versionOf(etag));
      if (role === 'organizer') {
        // This page's own key changed: go on with the new one.
        st.key = data.key;
        window.history.replaceState(null, '', `/c/${st.id}#key=${data.key}`);
      }
      st.linksSig = null;
      update(st);
      st.sections['links-el'].open = true;
    } catch (e) {
      afterRefusal(st, e, key);
      throw e;
    } finally {
      st.keyMoving = false;
      if (keyTagMoved(st, st.c)) checkKey(st);
    }
  });
}

function charts(st) {
  return h('div', { class: 'grid2' },
    h('div', { class: 'card' }, h('h3', { text: 'Medals per battle' }), medalsChart(st.c.battles)),
    h('div', { class: 'card' }, h('h3', { text: 'Reserve Tokens over the campaign' }), tokensChart(st.c.token_history, st.c.battles)));
}

function stats(st) {
  const rolls = st.rolls.filter((r) => !r.voided);
  const all = diceStats(rolls);
  const per = Object.fromEntries(SIDES.map((s) => [s, diceStats(rolls.filter((r) => r.side === s))]));
  const faces = ['infantry', 'armor', 'grenade', 'star', 'flag'];
  return h('div', { class: 'card table-wrap' },
    h('table', { id: 'dice-stats' },
      h('thead', {}, h('tr', {}, h('th', { text: 'Face' }), h('th', { class: 'num', text: 'Allies' }), h('th', { class: 'num', text: 'Axis' }), h('th', { class: 'num', text: 'All' }), h('th', { class: 'num', text: 'Fair dice' }))),
      h('tbody', {}, faces.map((f) => h('tr', { 'data-face': f }, h('td', {}, die(f, { small: true }), h('span', { class: 'face-name', text: ` ${FACE_TITLE[f]}` })),
        h('td', { class: 'num', text: per.allies.counts[f] }), h('td', { class: 'num', text: per.axis.counts[f] }),
        h('td', { class: 'num', text: all.counts[f] }), h('td', { class: 'num', text: all.expected[f].toFixed(1) }))))),
    h('p', { id: 'stats-words', text: `All ${all.total} dice: ${all.words}` }),
    SIDES.map((s) => h('p', { class: 'hint', text: `${SIDE_TITLE[s]} (${per[s].total} dice): ${per[s].words}` })));
}

function verifyView(st) {
  const c = st.c;
  const commit = h('p', {}, 'The seal (seed commitment): ', h('span', { class: 'mono', id: 'commitment', text: c.seed_commitment }));
  if (c.status !== 'finished') {
    return h('div', { class: 'card' }, commit, h('p', { class: 'hint', text: 'Before any roll, the server sealed its dice: it published this fingerprint (SHA-256) of its secret seed. When the campaign ends the seed is revealed, and every roll can be recomputed here.' }));
  }
  const result = h('div', { id: 'verify-result', 'aria-live': 'polite' });
  const button = h('button', { type: 'button', id: 'verify' }, 'Verify all rolls');
  button.addEventListener('click', async () => {
    button.disabled = true;
    result.textContent = 'Checking…';
    try {
      const rolls = (await api('GET', `/campaigns/${st.id}/rolls`)).data;
      const v = await verifyRolls(c.id, c.seeds, rolls, c.dice);
      const ok = v.rolls.filter((r) => r.status === 'ok').length;
      const bad = v.rolls.filter((r) => r.status === 'mismatch').length;
      const table = v.rolls.filter((r) => r.status === 'table').length;
      const unrevealed = v.rolls.filter((r) => r.status === 'unrevealed').length;
      const imported = v.rolls.filter((r) => r.status === 'imported').length;
      const byN = new Map(v.rolls.map((r) => [r.n, r]));
      const counts = `${ok} server roll${ok === 1 ? '' : 's'} verified, ${bad} mismatch${bad === 1 ? '' : 'es'}${table ? `, ${table} entered from the table` : ''}`;
      // Success only when every server roll was recomputed and matched.
      let verdict;
      if (bad || !v.seedsOk) verdict = { cls: 'verify-bad', text: `${v.seedsOk ? '' : 'A revealed seed does NOT match its commitment! '}Not verified: ${counts}.` };
      else if (unrevealed) verdict = { cls: 'verify-bad', text: `Not verified: ${unrevealed} server roll${unrevealed === 1 ? '' : 's'} cannot be checked, because this server does not have their seed: the campaign was brought in from a backup that did not hold it. ${counts}.` };
      else if (imported) verdict = { cls: 'verify-bad', text: `Not verified here: ${imported} server roll${imported === 1 ? ' was' : 's were'} made on another server before the campaign was brought here. ${imported === 1 ? 'It matches' : 'They match'} the seed that came with it, but this server never held that seed secret, so it cannot show the dice were not chosen. Check them on the server that rolled them. ${counts}.` };
      else if (!ok) verdict = { cls: 'verify-none', text: table ? `Nothing to verify: every roll was entered from the table, so there is no server roll to check. ${counts}.` : 'Nothing to verify: no dice were rolled in this campaign.' };
      else verdict = { cls: 'verify-ok', text: `Verified: the revealed seed matches its commitment, and every server roll is what it gives. ${counts}.` };
      result.replaceChildren(
        h('p', { id: 'verify-summary', class: verdict.cls, text: verdict.text }),
        h('div', { class: 'table-wrap' }, h('table', { id: 'verify-table' },
          h('thead', {}, h('tr', {}, h('th', { text: '#' }), h('th', { text: 'Side' }), h('th', { text: 'Roll' }), h('th', { text: 'Faces' }), h('th', { text: 'Check' }))),
          h('tbody', {}, rolls.map((r) => {
            const res = byN.get(r.n);
            const mark = { ok: '✓ verified', mismatch: '✗ mismatch', table: r.voided ? 'table roll, undone' : 'table roll', unrevealed: 'seed not revealed', imported: 'matches, rolled elsewhere' }[res.status];
            return h('tr', { 'data-roll': r.n, 'data-status': res.status }, h('td', { text: r.n }), h('td', { text: SIDE_TITLE[r.side] }),
              h('td', { text: PURPOSE_WORDS[r.purpose] || '' }), h('td', {}, diceRow(r.faces, { small: true })),
              h('td', { class: res.status === 'ok' ? 'verify-ok' : res.status === 'mismatch' ? 'verify-bad' : 'muted', text: mark }));
          })))));
      st.sections.verify.dataset.done = '1';
    } catch (e) {
      result.replaceChildren(h('p', { class: 'error', text: `Could not verify: ${problemWords(e)}` }));
      button.disabled = false;
    }
  });
  return h('div', { class: 'card' }, commit,
    h('p', {}, 'Revealed seed: ', h('span', { class: 'mono', id: 'server-seed', text: c.server_seed || '' })),
    h('p', { class: 'hint', text: 'Your browser recomputes every server roll from the revealed seed and compares it with the log.' }),
    button, result,
    h('p', { class: 'hint', id: 'verify-more' }, 'For the full check, ',
      h('a', { href: `/api/v1/campaigns/${st.id}/export`, download: `campaign-${st.id}.json`, text: 'save the campaign\'s record' }),
      ' and check it with the m44 verify command: it also replays the rules, to see how many dice each roll had and which seed was in force.'));
}

export { grantWords, sideTitle };
