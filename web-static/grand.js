// A grand campaign's page (/g/<id>#key=...): its campaigns in order with winner, grade and
// points, the one being played linked, the standing over all of it, a timeline of every
// battle, a points chart, the links to share and (for the organizer) the group's chat. It stays
// current by long polling the grand campaign's ETag, which moves with every campaign of it.
import { api, askKey, keyRefusedHere, keyTagMoved, openingRole, reissueKey, watch } from './api.js';
import { h, say, field, SIDES, SIDE_TITLE } from './dom.js';
import { pointsChart } from './charts.js';
import { chatPanel } from './chat.js';
import { errorSlot, showError } from './actions.js';
import { linkCard, linkFor, readOnlyCard, reissueControl } from './share.js';
import { remember, keysFor, forgetKey, keepKey } from './store.js';
import { KEY_UNSURE_WORDS, WHO, problemWords } from './words.js';

const wide = () => window.matchMedia('(min-width: 48rem)').matches;

const SECTIONS = [
  ['now', 'Now', true], ['campaigns', 'Campaigns', true], ['standing', 'Standing', true],
  ['timeline', 'All battles', false], ['chart', 'Points', false], ['links', 'Links', false], ['chat', 'Group chat', false],
];

export async function showGrand(main, id) {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const st = { id, key: params.get('key'), role: null, keyError: null, keyUnsure: false, g: null, etag: null, main, sections: {}, done: '', doneVersion: 0 };
  const first = await api('GET', `/grand-campaigns/${id}`).catch((e) => { e.noSuchPage = e.status === 404; throw e; });
  Object.assign(st, await openingRole(`/grand-campaigns/${id}`, id, st.key, first.data)); // as a campaign's page
  if (st.key !== params.get('key')) window.history.replaceState(null, '', `/g/${id}#key=${st.key}`);
  st.g = first.data;
  st.etag = first.etag;
  if (st.role) remember(id, st.g.name, st.role, st.key, true);
  else if (st.keyError && st.key) forgetKey(id, st.key);
  build(st);
  live(st);
  const wake = () => { if (st.poll) st.poll.abort(); checkKey(st); };
  window.addEventListener('online', wake);
  document.addEventListener('visibilitychange', () => { if (!document.hidden) wake(); });
  setInterval(() => { if (st.keyUnsure || keyTagMoved(st, st.g)) checkKey(st); }, 5000);
}

// Asks the server about the page's key again (see the campaign's page).
async function checkKey(st) {
  const k = await askKey(st, `/grand-campaigns/${st.id}`, st.g);
  if (!k) return;
  if (k.refused) {
    if (await keyRefusedHere(st, `/grand-campaigns/${st.id}`, `/g/${st.id}`, k.key)) return;
    st.role = null;
    st.keyUnsure = false;
    st.keyError = problemWords(k.refused);
    st.linksSig = null;
    update(st);
    return;
  }
  remember(st.id, st.g.name, k.role, st.key, true);
  if (k.role !== st.role) { window.location.reload(); return; }
  if (st.keyUnsure) {
    st.keyUnsure = false;
    update(st);
  }
  if (keyTagMoved(st, st.g)) checkKey(st);
}

function take(st, r) {
  if (r.status !== 200 || (st.g && r.data.version < st.g.version)) return false;
  st.g = r.data;
  st.etag = r.etag;
  if (keyTagMoved(st, r.data)) checkKey(st);
  if (st.done && r.data.version > st.doneVersion) st.done = ''; // something done since
  update(st);
  return true;
}

async function reload(st) {
  const r = await api('GET', `/grand-campaigns/${st.id}`);
  setStatus(st, 'live'); // the server answered (see the campaign's page)
  take(st, r);
}

function live(st) {
  return watch(st, `/grand-campaigns/${st.id}`, (r) => { if (take(st, r)) say('Grand campaign updated'); },
    (status) => setStatus(st, status));
}

function setStatus(st, status) {
  const el = document.getElementById('status');
  if (!el) return;
  const words = { live: 'Live: this page updates by itself', reconnecting: 'Reconnecting…', offline: 'Offline: this page shows the grand campaign when the server can be reached again' };
  el.dataset.status = status;
  el.querySelector('.status-text').textContent = words[status];
}

