// The dashboard: "/" creates and lists campaigns; "/c/<id>#key=..." is a campaign's page,
// "/g/<id>#key=..." a grand campaign's.
import { api, ApiError } from './api.js';
import { h, field, SIDES, SIDE_TITLE } from './dom.js';
import { showCampaign } from './campaign.js';
import { showGrand } from './grand.js';
import { errorSlot, showError } from './actions.js';
import { linkCard, linkFor } from './share.js';
import { remember, remembered } from './store.js';
import { problemWords } from './words.js';

const main = document.getElementById('main');

async function home() {
  document.title = "m44d — Memoir '44 campaigns";
  const { data: rulesets } = await api('GET', '/rulesets');
  const ruleset = h('select', { id: 'ruleset', name: 'ruleset' },
    rulesets.map((r) => h('option', { value: r.id, text: r.name })));
  ruleset.value = 'standard';
  const about = h('p', { class: 'hint', id: 'ruleset-about', 'aria-live': 'polite' });
  const name = h('input', { type: 'text', id: 'name', name: 'name', required: true, maxlength: 200, autocomplete: 'off', placeholder: 'Normandy 1944' });
  const whatIf = h('input', { type: 'checkbox', id: 'what-if', name: 'what_if' });
  const whatIfRow = h('label', { class: 'choice', for: 'what-if' }, whatIf, 'Play with "What if?" events (both sides must agree)');
  const dice = diceChoice('dice');
  const tokens = { allies: h('input', { type: 'number', id: 'tokens-allies', min: 0, max: 99, value: 2 }), axis: h('input', { type: 'number', id: 'tokens-axis', min: 0, max: 99, value: 2 }) };
  const tokensBox = h('fieldset', { id: 'tokens' }, h('legend', { text: 'Starting Reserve Tokens' }),
    h('div', { class: 'row' }, field('Allies', tokens.allies), field('Axis', tokens.axis)));
  const players = { allies: h('input', { type: 'text', id: 'player-allies', maxlength: 100, autocomplete: 'off' }), axis: h('input', { type: 'text', id: 'player-axis', maxlength: 100, autocomplete: 'off' }) };
  const err = errorSlot('create-error');
  const result = h('section', { id: 'created', hidden: true });
  const submit = h('button', { type: 'submit', id: 'create' }, 'Create the campaign');

  // The form is sent only once the chosen ruleset is known here (whether it has Reserve Tokens).
  let rulesetLoads = 0;
  async function onRuleset() {
    const mine = ++rulesetLoads;
    submit.disabled = true;
    const r = rulesets.find((x) => x.id === ruleset.value);
    about.textContent = r ? r.description : '';
    whatIf.disabled = !r.what_if;
    if (!r.what_if) whatIf.checked = false;
    whatIfRow.classList.toggle('muted', !r.what_if);
    let doc;
    try {
      doc = (await api('GET', `/rulesets/${encodeURIComponent(r.id)}`)).data;
    } finally {
      if (mine === rulesetLoads) submit.disabled = false;
    }
    if (mine !== rulesetLoads) return; // another ruleset was chosen meanwhile
    const hasReserve = Boolean(doc.reserve);
    tokensBox.hidden = !hasReserve;
    const t = doc.reserve_tokens || { allies: 0, axis: 0 };
    tokens.allies.value = t.allies;
    tokens.axis.value = t.axis;
  }
  ruleset.addEventListener('change', onRuleset);

  const form = h('form', { id: 'create-form', novalidate: true, onsubmit: async (e) => {
    e.preventDefault();
    err.hidden = true;
    const body = {
      name: name.value.trim(),
      ruleset: ruleset.value,
      what_if: whatIf.checked,
      dice: dice.value(),
      players: { allies: players.allies.value.trim(), axis: players.axis.value.trim() },
    };
    if (!body.name) { showError(err, { message: 'Give the campaign a name.', field: 'name' }); name.focus(); return; }
    if (!tokensBox.hidden) {
      // An emptied field is not 0 tokens: say so rather than guess.
      const empty = SIDES.find((s) => tokens[s].value.trim() === '');
      if (empty) { showError(err, { message: `Give the ${SIDE_TITLE[empty]}' starting Reserve Tokens (0 or more).` }); tokens[empty].focus(); return; }
      body.reserve_tokens = { allies: Number(tokens.allies.value), axis: Number(tokens.axis.value) };
    }
    submit.disabled = true;
    try {
      const { data } = await api('POST', '/campaigns', { body });
      // Kept on this device, so that the links are never lost by going Back.
      for (const role of ['organizer', 'allies', 'axis']) remember(data.id, body.name, role, data[`${role}_key`]);
      form.parentElement.hidden = true;
      grandCard.hidden = true;
      showLinks(result, data, body.name);
      recent(list, rulesets);
    } catch (e2) {
      showError(err, e2);
    } finally {
      submit.disabled = false;
    }
  } },
  h('h1', { text: 'Create a campaign' }),
  field('Name', name),
  field('Ruleset', ruleset), about,
  whatIfRow,
  dice.el,
  tokensBox,
  h('fieldset', {}, h('legend', { text: 'Players' }), h('div', { class: 'row' }, field('Allies', players.allies), field('Axis', players.axis))),
  submit, err);

  const list = h('section', { id: 'recent' }, h('h2', { text: 'Campaigns on this server' }), h('p', { class: 'muted', text: 'Loading…' }));
  const grandCard = await grandForm(result, () => { form.parentElement.hidden = true; grandCard.hidden = true; });
  main.replaceChildren(...[mine(rulesets), h('div', { class: 'card' }, form), grandCard, result, list].filter(Boolean));
  await onRuleset();
  recent(list, rulesets);
}

