// A campaign's page: standing, battles, the actions the key in the link may take now, live
// updates (long polling on the campaign's ETag), charts, dice statistics, verification.
import { api, randomHex } from './api.js';
import { h, say, SIDES, SIDE_TITLE } from './dom.js';
import { diceRow, picker, die } from './dice.js';
import { medalsChart, tokensChart } from './charts.js';
import { verifyRolls, diceStats } from './verify.js';

const PHASE_WORDS = {
  setup: 'Setting up', victory_events: 'Victory event rolls', reserves: 'Reserve rolls',
  ready: 'Ready to play', finished: 'Finished',
};
const NEED_WORDS = {
  'what-if': 'What-if roll', 'victory-events': 'victory event roll', 'pre-battle-roll': 'pre-battle roll', 'reserve-roll': 'reserve roll',
  'reserve-choice': 'reserve choice', result: 'the battle result', 'new-battle': 'setting up the next battle',
  finish: 'finishing the campaign',
};
const WHO = { allies: 'Allies', axis: 'Axis', organizer: 'Organizer' };
const PURPOSE_WORDS = { what_if: 'What-if', victory_events: 'victory events', pre_battle: 'pre-battle', reserve: 'reserve' };

// A grant in the ruleset's words ("an Air Power token"), never its id.
function grantWords(st, g) {
  const d = st.rs && st.rs.grants ? st.rs.grants[g] : null;
  return d ? (typeof d === 'string' ? d : d.text) : g.replace(/-/g, ' ');
}

const tokenWords = (n) => (n ? `${n} token${n > 1 ? 's' : ''}` : 'free');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function waitingWords(list) {
  return list.map((w) => {
    const [who, what] = w.split(':');
    return `${WHO[who] || who}: ${NEED_WORDS[what] || what}`;
  });
}

function errorSlot() {
  return h('p', { class: 'error', role: 'alert', hidden: true });
}

function showError(slot, e) {
  slot.hidden = false;
  slot.textContent = e.message; // the server's words; the field it names is for programs
}

export async function showCampaign(main, id) {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const st = { id, key: params.get('key'), role: null, keyError: null, c: null, etag: null, battle: null, rolls: [], sig: null, main, sections: {} };
  if (st.key) {
    try {
      st.role = (await api('GET', `/campaigns/${id}/role`, { key: st.key })).data.role;
    } catch (e) {
      st.keyError = e.message;
    }
  }
  const first = await api('GET', `/campaigns/${id}`);
  st.c = first.data;
  st.etag = first.etag;
  // The ruleset's tables: grant words, D-Day Landings maps, battle features.
  try { st.rs = (await api('GET', `/rulesets/${st.c.ruleset}`)).data; } catch { st.rs = null; }
  await loadDetails(st);
  build(st);
  live(st);
}

async function loadDetails(st) {
  const n = st.c.current_battle || (st.c.battles.length ? st.c.battles[st.c.battles.length - 1].number : null);
  st.battle = n ? (await api('GET', `/campaigns/${st.id}/battles/${n}`)).data : null;
  st.rolls = (await api('GET', `/campaigns/${st.id}/rolls`)).data;
}

// Re-read everything after this page acted (the long poll will also notice).
async function reload(st) {
  const r = await api('GET', `/campaigns/${st.id}`);
  st.c = r.data;
  st.etag = r.etag;
  await loadDetails(st);
  update(st);
}

async function live(st) {
  for (;;) {
    try {
      const r = await api('GET', `/campaigns/${st.id}?wait=25`, { etag: st.etag });
      if (r.status === 200 && r.etag !== st.etag) {
        st.c = r.data;
        st.etag = r.etag;
        await loadDetails(st);
        update(st);
        say(`Campaign updated: ${waitingWords(st.c.waiting_for).join('; ') || PHASE_WORDS[st.c.status] || ''}`);
      }
    } catch {
      await sleep(2000); // the server restarting or the network dropping: try again
    }
  }
}

const SECTIONS = ['header', 'now', 'standing', 'battle', 'timeline', 'effects', 'charts', 'stats', 'verify'];

function build(st) {
  for (const s of SECTIONS) st.sections[s] = h('section', { id: `sec-${s}` });
  st.main.replaceChildren(...SECTIONS.map((s) => st.sections[s]));
  update(st);
}

// Sections are lists of nodes that may hold null / false (left out) and nested lists.
function fill(section, items) {
  section.replaceChildren(...[items].flat(Infinity).filter((x) => x !== null && x !== undefined && x !== false));
}