function build(st) {
  const header = h('section', { id: 'sec-header' });
  const status = h('div', { class: 'status', id: 'status', 'data-status': 'live', role: 'status' },
    h('span', { class: 'dot', 'aria-hidden': 'true' }), h('span', { class: 'status-text' }),
    h('button', { type: 'button', class: 'secondary small', id: 'refresh', onclick: () => reload(st).catch(() => {}) }, 'Refresh'));
  st.sections.header = header;
  const parts = [header, status];
  for (const [key, title, open] of SECTIONS) {
    if (key === 'chat' && st.role !== 'organizer') continue;
    const body = h('div', { class: 'section-body' });
    const el = key === 'now' ? h('section', { id: `sec-${key}` }, h('h2', { text: title }), body)
      : h('details', { id: `sec-${key}`, open: open || wide() }, h('summary', {}, h('h2', { text: title })), body);
    st.sections[key] = body;
    parts.push(el);
  }
  st.main.replaceChildren(...parts);
  setStatus(st, 'live');
  // The chat panel keeps itself current; it is drawn once.
  if (st.sections.chat) st.sections.chat.append(chatPanel(`/grand-campaigns/${st.id}`, st.key, 'this grand campaign'));
  update(st);
}

function fill(section, items) {
  section.replaceChildren(...[items].flat(Infinity).filter((x) => x !== null && x !== undefined && x !== false));
}

function update(st) {
  const g = st.g;
  const myTurn = st.role === 'organizer' && g.waiting_for.includes('organizer:next-campaign');
  document.title = `${myTurn ? '● Your turn — ' : ''}${g.name} — m44d`;
  fill(st.sections.header, header(st));
  // Drawn again only when what it shows changes: the organizer's half-typed tokens for the next
  // campaign survive a wake-up's re-read.
  const nowSig = JSON.stringify([st.role, st.done, outcomeWords(g), g.current, g.next, g.campaigns.map((c) => [c.status, c.name])]);
  if (nowSig !== st.nowSig) {
    st.nowSig = nowSig;
    fill(st.sections.now, now(st));
  }
  fill(st.sections.campaigns, campaigns(st));
  fill(st.sections.standing, standing(st));
  const sig = JSON.stringify(g.campaigns.map((c) => c.battles));
  if (sig !== st.timelineSig) {
    st.timelineSig = sig;
    fill(st.sections.timeline, timeline(st));
  }
  fill(st.sections.chart, pointsChart(g.campaigns));
  const linksSig = JSON.stringify([st.role, st.key, keysFor(st.id)]);
  if (linksSig !== st.linksSig) {
    st.linksSig = linksSig;
    fill(st.sections.links, links(st));
  }
}

function header(st) {
  const g = st.g;
  const role = st.role ? h('span', { class: `badge ${st.role}`, id: 'role', text: `You are: ${WHO[st.role]}` })
    : h('span', { class: 'badge', id: 'role', text: 'Reading (no key)' });
  const players = g.players.allies || g.players.axis ? ` · ${g.players.allies || 'Allies'} v ${g.players.axis || 'Axis'}` : '';
  return [
    h('h1', { text: g.name }),
    h('p', {}, role, ' ', h('span', { class: 'muted', text: `${g.grand_ruleset_name} · ${g.campaigns.length} campaigns${players} · ${g.status === 'finished' ? 'finished' : 'in progress'}` })),
    st.keyError ? h('p', { class: 'error', role: 'alert', id: 'key-error', text: `${st.keyError} You can still read the grand campaign.` }) : null,
    st.keyUnsure ? h('p', { class: 'notice', role: 'status', id: 'key-unsure', text: KEY_UNSURE_WORDS }) : null,
  ];
}

// The link to a campaign of it, with this page's key (the same in every campaign).
function campaignHref(st, cid) {
  return st.role ? `/c/${cid}#key=${st.key}` : `/c/${cid}`;
}

function outcomeWords(g) {
  const p = `Allies ${g.points.allies} point${g.points.allies === 1 ? '' : 's'}, Axis ${g.points.axis}`;
  if (g.status !== 'finished') return g.leader ? `${SIDE_TITLE[g.leader]} lead: ${p}.` : `Tied: ${p}.`;
  return g.winner ? `The grand campaign is over: ${SIDE_TITLE[g.winner]} win (${p}).` : `The grand campaign is over: a draw (${p}).`;
}

