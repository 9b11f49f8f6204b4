// What the key in the link may do now: rolls (the server's, or faces tapped in from the table),
// reserve choices, picking a battle, setting up a battle, the result, finishing, and undoing
// the last action. Every error is said in words next to the control that caused it; an action
// that cannot reach the server is queued (api.js) and said so.
import { api, QueuedError, randomHex, versionOf } from './api.js';
import { h, say, SIDES, SIDE_TITLE } from './dom.js';
import { picker, die } from './dice.js';
import { grantWords, tokenWords, problemWords, needWords, facesWords, FACE_TITLE } from './words.js';

export function errorSlot(id) {
  return h('p', { class: 'error', role: 'alert', hidden: true, id });
}

export function showError(slot, e) {
  slot.hidden = false;
  slot.textContent = problemWords(e);
}

// What a refused write means for the page, whichever control made it (`key`: the key it was
// sent with): a refused key makes the page read-only; a refusal that comes from the page being
// behind (another phone acted meanwhile) is said at the top too, as the page is read again and
// may redraw the control and its message, until something changes after what it reads now.
export function afterRefusal(st, e, key) {
  if (e.status === 401) st.keyRefused(e, key);
  else if (e.status === 409 || e.status === 412 || e.code === 'idempotency-key-reused') {
    st.setDone(`Not done: ${problemWords(e)}`, Infinity, null, 'refused');
    st.rereadForLine();
  }
}

// Sends a write. On success the page is read again and `done` said at the top (for as long as
// holdsFor says); a refusal is shown in `err` (or the slot of the field it names), and see
// afterRefusal.
async function perform(st, { path, body, button, err, fields, done, queue, ifMatch }) {
  for (const slot of [err, ...Object.values(fields || {})]) slot.hidden = true;
  button.disabled = true;
  const key = st.key;
  try {
    const r = await api('POST', path, { key, body, queue, role: st.role, ifMatch });
    st.setDone(typeof done === 'function' ? done(r.data) : done, versionOf(r.etag), holdsFor(st, r.data));
    await st.reload(true);
    return r.data;
  } catch (e) {
    if (e instanceof QueuedError) {
      st.setDone(`${queue}: the server cannot be reached just now, so it waits on this phone and is sent when it can be.`, 0, null, 'waits');
      st.queueChanged();
      return null;
    }
    showError((fields && e.field && fields[e.field]) || err, e);
    button.disabled = false;
    afterRefusal(st, e, key);
    return null;
  }
}

// How long what a write did stays said at the top once something is done elsewhere (see
// setDone), from the write's answer `d`: a side's roll while it stands (not undone) and its
// battle has no result yet, a What-if roll until the next battle is set up; a reserve choice
// while it is the one recorded and the battle has no result yet. So the other side rolling or
// choosing at the same time leaves it said. Anything else: null, it goes with the next change.
export function holdsFor(st, d) {
  if (!d) return null;
  const beforePlay = (s) => Boolean(s.battle && s.battle.number === d.battle && !s.battle.result);
  if (Number.isInteger(d.roll) && Array.isArray(d.faces)) {
    const stands = (s) => s.rolls.some((x) => x.n === d.roll && !x.voided);
    if (d.battle) return (s) => beforePlay(s) && stands(s);
    const battles = st.c ? st.c.battles.length : 0;
    return (s) => s.c.battles.length === battles && stands(s);
  }
  if (Array.isArray(d.chosen) && d.side && d.battle) {
    const same = (a) => Array.isArray(a) && a.length === d.chosen.length && a.every((o, i) => o.id === d.chosen[i].id && o.grant === d.chosen[i].grant);
    return (s) => beforePlay(s) && Boolean(s.battle.reserves && s.battle.reserves[d.side] && same(s.battle.reserves[d.side].chosen));
  }
  return null;
}