function update(st) {
  document.title = `${st.c.name} — m44d`;
  fill(st.sections.header, header(st));
  // The action panel is rebuilt only when what this key may do changes, so a half-filled form,
  // half-entered dice or half-chosen reserves survive the other side's moves.
  const mine = st.c.waiting_for.filter((w) => w.startsWith(`${st.role}:`));
  const sig = JSON.stringify([st.role, st.c.status, st.c.current_battle, st.battle && st.battle.phase, mine, st.c.battles.length,
    st.c.what_if_again, st.c.effects.map((e) => e.picked_battle || 0)]);
  if (!st.sections.now.firstChild) {
    st.waitingEl = h('p', { id: 'waiting' });
    st.actionsSlot = h('div');
    fill(st.sections.now, [h('h2', { text: 'Now' }), st.waitingEl, st.actionsSlot]);
  }
  st.waitingEl.textContent = waitingLine(st);
  if (sig !== st.sig) {
    st.sig = sig;
    st.actionsSlot.replaceChildren(actionsPanel(st));
  }
  fill(st.sections.standing, standing(st));
  fill(st.sections.battle, battleView(st));
  fill(st.sections.timeline, timeline(st));
  fill(st.sections.effects, effects(st));
  fill(st.sections.charts, charts(st));
  fill(st.sections.stats, stats(st));
  if (!st.sections.verify.dataset.done) fill(st.sections.verify, verifyView(st));
}

function header(st) {
  const c = st.c;
  const role = st.role ? h('span', { class: `badge ${st.role}`, id: 'role', text: `You are: ${WHO[st.role]}` })
    : h('span', { class: 'badge', id: 'role', text: 'Reading (no key)' });
  return [
    h('h1', { text: c.name }),
    h('p', {}, role, ' ', h('span', { class: 'muted', text: `${c.ruleset_name} · dice: ${c.dice} · ${c.status === 'finished' ? 'finished' : 'in progress'}` })),
    st.keyError ? h('p', { class: 'error', role: 'alert', text: `This link's key does not work here (${st.keyError}). You can still read the campaign.` }) : null,
  ];
}

// ---- what happens now, and the actions this key may take ----

// What the page is waiting for, in words (always current).
function waitingLine(st) {
  const c = st.c;
  const mineNow = c.waiting_for.filter((w) => w.startsWith(`${st.role}:`)).map((w) => NEED_WORDS[w.split(':')[1]]);
  const others = waitingWords(c.waiting_for.filter((w) => !w.startsWith(`${st.role}:`)));
  let line;
  if (c.status === 'finished') line = outcomeWords(c);
  else if (mineNow.length) line = `Your turn: ${mineNow.join(', ')}.${others.length ? ` Also waiting for ${others.join('; ')}.` : ''}`;
  else line = others.length ? `Waiting for ${others.join('; ')}.` : 'Nothing to do.';
  return line;
}

// The actions this key may take now.
function actionsPanel(st) {
  const c = st.c;
  const actions = h('div', { class: 'actions', id: 'actions' });
  const mine = (need) => c.waiting_for.includes(`${st.role}:${need}`);
  if (st.role === 'allies' || st.role === 'axis') {
    if (mine('what-if')) actions.append(rollAction(st, 'what-if', 1, 'Roll your What-if die', `/campaigns/${st.id}/what-if`));
    if (mine('victory-events')) {
      const n = st.battle.victory_events.dice[st.role];
      actions.append(rollAction(st, 'victory-events', n, `Roll your ${n} victory event dice`, `/campaigns/${st.id}/battles/${st.battle.number}/victory-events`));
    }
    if (mine('pre-battle-roll')) {
      for (const pb of st.battle.pre_battle_rolls.filter((x) => x.side === st.role && !x.faces)) {
        actions.append(rollAction(st, 'pre-battle-roll', pb.dice, `${pb.event_name}: roll ${pb.dice} dice`,
          `/campaigns/${st.id}/battles/${st.battle.number}/pre-battle-roll`, pb.text));
      }
    }
    if (mine('reserve-roll')) actions.append(rollAction(st, 'reserve-roll', 2, 'Roll your 2 reserve dice', `/campaigns/${st.id}/battles/${st.battle.number}/reserve-roll`));
    if (mine('reserve-choice')) actions.append(choiceAction(st));
    if (c.what_if_again && c.what_if_again[st.role]) {
      actions.append(rollAction(st, 'what-if-again', 1, 'Roll the What-if die again (you may)', `/campaigns/${st.id}/what-if`,
        'An event you rolled lets you roll on the What-if table once more before the next battle. You need not.'));
    }
    for (const e of c.effects.filter((x) => x.picked_by === st.role && !x.picked_battle)) {
      if (st.battle && st.battle.phase !== 'finished') actions.append(pickAction(st, e));
    }
  }
  if (st.role === 'organizer' && c.status === 'active') {
    if (mine('new-battle')) actions.append(newBattleAction(st));
    if (mine('result')) actions.append(resultAction(st));
    if (!c.current_battle) actions.append(finishAction(st));
  }
  if (!actions.childElementCount && st.role && c.status === 'active')
    actions.append(h('p', { class: 'muted', text: 'Nothing for you to do right now; this page updates by itself.' }));
  return actions;
}

function outcomeWords(c) {
  const o = c.outcome;
  if (!o.winner) return 'The campaign is over: a draw.';
  return `The campaign is over: ${SIDE_TITLE[o.winner]} win${o.grade ? ` (${o.grade})` : ''}.`;
}

