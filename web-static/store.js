// The campaigns this device has opened, with the keys of the links it was given, so that a
// link is never lost by going Back: the home page lists them. Only on this device.
const KEY = 'm44d:campaigns';

function load() {
  try { return JSON.parse(localStorage.getItem(KEY) || '{}'); } catch { return {}; }
}

function save(all) {
  try { localStorage.setItem(KEY, JSON.stringify(all)); } catch { /* private mode */ }
}

// `grand`: the id is a grand campaign's (its page is /g/<id>).
export function remember(id, name, role, key, grand = false) {
  const all = load();
  const c = all[id] || { keys: {} };
  c.name = name || c.name || '';
  if (grand) c.grand = true;
  if (role && key) c.keys[role] = key;
  c.seen = Date.now();
  all[id] = c;
  save(all);
}

// A new key for `role` of pages this device already knows (`ids`): a grand campaign's key is
// the key of every campaign of it. Pages it does not know are not added.
export function keepKey(ids, role, key) {
  const all = load();
  for (const id of ids) if (all[id]) all[id].keys[role] = key;
  save(all);
}

export function forget(id, role) {
  const all = load();
  if (all[id] && role) delete all[id].keys[role];
  if (all[id] && !Object.keys(all[id].keys).length) delete all[id];
  save(all);
}

export function keysFor(id) {
  const c = load()[id];
  return c ? { ...c.keys } : {};
}

// The role this device keeps `key` for, or null.
export function roleKept(id, key) {
  const kept = keysFor(id);
  return Object.keys(kept).find((r) => kept[r] === key) || null;
}

// Forgets `key` (a link that no longer works), not a newer key this device holds for its role.
export function forgetKey(id, key) {
  const role = roleKept(id, key);
  if (role) forget(id, role);
}

// [{id, name, keys}] newest first.
export function remembered() {
  return Object.entries(load()).map(([id, c]) => ({ id, ...c })).sort((a, b) => (b.seen || 0) - (a.seen || 0));
}

// New links being made on this device (POST <path>/keys/<role>), until their answer is in:
// {"<path> <role>": {key, idem}}, the key it was sent with and its Idempotency-Key. If the answer
// is lost, the same request sent again gets it, with the key it replaced (see keyInstead).
const REISSUES = 'm44d:reissues';

function loadReissues() {
  try { return JSON.parse(localStorage.getItem(REISSUES) || '{}'); } catch { return {}; }
}

function saveReissues(all) {
  try { localStorage.setItem(REISSUES, JSON.stringify(all)); } catch { /* private mode */ }
}

// The Idempotency-Key of the new link for `role` about to be made with `key`: the one kept, if
// this same request was sent before without an answer, else a new one, kept.
export function reissueStarted(path, role, key, fresh) {
  const all = loadReissues();
  const kept = all[`${path} ${role}`];
  if (kept && kept.key === key) return kept.idem;
  all[`${path} ${role}`] = { key, idem: fresh };
  saveReissues(all);
  return fresh;
}

export function reissueEnded(path, role) {
  const all = loadReissues();
  delete all[`${path} ${role}`];
  saveReissues(all);
}

// The Idempotency-Key of a new link for `role` made with `key` whose answer never came, or null.
export function reissueLost(path, role, key) {
  const kept = loadReissues()[`${path} ${role}`];
  return kept && kept.key === key ? kept.idem : null;
}
