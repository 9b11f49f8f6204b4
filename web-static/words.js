// Players' words: everything the page says about the rules comes from the ruleset's own texts,
// never from the ids the API uses.
import { SIDE_TITLE } from './dom.js';

export const FACE_TITLE = { infantry: 'Infantry', armor: 'Armor', grenade: 'Grenade', star: 'Star', flag: 'Flag' };
export const PHASE_WORDS = {
  setup: 'Setting up', victory_events: 'Victory event rolls', reserves: 'Reserve rolls',
  ready: 'Being played', finished: 'Finished',
};
export const PURPOSE_WORDS = { what_if: 'What-if', victory_events: 'Victory events', pre_battle: 'Pre-battle', reserve: 'Reserve' };
export const WHO = { allies: 'Allies', axis: 'Axis', organizer: 'Organizer', system: 'the server' };
const NEED_WORDS = {
  'what-if': 'What-if roll', 'victory-events': 'victory event roll', 'pre-battle-roll': 'pre-battle roll',
  'reserve-roll': 'reserve roll', 'reserve-choice': 'reserve choice', result: 'the battle result',
  'new-battle': 'setting up the next battle', finish: 'finishing the campaign',
};

export function needWords(need) {
  return NEED_WORDS[need] || 'their move';
}

export function waitingWords(list) {
  return list.map((w) => {
    const [who, what] = w.split(':');
    return `${WHO[who] || 'someone'}: ${needWords(what)}`;
  });
}

// A grant in the ruleset's words ("an Elite infantry unit (4 figures with an Elite badge ...)").
export function grantWords(rs, g) {
  const d = rs && rs.grants ? rs.grants[g] : null;
  return d ? (typeof d === 'string' ? d : d.text) : 'a reserve';
}

export const tokenWords = (n) => (n ? `${n} token${n > 1 ? 's' : ''}` : 'free');

export function facesWords(faces) {
  return faces.map((f) => FACE_TITLE[f] || f).join(', ');
}

// "Allied die — infantry:" before an instruction, so the table knows who rolled what.
export function dieOwner(side) {
  return side === 'allies' ? 'Allied' : 'Axis';
}

export function sideTitle(side) {
  return SIDE_TITLE[side] || WHO[side] || 'someone';
}

// A field the server names, in the words of the form that sent it.
const FIELD_WORDS = {
  name: 'The name', 'reserve_tokens.allies': 'The Allies\' starting tokens', 'reserve_tokens.axis': 'The Axis\' starting tokens',
  'players.allies': 'The Allied player\'s name', 'players.axis': 'The Axis player\'s name',
  scenario: 'The scenario', first_player: 'Who moves first', 'cards.allies': 'The Allied command cards',
  'cards.axis': 'The Axis command cards', medals_to_win: 'The medals to win', maps: 'The maps',
  'medals.allies': 'The Allied medals', 'medals.axis': 'The Axis medals', faces: 'The faces',
  'undeployed_reserves.allies': 'The Allied undeployed reserves', 'undeployed_reserves.axis': 'The Axis undeployed reserves',
  'objective_medals.allies': 'The Allied objective medals', 'objective_medals.axis': 'The Axis objective medals',
  url: 'The chat link', kind: 'The kind of chat', grand_ruleset: 'The grand campaign', what_if: 'What-if events',
};

// What the server says when it cannot do anything just now, in the words of someone at the table
// (its own texts tell a program what to send again, and how).
const BUSY_WORDS = {
  'database-unavailable': 'The server cannot reach its database just now; nothing was changed. Try again in a moment.',
  'database-read-only': 'The server takes no changes just now; nothing was changed. Try again later.',
  'outcome-unknown': 'The server lost its database while saving this: it may or may not have been done. Look at the campaign again before trying again.',
  'shutting-down': 'The server is restarting; nothing was changed. Try again in a moment.',
  busy: 'The server is busy just now; nothing was changed. Try again in a moment.',
  'server-unreachable': 'The server cannot be reached just now (it may be restarting). Try again in a moment.',
  'idempotency-key-reused': 'This was sent before as something else, so it was not done now: look at the campaign again, then decide.',
};

// Said on a page whose key could not be checked just now (api.js, openingRole).
export const KEY_UNSURE_WORDS = 'This link could not be checked just now (no connection, or the server busy): this page goes on as this phone knows the link, and asks again by itself.';

// The server's message, with a field path it starts with put in words.
export function problemWords(e) {
  let text = e.message || 'Something went wrong.';
  if (e.field && text.startsWith(e.field)) text = (FIELD_WORDS[e.field] || 'This') + text.slice(e.field.length);
  if (e.status === 0 || /Failed to fetch|NetworkError|Load failed/.test(text)) text = 'The server cannot be reached just now.';
  if (e.status === 412) text = 'Something was done meanwhile: look at the campaign again, then decide.';
  if (BUSY_WORDS[e.code]) text = BUSY_WORDS[e.code];
  return text;
}