// A roll: the server rolls, or the faces rolled at the table are tapped in.
function rollAction(st, what, count, label, path, explain) {
  const err = errorSlot();
  const box = h('div', { class: 'card', id: `act-${what}` }, h('h3', { text: label }), explain ? h('p', { class: 'hint', text: explain }) : null);
  const post = async (body, button) => {
    err.hidden = true;
    button.disabled = true;
    try {
      await api('POST', path, { key: st.key, body });
      say(`${label}: done`);
      await reload(st);
    } catch (e) {
      showError(err, e);
      button.disabled = false;
    }
  };
  if (st.c.dice !== 'table') {
    const b = h('button', { type: 'button', id: `roll-${what}`, onclick: () => post({ client_seed: randomHex(16) }, b) },
      st.c.dice === 'either' ? 'Let m44d roll' : 'Roll');
    box.append(b, h('p', { class: 'hint', text: 'Your browser adds a random client seed to the roll; it is shown in the roll log.' }));
  }
  if (st.c.dice !== 'server') {
    let faces = [];
    const b = h('button', { type: 'button', id: `enter-${what}`, disabled: true, onclick: () => post({ faces }, b) }, 'Record these faces');
    box.append(h('p', { text: st.c.dice === 'either' ? 'Or tap the faces you rolled at the table:' : 'Tap the faces you rolled at the table:' }),
      picker(count, (f) => { faces = f; b.disabled = f.length !== count; }), b);
  }
  box.append(err);
  return box;
}

// An event that applies to one battle the side picks (Night Attacks): this battle, or later.
function pickAction(st, e) {
  const err = errorSlot();
  const n = st.battle.number;
  const b = h('button', { type: 'button', id: `pick-${e.id}` }, `Make battle ${n} the one for ${e.name}`);
  b.addEventListener('click', async () => {
    err.hidden = true;
    b.disabled = true;
    try {
      await api('POST', `/campaigns/${st.id}/battles/${n}/pick`, { key: st.key, body: { event: e.id } });
      say(`${e.name}: battle ${n}`);
      await reload(st);
    } catch (e2) {
      showError(err, e2);
      b.disabled = false;
    }
  });
  return h('div', { class: 'card', id: `act-pick-${e.id}` }, h('h3', { text: `${e.name}: which battle?` }),
    h('p', { class: 'hint', text: `${e.text} You pick it once; until you do, it applies to no battle.` }), b, err);
}

// Reserve options as toggles: one that overlaps a chosen die, or costs more than the tokens
// left, is disabled with the reason shown.
function choiceAction(st) {
  const mine = st.battle.reserves[st.role];
  const options = mine.options || [];
  const tokens = st.c.sides[st.role].reserve_tokens;
  const chosen = new Map(); // id -> grant
  const err = errorSlot();
  const total = h('p', { id: 'choice-total', 'aria-live': 'polite' });
  const confirm = h('button', { type: 'button', id: 'confirm-choice' });
  const rows = options.map((o) => {
    const box = h('input', { type: 'checkbox', id: `opt-${o.id}`, 'data-option': o.id });
    const reason = h('span', { class: 'reason' });
    // Each alternative has its own cost (RULES.md 9: Fall of Poland's elite infantry costs a
    // token, the air token nothing).
    const costs = o.costs || o.grants.map(() => o.cost);
    const grant = o.grants.length > 1 ? h('select', { 'aria-label': 'Which one you take', id: `grant-${o.id}` },
      o.grants.map((g, i) => h('option', { value: g, text: `${grantWords(st, g)} (${tokenWords(costs[i])})` }))) : null;
    const costOf = () => costs[grant ? grant.selectedIndex : 0];
    const costLabel = h('strong');
    const row = h('div', { class: 'option', 'data-option': o.id },
      h('label', { class: 'choice', for: box.id }, box,
        h('span', {}, h('span', { class: 'dice' }, o.dice.map((i) => die(mine.faces[i], { small: true }))),
          o.text, ' ', costLabel, h('br'), reason)),
      grant);
    box.addEventListener('change', () => {
      if (box.checked) chosen.set(o.id, grant ? grant.value : o.grants[0]);
      else chosen.delete(o.id);
      refresh();
    });
    if (grant) grant.addEventListener('change', () => { if (chosen.has(o.id)) chosen.set(o.id, grant.value); refresh(); });
    return { o, box, row, reason, costOf, costLabel, costs };
  });
  function refresh() {
    const used = new Set();
    let cost = 0;
    for (const r of rows) if (chosen.has(r.o.id)) { r.o.dice.forEach((d) => used.add(d)); cost += r.costOf(); }
    for (const r of rows) {
      const c = r.costOf();
      r.costLabel.textContent = new Set(r.costs).size > 1 ? `— ${tokenWords(c)} as chosen below` : `— ${tokenWords(c)}`;
      if (chosen.has(r.o.id)) {
        r.box.disabled = false; r.row.classList.remove('disabled'); r.reason.textContent = '';
        r.row.classList.toggle('over', cost > tokens);
        if (cost > tokens) r.reason.textContent = `You have ${tokens} token${tokens === 1 ? '' : 's'}: choose a cheaper one.`;
        continue;
      }
      let why = '';
      if (r.o.dice.some((d) => used.has(d))) why = 'Uses a die already taken by another option.';
      else if (cost + c > tokens) why = `Costs ${tokenWords(c)}; you have ${tokens - cost} left.`;
      r.box.disabled = Boolean(why);
      r.row.classList.toggle('disabled', Boolean(why));
      r.reason.textContent = why;
    }
    total.textContent = `Chosen: ${chosen.size} option${chosen.size === 1 ? '' : 's'}, ${cost} of your ${tokens} Reserve Token${tokens === 1 ? '' : 's'}.`;
    confirm.textContent = chosen.size ? 'Confirm these reserves' : 'Confirm: take nothing';
    confirm.disabled = cost > tokens;
  }
  confirm.addEventListener('click', async () => {
    err.hidden = true;
    confirm.disabled = true;
    try {
      const body = { options: [...chosen].map(([id, grant]) => ({ id, grant })) };
      await api('POST', `/campaigns/${st.id}/battles/${st.battle.number}/reserve-choice`, { key: st.key, body });
      say('Reserves confirmed');
      await reload(st);
    } catch (e) {
      showError(err, e);
      confirm.disabled = false;
    }
  });
  refresh();
  return h('div', { class: 'card', id: 'act-reserve-choice' },
    h('h3', { text: 'Choose your reserves' }),
    h('p', { text: 'You rolled:' }), h('div', { class: 'dice' }, mine.faces.map((f, i) => [h('span', { class: 'hint', text: `die ${i + 1}` }), die(f, { small: true })])),
    h('p', { text: 'Pick any options whose dice do not overlap; unpicked dice are lost.' }),
    options.length ? rows.map((r) => r.row) : h('p', { class: 'muted', text: 'These dice offer nothing.' }),
    total, confirm, err);
}