function now(st) {
  const g = st.g;
  const out = [st.done ? h('p', { class: 'done', id: 'done', text: st.done }) : null, h('p', { id: 'waiting', text: outcomeWords(g) })];
  const current = g.campaigns.find((c) => c.id && c.id === g.current);
  if (current && current.status === 'active') {
    out.push(h('p', { id: 'current' }, `Being played: campaign ${current.place} of ${g.campaigns.length}, `,
      h('strong', { text: current.name }), '. ',
      h('a', { href: campaignHref(st, current.id), id: 'open-current', class: 'button', text: `Open ${current.name}` })));
  }
  if (g.next) {
    if (st.role === 'organizer') out.push(startNext(st));
    else out.push(h('p', { id: 'next-campaign', text: `Next: ${g.next.name}, when the organizer starts it.` }));
  }
  return out;
}

// The organizer starts the next campaign, with the Reserve Tokens its page in the book gives
// each side (prefilled with its rules' own; none when its rules have no reserve roll).
function startNext(st) {
  const g = st.g;
  const err = errorSlot('next-error');
  const start = g.next.reserve_tokens;
  const tokens = start ? Object.fromEntries(SIDES.map((s) => [s, h('input', { type: 'number', id: `next-tokens-${s}`, min: 0, max: 99, value: start[s] })])) : null;
  const tokensBox = tokens ? h('fieldset', { id: 'next-tokens' }, h('legend', { text: `Reserve Tokens to start ${g.next.name} with` }),
    h('div', { class: 'row' }, SIDES.map((s) => field(SIDE_TITLE[s], tokens[s]))),
    h('p', { class: 'hint', text: 'As the book gives them for this campaign. Nothing carries over from the campaign before.' })) : null;
  const b = h('button', { type: 'button', id: 'start-next' }, `Start campaign ${g.next.place}: ${g.next.name}`);
  b.addEventListener('click', async () => {
    err.hidden = true;
    b.disabled = true;
    const empty = tokens ? SIDES.find((s) => tokens[s].value === '') : null;
    if (empty) {
      showError(err, { message: `Give the ${SIDE_TITLE[empty]}' starting Reserve Tokens (0 or more).` });
      b.disabled = false;
      tokens[empty].focus();
      return;
    }
    const body = tokens ? { reserve_tokens: Object.fromEntries(SIDES.map((s) => [s, Number(tokens[s].value)])) } : {};
    try {
      const { data } = await api('POST', `/grand-campaigns/${st.id}/next`, { key: st.key, body });
      st.done = `${data.name} has begun.${g.what_if ? ' Each side first rolls its What-if die there.' : ''}`;
      st.doneVersion = Infinity; // said until the grand campaign moves past this start
      // Begun, whatever the read after it does (the next poll shows it if this read fails).
      await reload(st).catch(() => {});
      st.doneVersion = st.g.version;
    } catch (e) {
      showError(err, e);
      b.disabled = false;
    }
  });
  const busy = g.campaigns.some((c) => c.status === 'active');
  return h('div', { class: 'actions', id: 'act-next-campaign' },
    busy ? h('p', { class: 'hint', text: 'The campaign being played must be finished first (on its page).' }) : null,
    tokensBox, b, err);
}

function campaigns(st) {
  const g = st.g;
  return h('ol', { class: 'timeline', id: 'grand-campaigns' }, g.campaigns.map((c) => {
    const won = c.battles_won;
    const result = c.status === 'finished'
      ? (c.winner ? `${SIDE_TITLE[c.winner]} won${c.grade ? `, a ${c.grade} victory` : ''}: ${c.points} point${c.points === 1 ? '' : 's'} (battles won ${won.allies}–${won.axis})` : `a draw (battles won ${won.allies}–${won.axis})`)
      : c.status === 'active' ? `being played (battles won ${won.allies}–${won.axis})` : 'not started';
    return h('li', { 'data-place': c.place, 'data-status': c.status, 'data-winner': c.winner || '', 'data-points': c.points, class: c.id === g.current ? 'current' : null },
      h('strong', {}, `${c.place}. `, c.id ? h('a', { href: campaignHref(st, c.id), text: c.name }) : c.name),
      ' — ', h('span', { class: 'grand-result', text: result }));
  }));
}