// The campaigns this device has links for: each role's link, to open again.
function mine() {
  const list = remembered().filter((c) => Object.keys(c.keys).length);
  if (!list.length) return null;
  const label = { organizer: 'as organizer', allies: 'as the Allies', axis: 'as the Axis' };
  return h('section', { id: 'mine', class: 'card' }, h('h2', { text: 'Your campaigns on this device' }),
    h('ul', { class: 'timeline' }, list.map((c) => h('li', { 'data-campaign': c.id }, h('strong', { text: c.name || 'A campaign' }), ' — ',
      c.grand ? h('span', { class: 'muted', text: '(grand campaign) ' }) : null,
      ['organizer', 'allies', 'axis'].filter((r) => c.keys[r]).map((r, i) => [i ? ' · ' : '', h('a', { href: `/${c.grand ? 'g' : 'c'}/${c.id}#key=${c.keys[r]}`, 'data-role': r, text: `open ${label[r]}` })])))),
    h('p', { class: 'hint', text: 'Kept only in this browser. A link that was lost can be replaced by the organizer (Links, on the campaign page).' }));
}

// A grand campaign: campaigns of the book played in order by one group, scored together.
async function grandForm(result, hideForms) {
  let grands = [];
  try { grands = (await api('GET', '/grand-rulesets')).data; } catch { grands = []; }
  if (!grands.length) return h('div', { hidden: true });
  const ruleset = h('select', { id: 'grand-ruleset' }, grands.map((g) => h('option', { value: g.id, text: g.name })));
  const about = h('p', { class: 'hint', id: 'grand-about', 'aria-live': 'polite' });
  const name = h('input', { type: 'text', id: 'grand-name', required: true, maxlength: 200, autocomplete: 'off', placeholder: 'Our Pacific war' });
  const whatIf = h('input', { type: 'checkbox', id: 'grand-what-if' });
  const whatIfRow = h('label', { class: 'choice', for: 'grand-what-if' }, whatIf, 'Roll "What if?" events before each campaign (both sides must agree)');
  const dice = diceChoice('grand-dice');
  const players = { allies: h('input', { type: 'text', id: 'grand-player-allies', maxlength: 100, autocomplete: 'off' }), axis: h('input', { type: 'text', id: 'grand-player-axis', maxlength: 100, autocomplete: 'off' }) };
  const err = errorSlot('grand-error');
  const submit = h('button', { type: 'submit', id: 'create-grand' }, 'Create the grand campaign');
  const onRuleset = () => {
    const g = grands.find((x) => x.id === ruleset.value);
    about.textContent = g ? `${g.description} Campaigns, in order: ${g.parts.map((p) => p.name).join(', ')}.` : '';
    whatIf.disabled = !g || !g.what_if;
    if (whatIf.disabled) whatIf.checked = false;
    whatIfRow.classList.toggle('muted', whatIf.disabled);
  };
  ruleset.addEventListener('change', onRuleset);
  onRuleset();
  const form = h('form', { id: 'grand-form', novalidate: true, onsubmit: async (e) => {
    e.preventDefault();
    err.hidden = true;
    const body = {
      name: name.value.trim(), grand_ruleset: ruleset.value, what_if: whatIf.checked,
      dice: dice.value(),
      players: { allies: players.allies.value.trim(), axis: players.axis.value.trim() },
    };
    if (!body.name) { showError(err, { message: 'Give the grand campaign a name.', field: 'name' }); name.focus(); return; }
    submit.disabled = true;
    try {
      const { data } = await api('POST', '/grand-campaigns', { body });
      for (const role of ['organizer', 'allies', 'axis']) remember(data.id, body.name, role, data[`${role}_key`], true);
      hideForms();
      showLinks(result, data, body.name, true);
    } catch (e2) {
      showError(err, e2);
    } finally {
      submit.disabled = false;
    }
  } },
  h('p', { class: 'hint', text: 'Linked campaigns played in order by the same group: each campaign won earns points, and the grand campaign has a winner.' }),
  field('Name', name), field('Grand campaign', ruleset), about, whatIfRow,
  dice.el,
  h('fieldset', {}, h('legend', { text: 'Players' }), h('div', { class: 'row' }, field('Allies', players.allies), field('Axis', players.axis))),
  submit, err);
  return h('details', { class: 'card', id: 'grand-card' }, h('summary', {}, h('strong', { text: 'Create a grand campaign instead' })), form);
}