function num(id, label, value, min, max) {
  const input = h('input', { type: 'number', id, min, max, value, inputmode: 'numeric' });
  return { input, el: h('div', {}, h('label', { for: id, text: label }), input) };
}

function sideSelect(id, label, value, withNone) {
  const sel = h('select', { id },
    withNone ? h('option', { value: '', text: 'none' }) : null,
    SIDES.map((s) => h('option', { value: s, text: SIDE_TITLE[s] })));
  sel.value = value;
  return { sel, el: h('div', {}, h('label', { for: id, text: label }), sel) };
}

// Things a set-up may say the battle has, from the ruleset (US Navy Destroyers), as checkboxes.
function featureBoxes(st) {
  const all = Object.entries((st.rs && st.rs.battle_features) || {});
  const boxes = all.map(([fid, words]) => ({ fid, box: h('input', { type: 'checkbox', id: `feature-${fid}` }), words }));
  return {
    el: boxes.length ? h('fieldset', { id: 'battle-features' }, h('legend', { text: 'This scenario has' }),
      boxes.map((b) => h('label', { class: 'choice', for: b.box.id }, b.box, h('span', { text: b.words })))) : null,
    value: () => boxes.filter((b) => b.box.checked).map((b) => b.fid),
  };
}

// A D-Day Landings battle on several maps (RULES.md 7): the combination sets the medals to win
// and, for OverThrough, the Commanders-in-Chief's command cards.
function mapsSelect(st, onChange) {
  const m = st.rs && st.rs.maps;
  if (!m || !m.combinations || !m.combinations.length) return null;
  const name = (id) => m.maps[id] || id;
  const sel = h('select', { id: 'battle-maps' }, h('option', { value: '', text: 'One map (the scenario says the medals)' }),
    m.combinations.map((cb, i) => h('option', { value: String(i), text: `${cb.mode}: ${cb.maps.map(name).join(' + ')} — ${cb.medals_to_win} medals` })));
  sel.addEventListener('change', () => onChange(sel.value === '' ? null : m.combinations[Number(sel.value)]));
  return { sel, el: h('div', {}, h('label', { for: 'battle-maps', text: 'D-Day Landings maps' }), sel) };
}

