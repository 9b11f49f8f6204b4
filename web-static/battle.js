// One battle as the table needs it: set-up, victory events as an ordered checklist (who rolled
// which die, and what it does), pre-battle rolls, reserves, effects, result. The current battle
// and every earlier one (the history) are drawn the same way.
import { h, SIDES, SIDE_TITLE } from './dom.js';
import { diceRow, die } from './dice.js';
import { FACE_TITLE, PHASE_WORDS, dieOwner, grantWords, tokenWords } from './words.js';

function checklist(st, b) {
  const store = `m44d:${st.id}:${b.number}:ve`;
  let ticks = [];
  try { ticks = JSON.parse(localStorage.getItem(store) || '[]'); } catch { ticks = []; }
  return h('ol', { class: 'checklist', id: `instructions-${b.number}` }, b.victory_events.instructions.map((ins, i) => {
    const box = h('input', { type: 'checkbox', id: `ins-${b.number}-${i}`, checked: ticks.includes(i) });
    box.addEventListener('change', () => {
      const set = new Set(ticks);
      if (box.checked) set.add(i); else set.delete(i);
      ticks = [...set];
      try { localStorage.setItem(store, JSON.stringify(ticks)); } catch { /* private mode */ }
    });
    return h('li', { 'data-roller': ins.roller, 'data-face': ins.face }, box,
      h('label', { for: box.id }, die(ins.face, { small: true }), ' ',
        h('strong', { class: 'ins-die', text: `${dieOwner(ins.roller)} die — ${FACE_TITLE[ins.face]}: ` }),
        h('span', { class: 'ins-text', text: ins.text })));
  }));
}

function effectList(effects, id) {
  return h('ul', { id }, effects.map((e) => h('li', { 'data-event': e.id }, h('strong', { text: e.name }), ` — ${e.text}`)));
}

// The battle `b` (GET .../battles/{n}); `current`: the one being played (ids the actions use).
export function battleCard(st, b, current) {
  const rs = st.rs;
  const card = h('div', { class: 'card battle', id: current ? 'battle' : `battle-${b.number}`, 'data-battle': b.number },
    h('p', { class: 'muted', text: `${SIDE_TITLE[b.first_player]} move first · command cards Allies ${b.cards.allies}, Axis ${b.cards.axis} · ${b.medals_to_win} medals to win${b.commissar ? ` · ${SIDE_TITLE[b.commissar]} under the Political Commissar rule` : ''}` }),
    b.maps && b.maps.length ? h('p', { class: 'battle-maps', id: current ? 'battle-maps-shown' : null, text: `On ${b.maps.length} maps: ${b.maps.map((m) => m.name).join(' + ')} (only the total number of medals matters).` }) : null,
    b.features && b.features.length ? h('p', { class: 'muted', text: `This scenario has: ${b.features.map((f) => (rs && rs.battle_features && rs.battle_features[f]) || 'a feature of the set-up').join('; ')}.` }) : null);
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
  for (const pb of b.pre_battle_rolls || []) {
    card.append(h('div', { class: 'pre-battle', 'data-side': pb.side }, h('h3', { text: `${pb.event_name}: the ${SIDE_TITLE[pb.side]} roll ${pb.dice} dice before the battle` }),
      h('p', { class: 'hint', text: pb.text }),
      pb.faces ? [diceRow(pb.faces), h('p', { class: 'pb-hits' }, h('strong', { text: `${pb.hits} hit${pb.hits === 1 ? '' : 's'}` }))] : h('p', { class: 'muted', text: 'not rolled yet' })));
  }
  if (b.starting_hand) card.append(h('p', { class: 'hands', id: current ? 'hands' : null }, 'Starting hands: ', h('strong', { text: `Allies ${b.starting_hand.allies}` }), ', ', h('strong', { text: `Axis ${b.starting_hand.axis}` }), ' command cards.'));
  if (b.reserves) {
    card.append(h('h3', { text: 'Reserve rolls' }));
    for (const s of SIDES) {
      const r = b.reserves[s];
      card.append(h('div', { class: 'reserve-side', 'data-side': s }, h('strong', { text: `${SIDE_TITLE[s]}: ` }),
        r.faces ? diceRow(r.faces) : h('span', { class: 'muted', text: 'not rolled yet' }),
        r.chosen ? h('p', { class: 'chosen', text: r.chosen.length ? `Took ${r.chosen.map((x) => grantWords(rs, x.grant)).join('; ')} (${tokenWords(r.cost)}).` : 'Took nothing.' })
          : r.faces ? h('p', { class: 'muted', text: 'choosing…' }) : null));
    }
  }
  if (b.effects.length) card.append(h('h3', { text: 'What-if effects in this battle' }), effectList(b.effects, current ? 'battle-effects' : `battle-effects-${b.number}`));
  if (b.effects_at_result && b.effects_at_result.length) card.append(h('h3', { text: 'When you record this battle\'s result' }), effectList(b.effects_at_result, current ? 'result-effects' : `result-effects-${b.number}`));
  if (b.result) card.append(h('p', { class: 'result' }, h('strong', { text: `${SIDE_TITLE[b.result.winner]} won` }), ` — medals: Allies ${b.result.medals.allies}, Axis ${b.result.medals.axis}${b.result.sudden_death ? ', by the scenario\'s own victory condition' : ''}.`));
  return card;
}

export function phaseBadge(b) {
  return h('span', { class: 'badge', text: PHASE_WORDS[b.phase] || '' });
}