const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// The rolls a side makes, by their action's name (the write's path, and `waiting_for`'s), whose
// words are needWords' ("reserve roll"); "what-if-again" is the What-if roll made again. Each
// is named at the top once rolled ("Your reserve roll: Star, Infantry."): said so while the
// battle goes on to its next step, it is not taken for that step's dice.
const ROLLS = ['what-if', 'victory-events', 'pre-battle-roll', 'reserve-roll'];
const rollName = (what) => (what === 'what-if-again' ? 'what-if' : what);
const isRoll = (what) => ROLLS.includes(rollName(what));

// What came of a roll, in words (the event a What-if die gave), from its answer `d`; `whose`
// ("Your", "The Allies'") names who rolled. Null for an answer that does not say it plainly.
function rolledWords(what, d, whose = 'Your') {
  const plain = d && isRoll(what) && Array.isArray(d.faces) && d.faces.length > 0
    && d.faces.every((f) => has(FACE_TITLE, f))
    && (d.event === undefined || (d.event && typeof d.event.name === 'string' && typeof d.event.text === 'string'))
    && (d.hits === undefined || Number.isInteger(d.hits));
  if (!plain) return null;
  const rolled = `${whose} ${needWords(rollName(what))}: ${facesWords(d.faces)}`;
  if (d.event) return `${rolled}: ${d.event.name}. ${d.event.text}`;
  return `${rolled}${d.hits !== undefined ? `: ${d.hits} hit${d.hits === 1 ? '' : 's'}` : ''}.`;
}

// The reserves a side chose, in words, from the grants chosen; `side` names the side when it is
// not this page's ("The Allies' reserves: ..."). Null when the ruleset does not say what one is.
function choiceWords(st, grants, side) {
  if (grants.some((g) => !(st.rs && st.rs.grants && has(st.rs.grants, g)))) return null;
  const whose = side ? `The ${SIDE_TITLE[side]}'` : 'Your';
  if (!grants.length) return side ? `The ${SIDE_TITLE[side]} took no reserves.` : 'You took no reserves.';
  return `${whose} reserves: ${grants.map((g) => grantWords(st.rs, g)).join('; ')}.`;
}

// What a write that waited on this phone did once sent, from the path it went to and its answer
// `d`, in the words said when it is done at once ("Sent: your reserve roll: Star, Infantry.");
// `own`: sent with this page's link, else the side that acted is named ("Sent: the Allies'
// reserve roll: ..."). Null when there is nothing more to say than the write's name.
export function sentWords(st, path, d, own) {
  if (!d || typeof d !== 'object') return null;
  const side = own ? null : d.side;
  if (!own && !has(SIDE_TITLE, side)) return null;
  const what = path.split('/').pop();
  let words = null;
  if (isRoll(what)) words = rolledWords(what, d, side ? `The ${SIDE_TITLE[side]}'` : 'Your');
  else if (what === 'reserve-choice' && Array.isArray(d.chosen)) words = choiceWords(st, d.chosen.map((o) => o && o.grant), side);
  return words && `Sent: ${words[0].toLowerCase()}${words.slice(1)}`;
}

// A write that waited on this phone, named on a page of another link or campaign: by the side
// whose link made it ("the Allies' reserve roll"), not by its own label, which says "your".
// The label when the side is not known.
export function queuedName(item) {
  const what = item.path.split('/').pop();
  if (!has(SIDE_TITLE, item.role) || !(isRoll(what) || what === 'reserve-choice')) return item.label;
  return `the ${SIDE_TITLE[item.role]}' ${needWords(rollName(what))}`;
}