function newBattleAction(st) {
  const c = st.c;
  const n = c.battles.length + 1;
  const err = errorSlot();
  const submit = h('button', { type: 'submit', id: 'create-battle' });
  const send = async (body) => {
    err.hidden = true;
    submit.disabled = true;
    try {
      await api('POST', `/campaigns/${st.id}/battles`, { key: st.key, body });
      say(`Battle ${n} set up`);
      await reload(st);
    } catch (e) {
      showError(err, e);
      submit.disabled = false;
    }
  };
  const features = featureBoxes(st);
  const withFeatures = (body) => {
    const f = features.value();
    if (f.length) body.features = f;
    return body;
  };
  if (c.scenario_list && c.next) {
    submit.textContent = `Set up “${c.next.scenario}”`;
    return h('form', { class: 'card', id: 'act-new-battle', novalidate: true, onsubmit: (e) => { e.preventDefault(); send(withFeatures({})); } },
      h('h3', { text: `Battle ${n}: the next scenario of the campaign` }),
      h('p', { text: `${c.next.scenario}: ${SIDE_TITLE[c.next.first_player]} move first; command cards Allies ${c.next.cards.allies}, Axis ${c.next.cards.axis}; ${c.next.medals_to_win} medals to win.` }),
      features.el, submit, err);
  }
  const scenario = h('input', { type: 'text', id: 'battle-scenario', maxlength: 120, required: true, autocomplete: 'off' });
  const first = sideSelect('battle-first', 'Moves first', 'allies');
  const ca = num('battle-cards-allies', 'Allied cards', 5, 1, 20);
  const cx = num('battle-cards-axis', 'Axis cards', 5, 1, 20);
  const medals = num('battle-medals', 'Medals to win', 6, 1, 99);
  const commissar = sideSelect('battle-commissar', 'Political Commissar', '', true);
  let combo = null;
  const mapsNote = h('p', { class: 'hint', id: 'maps-note', hidden: true });
  const maps = mapsSelect(st, (cb) => {
    combo = cb;
    medals.input.disabled = Boolean(cb);
    mapsNote.hidden = !cb;
    if (!cb) return;
    medals.input.value = cb.medals_to_win;
    if (cb.cards) { ca.input.value = cb.cards.allies; cx.input.value = cb.cards.axis; }
    mapsNote.textContent = `${cb.medals_to_win} medals to win, the total of the maps${cb.cards ? `; the Commanders-in-Chief start with ${cb.cards.allies} (Allies) and ${cb.cards.axis} (Axis) command cards` : ''}. Only the total number of medals matters.`;
  });
  submit.textContent = `Set up battle ${n}`;
  return h('form', { class: 'card', id: 'act-new-battle', novalidate: true, onsubmit: (e) => {
    e.preventDefault();
    const body = { scenario: scenario.value.trim(), first_player: first.sel.value, cards: { allies: Number(ca.input.value), axis: Number(cx.input.value) } };
    if (combo) body.maps = combo.maps;
    else body.medals_to_win = Number(medals.input.value);
    if (commissar.sel.value) body.commissar = commissar.sel.value;
    send(withFeatures(body));
  } },
  h('h3', { text: `Set up battle ${n}` }),
  h('label', { for: 'battle-scenario', text: 'Scenario' }), scenario,
  maps ? maps.el : null, mapsNote,
  h('div', { class: 'row' }, first.el, ca.el, cx.el, medals.el, commissar.el),
  features.el, submit, err);
}

function resultAction(st) {
  const b = st.battle;
  const err = errorSlot();
  const winner = sideSelect('result-winner', 'Winner', 'allies');
  const ma = num('result-medals-allies', 'Allied medals', b.medals_to_win, 0, 200);
  const mx = num('result-medals-axis', 'Axis medals', 0, 0, 200);
  const reserves = b.reserves !== null;
  const ua = num('result-undeployed-allies', 'Allied undeployed reserves', 0, 0, 50);
  const ux = num('result-undeployed-axis', 'Axis undeployed reserves', 0, 0, 50);
  const oa = num('result-objective-allies', 'Allied objective medals', 0, 0, 200);
  const ox = num('result-objective-axis', 'Axis objective medals', 0, 0, 200);
  const sudden = h('input', { type: 'checkbox', id: 'result-sudden-death' });
  const submit = h('button', { type: 'submit', id: 'record-result' }, `Record battle ${b.number}'s result`);
  winner.sel.addEventListener('change', () => {
    const w = winner.sel.value;
    (w === 'allies' ? ma : mx).input.value = b.medals_to_win;
  });
  return h('form', { class: 'card', id: 'act-result', onsubmit: async (e) => {
    e.preventDefault();
    err.hidden = true;
    submit.disabled = true;
    const body = { winner: winner.sel.value, medals: { allies: Number(ma.input.value), axis: Number(mx.input.value) },
      objective_medals: { allies: Number(oa.input.value), axis: Number(ox.input.value) } };
    if (reserves) body.undeployed_reserves = { allies: Number(ua.input.value), axis: Number(ux.input.value) };
    if (sudden.checked) body.sudden_death = true;
    try {
      await api('POST', `/campaigns/${st.id}/battles/${b.number}/result`, { key: st.key, body });
      say(`Battle ${b.number} recorded`);
      await reload(st);
    } catch (e2) {
      showError(err, e2);
      submit.disabled = false;
    }
  } },
  h('h3', { text: `Battle ${b.number} is played: record the result` }),
  h('div', { class: 'row' }, winner.el, ma.el, mx.el),
  h('label', { class: 'choice', for: sudden.id }, sudden, h('span', { text: `Won by the scenario's own victory condition, not by reaching ${b.medals_to_win} medals (sudden death)` })),
  reserves ? h('div', { class: 'row' }, ua.el, ux.el) : null,
  reserves ? h('p', { class: 'hint', text: 'Undeployed reserves: reserve units called up but not placed. Only the winner gets a Reserve Token back for each.' }) : null,
  h('details', {}, h('summary', { text: 'Objective medals (campaigns with an objective track)' }), h('div', { class: 'row' }, oa.el, ox.el)),
  submit, err);
}