// Who rolls the dice, in players' words: the same choice for a campaign and a grand campaign.
const DICE_CHOICES = [
  ['server', 'This server', 'rolls every die, in a way anyone can check once the campaign ends'],
  ['table', 'The table', 'you roll real dice at the table and tap in the faces'],
  ['either', 'Either', 'each roll may be either'],
];
function diceChoice(name) {
  const radios = DICE_CHOICES.map(([d]) => h('input', { type: 'radio', name, value: d, id: `${name}-${d}`, checked: d === 'server' }));
  const el = h('fieldset', {}, h('legend', { text: 'Who rolls the dice' }),
    radios.map((r, i) => h('label', { class: 'choice', for: r.id }, r, h('span', {}, h('strong', { text: DICE_CHOICES[i][1] }), ` — ${DICE_CHOICES[i][2]}`))));
  return { el, value: () => radios.find((r) => r.checked).value };
}

function showLinks(el, data, name, grand = false) {
  const rows = [['organizer', 'Organizer (sets up battles, records results, finishes)'], ['allies', 'Allies'], ['axis', 'Axis']];
  el.hidden = false;
  el.replaceChildren(h('div', { class: 'card links' },
    h('h1', { text: `“${name}” is ready` }),
    h('p', {}, h('strong', { text: 'Send each side its own link.' }),
      ' Each holds a secret key after the # (it never reaches a server log). This browser keeps them too: they are listed on this page, and the organizer can replace a lost one.'),
    grand ? h('p', { class: 'hint', text: 'The same links work in every campaign of it.' }) : null,
    rows.map(([role, label]) => linkCard(role, label, linkFor(data.id, data[`${role}_key`], grand ? 'g' : 'c'))),
    grand ? null : h('p', { class: 'hint' }, 'The dice this server rolls are sealed before the first roll, so that anyone can check every one of them once the campaign ends. The seal: ', h('span', { class: 'mono', text: data.seed_commitment })),
    h('p', {}, h('a', { href: data.links.organizer, id: 'open-organizer', text: grand ? 'Open the grand campaign as organizer' : 'Open the campaign as organizer' }))));
  el.querySelector('input').focus();
}