// A roll: the server rolls, or the faces rolled at the table are tapped in.
function rollAction(st, what, count, label, path, explain) {
  const err = errorSlot(`err-${what}`);
  const box = h('div', { class: 'card', id: `act-${what}` }, h('h3', { text: label }), explain ? h('p', { class: 'hint', text: explain }) : null);
  // At the top afterwards: what came of it, in words.
  const done = (d) => rolledWords(what, d) || `${label}: done.`;
  const post = (body, button) => perform(st, { path, body, button, err, queue: label, done });
  if (st.c.dice !== 'table') {
    const b = h('button', { type: 'button', id: `roll-${what}`, onclick: () => post({ client_seed: randomHex(16) }, b) },
      st.c.dice === 'either' ? 'Let the server roll' : 'Roll');
    box.append(b, h('p', { class: 'hint', text: 'Your browser adds a random number of its own to the roll, so that nobody, the server included, can choose the dice. A server roll cannot be undone.' }));
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

// An event that applies to one battle the side picks (Night Attacks).
function pickAction(st, e) {
  const err = errorSlot();
  const n = st.battle.number;
  const b = h('button', { type: 'button', id: `pick-${e.id}` }, `Make battle ${n} the one for ${e.name}`);
  b.addEventListener('click', () => perform(st, { path: `/campaigns/${st.id}/battles/${n}/pick`, body: { event: e.id }, button: b, err, done: `${e.name}: battle ${n}.` }));
  return h('div', { class: 'card', id: `act-pick-${e.id}` }, h('h3', { text: `${e.name}: which battle?` }),
    h('p', { class: 'hint', text: `${e.text} You pick it once, before the battle starts; until you do, it applies to no battle.` }), b, err);
}

// Reserve options as toggles: one that overlaps a chosen die, or costs more than the tokens
// left, is disabled with the reason shown. Each alternative has its own cost (RULES.md 9).
function choiceAction(st) {
  const mine = st.battle.reserves[st.role];
  if (!mine || !mine.faces) return h('p', { class: 'muted', text: 'Reading your dice…' });
  const options = mine.options || [];
  const tokens = st.c.sides[st.role].reserve_tokens;
  const chosen = new Map(); // id -> grant
  const err = errorSlot();
  const total = h('p', { id: 'choice-total', 'aria-live': 'polite' });
  const confirm = h('button', { type: 'button', id: 'confirm-choice' });
  const rows = options.map((o) => {
    const box = h('input', { type: 'checkbox', id: `opt-${o.id}`, 'data-option': o.id });
    const reason = h('span', { class: 'reason' });
    const costs = o.costs || o.grants.map(() => o.cost);
    const grant = o.grants.length > 1 ? h('select', { 'aria-label': 'Which one you take', id: `grant-${o.id}` },
      o.grants.map((g, i) => h('option', { value: g, text: `${grantWords(st.rs, g)} (${tokenWords(costs[i])})` }))) : null;
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
  confirm.addEventListener('click', () => perform(st, {
    path: `/campaigns/${st.id}/battles/${st.battle.number}/reserve-choice`,
    body: { options: [...chosen].map(([id, grant]) => ({ id, grant })) },
    button: confirm, err, queue: 'Your reserve choice',
    done: choiceWords(st, [...chosen.values()]) || 'Your reserve choice: done.',
  }));
  refresh();
  return h('div', { class: 'card', id: 'act-reserve-choice' },
    h('h3', { text: 'Choose your reserves' }),
    h('p', { text: 'You rolled:' }), h('div', { class: 'dice' }, mine.faces.map((f, i) => [h('span', { class: 'hint', text: `die ${i + 1}` }), die(f, { small: true })])),
    h('p', { text: 'Pick any options whose dice do not overlap; unpicked dice are lost.' }),
    options.length ? rows.map((r) => r.row) : h('p', { class: 'muted', text: 'These dice offer nothing.' }),
    st.rs && st.rs.reserve_placement ? h('p', { class: 'hint', id: 'placement', text: st.rs.reserve_placement }) : null,
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

// A D-Day Landings battle on several maps (RULES.md 7).
function mapsSelect(st, onChange) {
  const m = st.rs && st.rs.maps;
  if (!m || !m.combinations || !m.combinations.length) return null;
  const name = (id) => m.maps[id] || 'a map';
  const sel = h('select', { id: 'battle-maps' }, h('option', { value: '', text: 'One map (the scenario says the medals)' }),
    m.combinations.map((cb, i) => h('option', { value: String(i), text: `${cb.mode ? `${cb.mode}: ` : ''}${cb.maps.map(name).join(' + ')} — ${cb.medals_to_win} medals` })));
  sel.addEventListener('change', () => onChange(sel.value === '' ? null : m.combinations[Number(sel.value)]));
  return { sel, el: h('div', {}, h('label', { for: 'battle-maps', text: 'D-Day Landings maps' }), sel) };
}

// The scenario names the rules know (those a What-if event names, a scenario list's) and the
// ones this campaign used: offered as the name is typed, so that an effect is never lost to a
// spelling.
function scenarioNames(st) {
  const names = new Set();
  const events = (st.rs && st.rs.what_if && st.rs.what_if.events) || {};
  for (const e of Object.values(events)) for (const n of (e.scope && e.scope.scenarios) || []) names.add(n);
  for (const s of (st.rs && st.rs.scenarios && st.rs.scenarios.list) || []) names.add(s.name);
  for (const b of st.c.battles) names.add(b.scenario);
  return [...names].sort();
}

function newBattleAction(st) {
  const c = st.c;
  const n = c.battles.length + 1;
  const err = errorSlot('err-new-battle');
  const submit = h('button', { type: 'submit', id: 'create-battle' });
  const features = featureBoxes(st);
  const withFeatures = (body) => {
    const f = features.value();
    if (f.length) body.features = f;
    return body;
  };
  const send = (body) => perform(st, { path: `/campaigns/${st.id}/battles`, body, button: submit, err, done: `Battle ${n} is set up.` });
  if (c.scenario_list && c.next) {
    submit.textContent = `Set up “${c.next.scenario}”`;
    return h('form', { class: 'card', id: 'act-new-battle', novalidate: true, onsubmit: (e) => { e.preventDefault(); send(withFeatures({})); } },
      h('h3', { text: `Battle ${n}: the next scenario of the campaign` }),
      h('p', { text: `${c.next.scenario}: ${SIDE_TITLE[c.next.first_player]} move first; command cards Allies ${c.next.cards.allies}, Axis ${c.next.cards.axis}; ${c.next.medals_to_win} medals to win.` }),
      features.el, submit, err);
  }
  const names = scenarioNames(st);
  const scenario = h('input', { type: 'text', id: 'battle-scenario', maxlength: 120, required: true, autocomplete: 'off', list: 'scenario-names' });
  const datalist = h('datalist', { id: 'scenario-names' }, names.map((x) => h('option', { value: x })));
  const first = sideSelect('battle-first', 'Moves first', 'allies');
  const ca = num('battle-cards-allies', 'Allied cards', 5, 1, 20);
  const cx = num('battle-cards-axis', 'Axis cards', 5, 1, 20);
  const medals = num('battle-medals', 'Medals to win', 6, 1, 99);
  // (Only where the rules have the Political Commissar: the Eastern Front's.)
  const commissar = st.rs && st.rs.victory_events && st.rs.victory_events.commissar_note ? sideSelect('battle-commissar', 'Political Commissar', '', true) : null;
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
    if (!body.scenario) { showError(err, { message: 'Name the scenario (the rules match effects by its name).' }); scenario.focus(); return; }
    if (combo) body.maps = combo.maps;
    else body.medals_to_win = Number(medals.input.value);
    if (commissar && commissar.sel.value) body.commissar = commissar.sel.value;
    send(withFeatures(body));
  } },
  h('h3', { text: `Set up battle ${n}` }),
  h('label', { for: 'battle-scenario', text: 'Scenario' }), scenario, datalist,
  names.length ? h('p', { class: 'hint', text: `Names the rules know: ${names.join(', ')}. Effects match whole names, so pick one when it is that scenario.` }) : null,
  maps ? maps.el : null, mapsNote,
  h('div', { class: 'row' }, first.el, ca.el, cx.el, medals.el, commissar ? commissar.el : null),
  features.el, submit, err);
}

// The result: defaults from the medals to win that cannot contradict the winner, the server's
// refusal next to the field it names, and a confirmation that says what will be recorded.
function resultAction(st) {
  const b = st.battle;
  const mtw = b.medals_to_win;
  const err = errorSlot('err-result');
  const winner = sideSelect('result-winner', 'Winner', 'allies');
  const m = { allies: num('result-medals-allies', 'Allied medals', mtw, 0, 200), axis: num('result-medals-axis', 'Axis medals', 0, 0, 200) };
  const fieldErr = { 'medals.allies': errorSlot('err-medals-allies'), 'medals.axis': errorSlot('err-medals-axis'),
    'undeployed_reserves.allies': errorSlot('err-undeployed-allies'), 'undeployed_reserves.axis': errorSlot('err-undeployed-axis') };
  const reserves = b.reserves !== null;
  const ua = num('result-undeployed-allies', 'Allied undeployed reserves', 0, 0, 50);
  const ux = num('result-undeployed-axis', 'Axis undeployed reserves', 0, 0, 50);
  const oa = num('result-objective-allies', 'Allied objective medals', 0, 0, 200);
  const ox = num('result-objective-axis', 'Axis objective medals', 0, 0, 200);
  const sudden = h('input', { type: 'checkbox', id: 'result-sudden-death' });
  const submit = h('button', { type: 'submit', id: 'record-result' }, `Record battle ${b.number}'s result…`);
  const check = h('div', { class: 'confirm', id: 'result-check', hidden: true });
  winner.sel.addEventListener('change', () => {
    const w = winner.sel.value;
    const l = w === 'allies' ? 'axis' : 'allies';
    m[w].input.value = Math.max(Number(m[w].input.value), mtw);
    if (Number(m[l].input.value) >= mtw) m[l].input.value = Math.max(0, mtw - 1);
    check.hidden = true;
  });
  const body = () => {
    const out = { winner: winner.sel.value, medals: { allies: Number(m.allies.input.value), axis: Number(m.axis.input.value) },
      objective_medals: { allies: Number(oa.input.value), axis: Number(ox.input.value) } };
    if (reserves) out.undeployed_reserves = { allies: Number(ua.input.value), axis: Number(ux.input.value) };
    if (sudden.checked) out.sudden_death = true;
    return out;
  };
  const form = h('form', { class: 'card', id: 'act-result', novalidate: true, onsubmit: (e) => {
    e.preventDefault();
    const r = body();
    for (const slot of [err, ...Object.values(fieldErr)]) slot.hidden = true;
    // A box left empty or holding a fraction or a negative number is asked again, never read as 0.
    const counts = [[m.allies.input, fieldErr['medals.allies'], "the Allies' medals"], [m.axis.input, fieldErr['medals.axis'], "the Axis' medals"],
      [oa.input, err, "the Allies' objective medals"], [ox.input, err, "the Axis' objective medals"],
      ...(reserves ? [[ua.input, fieldErr['undeployed_reserves.allies'], "the Allies' undeployed reserves"], [ux.input, fieldErr['undeployed_reserves.axis'], "the Axis' undeployed reserves"]] : [])];
    for (const [input, slot, what] of counts) {
      const v = input.value.trim();
      if (v === '' || !/^[0-9]+$/.test(v)) { showError(slot, { message: `Enter ${what} as a whole number, 0 or more.` }); check.hidden = true; return; }
    }
    const w = r.winner;
    const l = w === 'allies' ? 'axis' : 'allies';
    if (!r.sudden_death && r.medals[w] < mtw) { showError(fieldErr[`medals.${w}`], { message: `The ${SIDE_TITLE[w]} won with ${r.medals[w]} medals, but it takes ${mtw}: check the winner and the medals, or tick “sudden death”.` }); return; }
    if (!r.sudden_death && r.medals[l] >= mtw) { showError(fieldErr[`medals.${l}`], { message: `The ${SIDE_TITLE[l]} lost with ${r.medals[l]} medals, but ${mtw} win: check the winner and the medals.` }); return; }
    const yes = h('button', { type: 'button', id: 'confirm-result' }, 'Yes, record it');
    const no = h('button', { type: 'button', class: 'secondary', id: 'change-result' }, 'Change it');
    no.addEventListener('click', () => { check.hidden = true; submit.focus(); });
    yes.addEventListener('click', () => perform(st, { path: `/campaigns/${st.id}/battles/${b.number}/result`, body: r, button: yes, err, fields: fieldErr, done: `Battle ${b.number}: ${SIDE_TITLE[w]} won, medals Allies ${r.medals.allies}, Axis ${r.medals.axis}.` }));
    check.replaceChildren(h('p', { id: 'result-summary' }, h('strong', { text: `${SIDE_TITLE[w]} won battle ${b.number}` }),
      `, medals Allies ${r.medals.allies}, Axis ${r.medals.axis}${r.sudden_death ? ', by the scenario\'s own victory condition' : ''}${reserves && (r.undeployed_reserves.allies || r.undeployed_reserves.axis) ? `; undeployed reserves Allies ${r.undeployed_reserves.allies}, Axis ${r.undeployed_reserves.axis}` : ''}. Record it?`), yes, no);
    check.hidden = false;
    yes.focus();
  } },
  h('h3', { text: `Battle ${b.number} is played: record the result` }),
  h('div', { class: 'row' }, winner.el, h('div', {}, m.allies.el, fieldErr['medals.allies']), h('div', {}, m.axis.el, fieldErr['medals.axis'])),
  h('p', { class: 'hint', text: `${mtw} medals win this battle.` }),
  h('label', { class: 'choice', for: sudden.id }, sudden, h('span', { text: `Won by the scenario's own victory condition, not by reaching ${mtw} medals (sudden death)` })),
  reserves ? h('div', { class: 'row' }, h('div', {}, ua.el, fieldErr['undeployed_reserves.allies']), h('div', {}, ux.el, fieldErr['undeployed_reserves.axis'])) : null,
  reserves ? h('p', { class: 'hint', text: 'Undeployed reserves: reserve units called up in this battle but not placed. Only the winner gets a Reserve Token back for each.' }) : null,
  h('details', {}, h('summary', { text: 'Objective medals (campaigns with an objective track)' }), h('div', { class: 'row' }, oa.el, ox.el)),
  submit, check, err);
  return form;
}

function finishAction(st) {
  const err = errorSlot();
  const confirm = h('button', { type: 'button', class: 'danger', id: 'confirm-finish', hidden: true }, 'Yes, finish the campaign');
  const start = h('button', { type: 'button', class: 'secondary', id: 'finish' }, 'Finish the campaign…');
  start.addEventListener('click', () => { confirm.hidden = false; confirm.focus(); });
  confirm.addEventListener('click', () => perform(st, { path: `/campaigns/${st.id}/finish`, body: {}, button: confirm, err, done: 'The campaign is finished.' }));
  return h('div', { class: 'card', id: 'act-finish' }, h('h3', { text: 'End the campaign' }),
    h('p', { class: 'hint', text: 'The winner is decided, and the server shows the secret behind its dice, so that everyone can check every roll. No battle can be added afterwards, and nothing can be undone.' }),
    start, confirm, err);
}

// Undo the last action, where this key may: the confirmation says what will be undone. Then a
// side's own earlier entry the other side has gone on from (earlierUndos).
export function undoAction(st) {
  const u = st.c.undo;
  if (!u || !st.role) return null;
  const earlier = earlierUndos(st).map((x) => undoCard(st, x));
  if (!u.who.includes(st.role)) {
    // Why not is told to whoever could have undone it (who did it, and the organizer), not to
    // the other side, for whom there was nothing to undo.
    if (!u.why_not || (u.by !== st.role && st.role !== 'organizer')) return earlier.length ? earlier : null;
    return [h('p', { class: 'hint', id: 'undo-not', text: `The last action (${u.what}) cannot be undone. ${u.why_not}` }), ...earlier];
  }
  return [undoCard(st, { id: 'undo', what: u.what, body: {} }, 'Last action: '), ...earlier];
}

// One undo: a button, then a confirmation that says what will be undone. Tied to the version
// this page showed: if anything was done since, the server refuses (412) and the page shows
// what can be undone now.
function undoCard(st, { id, what, body }, lead) {
  const err = errorSlot(`err-${id}`);
  const start = h('button', { type: 'button', class: 'secondary', id }, lead ? 'Undo…' : `Undo ${what}…`);
  const yes = h('button', { type: 'button', class: 'danger', id: `confirm-${id}`, hidden: true }, `Yes, undo ${what}`);
  start.addEventListener('click', () => { yes.hidden = false; yes.focus(); });
  yes.addEventListener('click', () => perform(st, { path: `/campaigns/${st.id}/undo`, body, button: yes, err, ifMatch: st.shown, done: `Undone: ${what}.` }));
  return h('div', { class: 'card undo', id: `act-${id}` }, lead ? h('p', {}, lead, h('strong', { id: `${id}-what`, text: what }), '.') : null,
    start, yes, err);
}

// The rolls an earlier undo takes back, by the roll log's purpose, as ROLLS names them.
const ROLL_OF_PURPOSE = { reserve: 'reserve-roll', victory_events: 'victory-events', pre_battle: 'pre-battle-roll' };

// What a side entered in the battle being played and may undo after the other side went on (the
// Allies mistyped their dice, then the Axis rolled): its reserve choice, else its latest roll
// from the table. The organizer is offered each side's. Not when Undo above takes it back (the
// side's own action is the last), and the server says why not if something since depends on it.
export function earlierUndos(st) {
  const c = st.c;
  const b = st.battle;
  const u = c.undo;
  if (!st.role || c.status !== 'active' || !b || b.number !== c.current_battle) return [];
  const out = [];
  for (const s of st.role === 'organizer' ? SIDES : [st.role]) {
    if (u && u.by === s && !u.why_not) continue;
    const whose = st.role === 'organizer' ? `the ${SIDE_TITLE[s]}'` : 'your';
    if (b.reserves && b.reserves[s] && b.reserves[s].chosen) {
      out.push({ id: `undo-choice-${s}`, what: `${whose} reserve choice for battle ${b.number}`, body: { reserve_choice: { battle: b.number, side: s } } });
      continue;
    }
    const r = st.rolls.filter((x) => x.side === s && x.battle === b.number && !x.voided && x.source === 'table' && has(ROLL_OF_PURPOSE, x.purpose)).pop();
    if (r) out.push({ id: `undo-roll-${r.n}`, what: `${whose} ${needWords(ROLL_OF_PURPOSE[r.purpose])} for battle ${b.number} (${facesWords(r.faces)})`, body: { roll: r.n } });
  }
  return out;
}

export function actionsPanel(st) {
  const c = st.c;
  const actions = h('div', { class: 'actions', id: 'actions' });
  const mine = (need) => c.waiting_for.includes(`${st.role}:${need}`);
  // Only this link's own writes waiting hold its actions back (its turn is taken); another
  // link's are said above the actions (campaign.js, #queued-others) and leave them offered.
  const queued = st.queuedOwn();
  if (queued) {
    actions.append(h('p', { class: 'notice', id: 'queued', text: `${queued} action${queued === 1 ? '' : 's'} waiting on this phone to be sent; they go as soon as the server can be reached.` }));
    return actions;
  }
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
      if (st.battle && !['ready', 'finished'].includes(st.battle.phase)) actions.append(pickAction(st, e));
    }
  }
  if (st.role === 'organizer' && c.status === 'active') {
    if (mine('new-battle')) actions.append(newBattleAction(st));
    if (mine('result')) actions.append(resultAction(st));
    // Finishing makes sense once a battle was played and none is under way.
    if (!c.current_battle && c.battles.some((b) => b.phase === 'finished')) actions.append(finishAction(st));
  }
  if (!actions.childElementCount && st.role && c.status === 'active') {
    const mineNow = c.waiting_for.filter((w) => w.startsWith(`${st.role}:`)).map((w) => needWords(w.split(':')[1]));
    actions.append(h('p', { class: 'muted', text: mineNow.length ? `Your turn: ${mineNow.join(', ')}.` : 'Nothing for you to do right now; this page updates by itself.' }));
  }
  return actions;
}