function finishAction(st) {
  const err = errorSlot();
  const confirm = h('button', { type: 'button', class: 'danger', id: 'confirm-finish', hidden: true }, 'Yes, finish and reveal the seed');
  const start = h('button', { type: 'button', class: 'secondary', id: 'finish' }, 'Finish the campaign…');
  start.addEventListener('click', () => { confirm.hidden = false; confirm.focus(); });
  confirm.addEventListener('click', async () => {
    err.hidden = true;
    confirm.disabled = true;
    try {
      await api('POST', `/campaigns/${st.id}/finish`, { key: st.key, body: {} });
      say('Campaign finished');
      await reload(st);
    } catch (e) {
      showError(err, e);
      confirm.disabled = false;
    }
  });
  return h('div', { class: 'card', id: 'act-finish' }, h('h3', { text: 'End the campaign' }),
    h('p', { class: 'hint', text: 'The winner is decided and the server seed is revealed, so everyone can check every roll. No battle can be added afterwards.' }),
    start, confirm, err);
}

// ---- reading ----

function standing(st) {
  const c = st.c;
  const reserve = c.token_history.length > 0 || SIDES.some((s) => c.sides[s].reserve_tokens > 0);
  return [h('h2', { text: 'Standing' }), h('div', { class: 'grid2' }, SIDES.map((s) => {
    const d = c.sides[s];
    return h('div', { class: `card side-${s}`, id: `standing-${s}` },
      h('h3', {}, SIDE_TITLE[s], d.player ? h('span', { class: 'muted', text: ` — ${d.player}` }) : null),
      h('dl', { class: 'stats' },
        h('dt', { text: 'Battles won' }), h('dd', { 'data-stat': 'battles_won', text: d.battles_won }),
        h('dt', { text: 'Medals' }), h('dd', { 'data-stat': 'medals', text: d.medals }),
        reserve ? [h('dt', { text: 'Reserve Tokens' }), h('dd', { 'data-stat': 'reserve_tokens', text: d.reserve_tokens })] : null,
        d.victory_points !== d.medals ? [h('dt', { text: 'Victory points' }), h('dd', { 'data-stat': 'victory_points', text: d.victory_points })] : null),
      heldList(st, s, d.held || []));
  })), c.next ? h('p', { id: 'next' }, 'Next: ', h('strong', { text: c.next.scenario })) : null,
  c.next_by_winner ? h('p', { id: 'next' }, `Next: ${c.next_by_winner.allies === 'END' ? 'the end' : c.next_by_winner.allies} if the Allies win, ${c.next_by_winner.axis === 'END' ? 'the end' : c.next_by_winner.axis} if the Axis win.`) : null,
  c.campaign_over && c.status === 'active' ? h('p', { id: 'next', text: 'The scenario list has ended: the organizer can finish the campaign.' }) : null];
}

// Air tokens and Veteran Stars a side won and holds; the organizer marks one used at the table.
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
          await api('POST', `/campaigns/${st.id}/held/${x.id}/use`, { key: st.key, body: {} });
          say(`${x.text}: used`);
          await reload(st);
        } catch (e) {
          showError(err, e);
          b.disabled = false;
        }
      });
      li.append(b, err);
    }
    return li;
  }))];
}

function checklist(st, b) {
  const store = `m44d:${st.id}:${b.number}:ve`;
  let ticks = [];
  try { ticks = JSON.parse(localStorage.getItem(store) || '[]'); } catch { ticks = []; }
  return h('ol', { class: 'checklist', id: 'instructions' }, b.victory_events.instructions.map((ins, i) => {
    const box = h('input', { type: 'checkbox', id: `ins-${b.number}-${i}`, checked: ticks.includes(i) });
    box.addEventListener('change', () => {
      const set = new Set(ticks);
      if (box.checked) set.add(i); else set.delete(i);
      ticks = [...set];
      try { localStorage.setItem(store, JSON.stringify(ticks)); } catch { /* private mode */ }
    });
    return h('li', { 'data-roller': ins.roller, 'data-face': ins.face }, box, h('label', { for: box.id }, die(ins.face, { small: true }), ' ', h('span', { class: 'ins-text', text: ins.text })));
  }));
}