async function recent(el, rulesets) {
  const rulesetName = (id) => (rulesets.find((r) => r.id === id) || { name: 'a ruleset of its own' }).name;
  try {
    const { data } = await api('GET', '/campaigns?limit=20');
    const items = data.campaigns.map((c) => h('li', {},
      h('a', { href: `/c/${c.id}`, text: c.name }), ' ',
      h('span', { class: 'muted', text: `${rulesetName(c.ruleset)} · ${c.status === 'finished' ? 'finished' : 'in progress'} · ${c.players.allies || 'Allies'} v ${c.players.axis || 'Axis'}` })));
    el.replaceChildren(h('h2', { text: 'Campaigns on this server' }),
      items.length ? h('ul', { class: 'timeline' }, items) : h('p', { class: 'muted', text: 'None yet.' }),
      h('p', { class: 'hint', text: 'Anyone may read a campaign; acting needs the link with its key.' }));
  } catch (e) {
    el.replaceChildren(h('p', { class: 'error', text: `Could not list campaigns: ${problemWords(e)}` }));
  }
}

// A link that will never work: say so, and where to go.
function notFound(what) {
  const text = what ? `This link leads to no ${what} on this server: it may be mistyped or cut short, or belong to another server.`
    : 'There is nothing at this address on this server: it may be mistyped or cut short.';
  main.replaceChildren(h('div', { class: 'card', id: 'not-found' }, h('h1', { text: what ? `No such ${what} here` : 'No such page here' }),
    h('p', { text }), h('p', {}, h('a', { href: '/', text: 'See the campaigns on this server' }))));
}

async function route() {
  const path = window.location.pathname;
  const m = path.match(/^\/([cg])\/([0-9a-f-]{36})$/i);
  const kind = (p) => (p === 'g' ? 'grand campaign' : 'campaign');
  if (!m && path !== '/') {
    const part = path.match(/^\/([cg])\//);
    notFound(part ? kind(part[1]) : null);
    return;
  }
  try {
    if (m && m[1] === 'g') await showGrand(main, m[2]);
    else if (m) await showCampaign(main, m[2]);
    else await home();
  } catch (e) {
    if (!(e instanceof ApiError)) {
      // No connection (the page itself came from this phone's copy): try again until there is.
      main.replaceChildren(h('div', { class: 'card', id: 'no-connection' }, h('h1', { text: 'No connection' }),
        h('p', { text: 'The server cannot be reached just now. This page shows the campaign as soon as it can; anything you do meanwhile waits on this phone.' })));
      setTimeout(route, 3000);
      return;
    }
    if (e.noSuchPage) {
      notFound(m ? kind(m[1]) : 'campaign');
      return;
    }
    if ([404, 429, 502, 503, 504].includes(e.status)) {
      // The server busy, restarting or without its database for a moment, or the campaign
      // changing between two reads (a battle's set-up undone): try again by itself.
      main.replaceChildren(h('div', { class: 'card', id: 'not-ready' }, h('h1', { text: 'Not ready just now' }),
        h('p', { text: e.code === 'database-unavailable' ? 'The server cannot reach its database just now.' : 'The server is busy or restarting just now.' }),
        h('p', { text: 'This page tries again by itself in a few seconds.' })));
      setTimeout(route, Math.max(3000, (e.retryAfter || 0) * 1000));
      return;
    }
    main.replaceChildren(h('div', { class: 'card' }, h('h1', { text: 'Something went wrong' }), h('p', { class: 'error', text: problemWords(e) }),
      h('p', {}, h('a', { href: window.location.href, text: 'Try again' }))));
  }
}

// The app shell is kept for offline use (sw.js): a page opened at the table without a
// connection still comes up, and what is done there waits to be sent.
if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch(() => {});

// Another link pasted into this tab (the same page, another key after the #): the page is
// opened again with it, never left acting with the key it was opened with.
window.addEventListener('hashchange', () => window.location.reload());

route();