function standing(st) {
  const g = st.g;
  return [h('div', { class: 'grid2' }, SIDES.map((s) => h('div', { class: `card side-${s}`, id: `grand-standing-${s}` },
    h('h3', {}, SIDE_TITLE[s], g.players[s] ? h('span', { class: 'muted', text: ` — ${g.players[s]}` }) : null),
    h('dl', { class: 'stats' },
      h('dt', { text: 'Points' }), h('dd', { 'data-stat': 'points', text: g.points[s] }),
      h('dt', { text: 'Battles won' }), h('dd', { 'data-stat': 'battles_won', text: g.battles_won[s] }),
      h('dt', { text: 'Medals' }), h('dd', { 'data-stat': 'medals', text: g.medals[s] }))))),
  h('p', { class: 'hint', text: `A campaign won earns ${g.grades.map((x) => `${x.points} point${x.points === 1 ? '' : 's'} as a ${x.name} victory${x.min_ratio ? ` (at least ${x.min_ratio} times the loser's battles won)` : ''}`).join(', or ')}. Equal points: more battles won, then more medals.` })];
}

function timeline(st) {
  const all = st.g.campaigns.filter((c) => c.battles.length);
  if (!all.length) return h('p', { class: 'muted', text: 'No battle yet.' });
  return h('ol', { class: 'timeline', id: 'grand-timeline' }, all.flatMap((c) => c.battles.map((b) => h('li', { 'data-place': c.place, 'data-battle': b.number },
    h('span', { class: 'muted', text: `${c.name}, battle ${b.number}: ` }), h('strong', { text: b.scenario }), ' — ',
    b.result ? `${SIDE_TITLE[b.result.winner]} won, medals Allies ${b.result.medals.allies}, Axis ${b.result.medals.axis}` : 'being played'))));
}

function links(st) {
  if (!st.role) return readOnlyCard(st.id, 'g');
  const known = keysFor(st.id);
  known[st.role] = st.key;
  const roles = st.role === 'organizer' ? ['organizer', 'allies', 'axis'] : [st.role];
  const label = (r) => (r === 'organizer' ? 'Organizer' : SIDE_TITLE[r]);
  return [h('p', { class: 'hint', text: `Each link holds a secret key after the #: whoever has it can act for that role in every campaign of the grand campaign. Share it only with that player.${st.role === 'organizer' ? ' A lost link can be replaced here: the old one then stops working in every campaign.' : ''}` }),
    roles.map((r) => [known[r] ? linkCard(r, label(r), linkFor(st.id, known[r], 'g')) : h('p', { 'data-role': r, class: 'muted', text: `The ${label(r)} link is not on this device.` }),
      st.role === 'organizer' ? reissue(st, r, label(r)) : null]),
    readOnlyCard(st.id, 'g')];
}

// A new key for `role`, in every campaign of the grand campaign: kept on this device for the
// grand campaign and each of its campaigns it knows.
function reissue(st, role, label) {
  return reissueControl(role, label, async () => {
    const key = st.key;
    st.keyMoving = true; // as on a campaign's page
    try {
      const { data } = await reissueKey(`/grand-campaigns/${st.id}`, role, key);
      remember(st.id, st.g.name, role, data.key, true);
      keepKey(st.g.campaigns.filter((c) => c.id).map((c) => c.id), role, data.key);
      if (role === 'organizer') {
        st.key = data.key;
        window.history.replaceState(null, '', `/g/${st.id}#key=${data.key}`);
      }
      st.done = `A new ${label} link: the old one no longer works in any campaign of this grand campaign. Share the new one below.`;
      st.doneVersion = Infinity;
      st.linksSig = null;
      st.keyMoving = false;
      await reload(st).catch(() => {});
      st.doneVersion = st.g.version;
      update(st);
      st.sections.links.parentElement.open = true;
    } catch (e) {
      st.keyMoving = false;
      if (e.status === 401) checkKey(st);
      throw e;
    }
  });
}