function battleView(st) {
  const b = st.battle;
  if (!b) return [h('h2', { text: 'Battles' }), h('p', { class: 'muted', text: 'No battle yet.' })];
  const out = [h('h2', {}, `Battle ${b.number}: ${b.scenario} `, h('span', { class: 'badge', id: 'phase', text: PHASE_WORDS[b.phase] }))];
  const card = h('div', { class: 'card', id: 'battle' },
    h('p', { class: 'muted', text: `${SIDE_TITLE[b.first_player]} move first · command cards Allies ${b.cards.allies}, Axis ${b.cards.axis} · ${b.medals_to_win} medals to win${b.commissar ? ` · ${SIDE_TITLE[b.commissar]} under the Political Commissar rule` : ''}` }),
    b.maps && b.maps.length ? h('p', { id: 'battle-maps-shown', text: `On ${b.maps.length} maps: ${b.maps.map((m) => m.name).join(' + ')} (only the total number of medals matters).` }) : null,
    b.features && b.features.length ? h('p', { class: 'muted', text: `This scenario has: ${b.features.map((f) => (st.rs && st.rs.battle_features && st.rs.battle_features[f]) || f).join('; ')}.` }) : null);
  for (const pb of b.pre_battle_rolls || []) {
    card.append(h('div', { class: 'pre-battle', 'data-side': pb.side }, h('h3', { text: `${pb.event_name}: ${SIDE_TITLE[pb.side]} roll ${pb.dice} dice before the battle` }),
      h('p', { class: 'hint', text: pb.text }),
      pb.faces ? [diceRow(pb.faces), h('p', { class: 'pb-hits' }, h('strong', { text: `${pb.hits} hit${pb.hits === 1 ? '' : 's'}` }))] : h('p', { class: 'muted', text: 'not rolled yet' })));
  }
  const ve = b.victory_events;
  if (ve.dice.allies || ve.dice.axis) {
    card.append(h('h3', { text: 'Victory event rolls' }));
    for (const s of SIDES) {
      card.append(h('div', { class: 've-side', 'data-side': s }, h('strong', { text: `${SIDE_TITLE[s]} (${ve.dice[s]} dice): ` }),
        ve.faces[s] ? diceRow(ve.faces[s]) : h('span', { class: 'muted', text: ve.dice[s] ? 'not rolled yet' : 'no dice' })));
    }
    if (ve.instructions) {
      card.append(h('h3', { text: 'Resolve in this order' }), checklist(st, b));
      for (const note of ve.notes) card.append(h('p', { class: 'hint', text: note }));
    }
  }
  if (b.starting_hand) card.append(h('p', { id: 'hands' }, 'Starting hands: ', h('strong', { text: `Allies ${b.starting_hand.allies}` }), ', ', h('strong', { text: `Axis ${b.starting_hand.axis}` }), ' command cards.'));
  if (b.reserves) {
    card.append(h('h3', { text: 'Reserve rolls' }));
    for (const s of SIDES) {
      const r = b.reserves[s];
      card.append(h('div', { class: 'reserve-side', 'data-side': s }, h('strong', { text: `${SIDE_TITLE[s]}: ` }),
        r.faces ? diceRow(r.faces) : h('span', { class: 'muted', text: 'not rolled yet' }),
        r.chosen ? h('p', { class: 'chosen', text: r.chosen.length ? `Took ${r.chosen.map((x) => grantWords(st, x.grant)).join('; ')} (${tokenWords(r.cost)})` : 'Took nothing.' })
          : r.faces ? h('p', { class: 'muted', text: 'choosing…' }) : null));
    }
  }
  if (b.effects.length) card.append(h('h3', { text: 'What-if effects in this battle' }), h('ul', { id: 'battle-effects' }, b.effects.map((e) => h('li', { 'data-event': e.id }, h('strong', { text: e.name }), ` — ${e.text}`))));
  if (b.effects_at_result && b.effects_at_result.length) card.append(h('h3', { text: 'When you record this battle\'s result' }), h('ul', { id: 'result-effects' }, b.effects_at_result.map((e) => h('li', { 'data-event': e.id }, h('strong', { text: e.name }), ` — ${e.text}`))));
  if (b.result) card.append(h('p', { class: 'result' }, h('strong', { text: `${SIDE_TITLE[b.result.winner]} won` }), ` ${b.result.medals.allies}–${b.result.medals.axis} (Allies–Axis medals)${b.result.sudden_death ? ', by the scenario\'s own victory condition' : ''}.`));
  out.push(card);
  return out;
}

function timeline(st) {
  const c = st.c;
  if (!c.battles.length) return [];
  return [h('h2', { text: 'All battles' }), h('ol', { class: 'timeline', id: 'timeline' }, c.battles.map((b) => h('li', { 'data-battle': b.number },
    h('strong', { text: `${b.number}. ${b.scenario}` }), ' — ',
    b.result ? `${SIDE_TITLE[b.result.winner]} won, medals Allies ${b.result.medals.allies}, Axis ${b.result.medals.axis}` : PHASE_WORDS[b.phase])))];
}

function effects(st) {
  const c = st.c;
  if (!c.what_if && !c.effects.length) return [];
  const rolls = c.what_if_rolls || {};
  return [h('h2', { text: 'What if? events' }),
    h('p', {}, SIDES.map((s) => h('span', { class: 'what-if-roll', 'data-side': s }, `${SIDE_TITLE[s]}: `,
      rolls[s] ? [die(rolls[s].face, { small: true }), ' '] : 'not rolled yet',
      rolls[s] && rolls[s].again ? [' and again after battle ', rolls[s].again.after_battle, ': ', die(rolls[s].again.face, { small: true })] : null, ' '))),
    c.what_if_note ? h('p', { class: 'hint', id: 'what-if-note', text: c.what_if_note }) : null,
    c.effects.length ? h('ul', { id: 'effects' }, c.effects.map((e) => h('li', { 'data-event': e.id }, h('strong', { text: e.name }),
      h('span', { class: 'muted', text: ` (rolled by ${e.rolled_by.map((s) => SIDE_TITLE[s]).join(' and ')})` }), ` — ${e.text}`,
      e.picked_by ? h('p', { class: 'hint', text: e.picked_battle ? `The ${SIDE_TITLE[e.picked_by]} picked battle ${e.picked_battle}.` : `The ${SIDE_TITLE[e.picked_by]} have not picked its battle yet.` }) : null))) : null];
}

function charts(st) {
  return [h('h2', { text: 'Charts' }), h('div', { class: 'grid2' },
    h('div', { class: 'card' }, h('h3', { text: 'Medals per battle' }), medalsChart(st.c.battles)),
    h('div', { class: 'card' }, h('h3', { text: 'Reserve Tokens over the campaign' }), tokensChart(st.c.token_history, st.c.battles)))];
}

function stats(st) {
  const all = diceStats(st.rolls);
  const per = Object.fromEntries(SIDES.map((s) => [s, diceStats(st.rolls.filter((r) => r.side === s))]));
  const faces = ['infantry', 'armor', 'grenade', 'star', 'flag'];
  return [h('h2', { text: 'Dice statistics' }), h('div', { class: 'card table-wrap' },
    h('table', { id: 'dice-stats' },
      h('thead', {}, h('tr', {}, h('th', { text: 'Face' }), h('th', { class: 'num', text: 'Allies' }), h('th', { class: 'num', text: 'Axis' }), h('th', { class: 'num', text: 'All' }), h('th', { class: 'num', text: 'Fair dice' }))),
      h('tbody', {}, faces.map((f) => h('tr', { 'data-face': f }, h('td', {}, die(f, { small: true }), h('span', { class: 'face-name', text: ` ${f}` })),
        h('td', { class: 'num', text: per.allies.counts[f] }), h('td', { class: 'num', text: per.axis.counts[f] }),
        h('td', { class: 'num', text: all.counts[f] }), h('td', { class: 'num', text: all.expected[f].toFixed(1) }))))),
    h('p', { id: 'stats-words', text: `All ${all.total} dice: ${all.words}` }),
    SIDES.map((s) => h('p', { class: 'hint', text: `${SIDE_TITLE[s]} (${per[s].total} dice): ${per[s].words}` })))];
}

function verifyView(st) {
  const c = st.c;
  const out = [h('h2', { text: 'Verify the dice' })];
  const commit = h('p', {}, 'Seed commitment: ', h('span', { class: 'mono', id: 'commitment', text: c.seed_commitment }));
  if (c.status !== 'finished') {
    out.push(h('div', { class: 'card' }, commit, h('p', { class: 'hint', text: 'The server committed to its secret seed by publishing this SHA-256 before any roll. When the campaign ends the seed is revealed, and every roll can be recomputed here.' })));
    return out;
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
      else if (unrevealed) verdict = { cls: 'verify-bad', text: `Not verified: ${unrevealed} server roll${unrevealed === 1 ? '' : 's'} cannot be checked, because their seed was never revealed here (the campaign was brought in from another server before its end). ${counts}.` };
      else if (imported) verdict = { cls: 'verify-bad', text: `Not verified here: ${imported} server roll${imported === 1 ? ' was' : 's were'} made on another server before the campaign was brought here. ${imported === 1 ? 'It matches' : 'They match'} the seed that came with it, but this server never held that seed secret, so it cannot show the dice were not chosen. Check them on the server that rolled them. ${counts}.` };
      else verdict = { cls: 'verify-ok', text: `Verified: the revealed seed matches its commitment, and every server roll is what it gives. ${counts}.` };
      result.replaceChildren(
        h('p', { id: 'verify-summary', class: verdict.cls, text: verdict.text }),
        h('div', { class: 'table-wrap' }, h('table', { id: 'verify-table' },
          h('thead', {}, h('tr', {}, h('th', { text: '#' }), h('th', { text: 'Side' }), h('th', { text: 'Roll' }), h('th', { text: 'Faces' }), h('th', { text: 'Check' }))),
          h('tbody', {}, rolls.map((r) => {
            const res = byN.get(r.n);
            const mark = { ok: '✓ verified', mismatch: '✗ mismatch', table: 'table roll', unrevealed: 'seed not revealed', imported: 'matches, rolled elsewhere' }[res.status];
            return h('tr', { 'data-roll': r.n, 'data-status': res.status }, h('td', { text: r.n }), h('td', { text: SIDE_TITLE[r.side] }),
              h('td', { text: PURPOSE_WORDS[r.purpose] || r.purpose }), h('td', {}, diceRow(r.faces, { small: true })),
              h('td', { class: res.status === 'ok' ? 'verify-ok' : res.status === 'mismatch' ? 'verify-bad' : 'muted', text: mark }));
          })))));
      st.sections.verify.dataset.done = '1';
    } catch (e) {
      result.replaceChildren(h('p', { class: 'error', text: `Could not verify: ${e.message}` }));
      button.disabled = false;
    }
  });
  out.push(h('div', { class: 'card' }, commit,
    h('p', {}, 'Revealed seed: ', h('span', { class: 'mono', id: 'server-seed', text: c.server_seed || '' })),
    h('p', { class: 'hint', text: 'Your browser recomputes every server roll from the revealed seed (HMAC-SHA256, RULES.md 1.2) and compares it with the log.' }),
    button, result));
  return out;
}
