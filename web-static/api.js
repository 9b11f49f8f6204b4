// The REST API: JSON in and out; problems (RFC 7807) become ApiError with the field named.
// POSTs carry an Idempotency-Key. One that cannot reach the server (offline, or the network
// dropped) is kept in a queue on this device with its key and sent when the server can be
// reached again: the key makes the server do it once, however often it is sent.
import { forgetKey, keepKey, keysFor, reissueEnded, reissueLost, reissueStarted, roleKept } from './store.js';
import { problemWords } from './words.js';

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem && problem.detail ? problem.detail : `The server answered ${status}.`);
    this.status = status;
    this.code = problem && problem.code;
    this.field = problem && problem.field;
    this.phase = problem && problem.phase;
    this.retryAfter = 0; // seconds, from a 429 or 503's Retry-After
  }
}

// Thrown when a write could not be sent and was queued.
export class QueuedError extends Error {
  constructor(item) {
    super('Not sent yet (no connection, or the server is busy): it will be sent by itself as soon as it can.');
    this.item = item;
  }
}

export function randomHex(bytes) {
  const b = new Uint8Array(bytes);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

// A proxy's own answers when the server behind it was not reached (restarting) or too slow.
const NOT_REACHED = [502, 504];

async function send(method, path, { key, body, etag, ifMatch, signal, idem } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (key) headers.Authorization = `Bearer ${key}`;
  if (etag) headers['If-None-Match'] = etag;
  if (ifMatch) headers['If-Match'] = ifMatch;
  if (idem) headers['Idempotency-Key'] = idem;
  const res = await fetch(`/api/v1${path}`, { method, headers, signal, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 304) return { status: 304, etag: res.headers.get('ETag') };
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) {
    // A proxy's own page (not JSON) for a server not reached is said in words.
    const e = new ApiError(res.status, data || (NOT_REACHED.includes(res.status) ? { code: 'server-unreachable' } : { detail: `The server answered ${res.status}.` }));
    e.retryAfter = Number(res.headers.get('Retry-After')) || 0;
    throw e;
  }
  return { status: res.status, data, etag: res.headers.get('ETag') };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const isNetworkError = (e) => !(e instanceof ApiError) && e.name !== 'AbortError';
// A 503 (the database unavailable, read-only for now, or the outcome of a write unknown), or a
// proxy's 502 or 504 (the server not reached: restarting, or too slow): the same request with
// the same Idempotency-Key, later, gets the answer, and is done at most once. Sent again like a
// request that could not reach the server.
const sendLater = (e) => isNetworkError(e) || (e instanceof ApiError && (e.status === 503 || NOT_REACHED.includes(e.status)));

// One request. A POST is retried once with the same key when the network fails; with `queue`
// (a label in players' words), one that still cannot be sent is queued instead of lost, with
// `role`, the role of the key it is made with (so a page of another link can name whose it is).
// `ifMatch`: the campaign's version the request was decided on (a write refused with 412 if it
// changed since); `idem`: an Idempotency-Key kept by the caller, to send the same request again.
export async function api(method, path, { key, body, etag, ifMatch, signal, queue, role, idem: given } = {}) {
  const idem = method === 'POST' ? given || randomHex(16) : undefined;
  try {
    return await send(method, path, { key, body, etag, ifMatch, signal, idem });
  } catch (e) {
    if (method !== 'POST' || !sendLater(e)) throw e;
    if (e.retryAfter) await sleep(Math.min(e.retryAfter, 5) * 1000);
  }
  try {
    return await send(method, path, { key, body, etag, ifMatch, signal, idem });
  } catch (e) {
    if (!queue || !sendLater(e)) throw e;
    const item = { method, path, key, role, body, idem, label: queue, at: Date.now() };
    const q = queued();
    q.push(item);
    saveQueue(q);
    throw new QueuedError(item);
  }
}

const QUEUE = 'm44d:queue';

export function queued() {
  try { return JSON.parse(localStorage.getItem(QUEUE) || '[]'); } catch { return []; }
}

function saveQueue(q) {
  try { localStorage.setItem(QUEUE, JSON.stringify(q)); } catch { /* private mode: nothing kept */ }
}

// Calls fn when another tab of this browser queued a write or sent one: the queue is shared by
// the tabs, and the browser tells every other tab of the same site at once (never the tab that
// wrote). A tab does not wait for its next round to say so.
export function onQueueChanged(fn) {
  window.addEventListener('storage', (e) => { if (e.key === QUEUE || e.key === null) fn(); });
}

let flushing = false;

// Sends the queued writes in order. Each gets a definite answer (done, or refused with the
// server's reason) and leaves the queue; one that still cannot be sent stops the flush.
// onAnswer(item, error|null, data, etag) is told of each (etag: the version it made).
// Resolves to 'done' (the queue is empty), 'stopped' (some wait still) or 'busy' (another
// flush of this page was under way: nothing was sent by this one).
export async function flushQueue(onAnswer) {
  if (flushing) return 'busy';
  flushing = true;
  try {
    for (let q = queued(); q.length; q = queued()) {
      const item = q[0];
      let error = null;
      let data = null;
      let etag = null;
      try {
        ({ data, etag } = await send(item.method, item.path, item));
      } catch (e) {
        if (sendLater(e)) return 'stopped'; // still offline, or the server not ready: try again later
        error = e;
      }
      saveQueue(queued().filter((x) => x.idem !== item.idem));
      onAnswer(item, error, data, etag);
    }
    return 'done';
  } finally {
    flushing = false;
  }
}


// What the server says of a page's key (GET <path>/role): {role}, or {refused} (401: the
// organizer gave the role a new link, or it never was a key of it). Anything else (no
// connection, the server busy or its database away) decides nothing: {unsure}, and the key is
// kept and asked about again. Each holds the error, if any. A key that cannot be one (a link cut
// short or changed on the way) is refused here; a check the server does not answer in 10 s is
// given up (unsure).
export async function keyRole(path, key) {
  if (!/^[A-Za-z0-9_-]{16,50}$/.test(key || '')) {
    return { refused: new ApiError(401, { detail: 'This link\'s key is damaged (cut short, or changed on the way): ask the organizer for the link again.' }) };
  }
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), 10000);
  try {
    return { role: (await api('GET', `${path}/role`, { key, signal: timeout.signal })).data.role };
  } catch (e) {
    return e instanceof ApiError && e.status === 401 ? { refused: e } : { unsure: e };
  } finally {
    clearTimeout(timer);
  }
}

// The role a page (`path`, of campaign or grand campaign `id`) opens with, for the key in its
// link: {role, keyError} (words, when the key is refused), and keyUnsure when the server could not
// be asked just now: the page then goes on as the role this device keeps the key for. `doc`: the
// standing, read before (keyTag: its tag of the key confirmed, see keyTagOf).
// A link this device holds a newer key for (see keyInstead) opens with that key: `key` is the
// key the page goes on with.
export async function openingRole(path, id, key, doc) {
  if (!key) return { key, role: null, keyError: null, keyUnsure: false, keyTag: null };
  const k = await keyRole(path, key);
  if (k.unsure) return { key, role: roleKept(id, key), keyError: null, keyUnsure: true, keyTag: null };
  if (k.refused) {
    const other = await keyInstead(path, id, roleKept(id, key), key);
    if (other) return openingRole(path, id, other, doc);
  }
  return { key, role: k.role || null, keyError: k.refused ? problemWords(k.refused) : null, keyUnsure: false, keyTag: keyTagOf(doc, k.role) };
}

// A new link for `role` of the page at `path`, made with `key`: its answer ({data, etag}). The
// request's Idempotency-Key is kept on this device until an answer comes, so if the answer is
// lost on the way, sending it again (a new tap, or keyInstead) gets the same new link instead of
// making another.
export async function reissueKey(path, role, key) {
  const idem = reissueStarted(path, role, key, randomHex(16));
  try {
    const r = await api('POST', `${path}/keys/${role}`, { key, body: {}, idem });
    reissueEnded(path, role);
    return r;
  } catch (e) {
    if (!sendLater(e)) reissueEnded(path, role);
    throw e;
  }
}

// Another key of this device for `role`, that works, when the server refuses `refused` (the
// page's key): the answer of this device's own new link for the role, made with the refused key,
// if that answer was lost (the same request, sent again, gets it), or the key this device keeps
// for the role, if another tab made a new link. Null when there is none.
async function keyInstead(path, id, role, refused) {
  if (!role) return null;
  const idem = reissueLost(path, role, refused);
  if (idem) {
    try {
      const { data } = await api('POST', `${path}/keys/${role}`, { key: refused, body: {}, idem });
      // Kept first: another tab of this device asking now finds it (see below).
      if (data && data.key) keepKey([id], role, data.key);
      reissueEnded(path, role);
      if (data && data.key) return data.key;
    } catch (e) {
      if (!sendLater(e)) reissueEnded(path, role);
    }
  }
  const kept = keysFor(id)[role];
  if (!kept || kept === refused) return null;
  const k = await keyRole(path, kept);
  return k.role === role ? kept : null;
}

// The server refused `refused`, the key of a page (`st`, at API `path`; its address `page`,
// "/c/<id>" or "/g/<id>"): this device forgets it, and if the page still goes on with it and this
// device holds a key that works instead (keyInstead), the page opens again with that one. False
// when the page is to go read-only; true when there is nothing more for it to do.
export async function keyRefusedHere(st, path, page, refused) {
  const role = st.role;
  forgetKey(st.id, refused);
  if (refused !== st.key) return true; // the page went on with another key meanwhile
  const other = await keyInstead(path, st.id, role, refused);
  if (refused !== st.key) return true;
  if (!other) return false;
  window.history.replaceState(null, '', `${page}#key=${other}`);
  window.location.reload();
  return true;
}

// The tag of `role`'s key in a standing (its key_tags), or null. It changes whenever the role is
// given a new key: a page keeps the tag its key was last confirmed with (st.keyTag) and, when a
// standing shows another, asks about its key again (keyTagMoved), so a link replaced on another
// device stops offering actions here at the next change, not at the next tap.
const keyTagOf = (doc, role) => (doc && role && doc.key_tags && doc.key_tags[role]) || null;
export const keyTagMoved = (st, doc) => Boolean(st.role && st.keyTag && keyTagOf(doc, st.role) !== st.keyTag);

// Asks again about the key of a page showing `doc` (its standing), at `path`: {refused, key} or
// {role, key} when the answer decides something; null when there is nothing to do now (no key,
// refused already, asked already, a new link being made on this page, the server not answering,
// or the page gone on with another key meanwhile). A key confirmed for the page's own role keeps
// the tag `doc` showed before the answer (st.keyTag): a key never comes back once replaced.
export async function askKey(st, path, doc) {
  if (!st.key || st.keyError || st.keyChecking || st.keyMoving) return null;
  const key = st.key;
  const tag = keyTagOf(doc, st.role);
  st.keyChecking = true;
  const k = await keyRole(path, key).finally(() => { st.keyChecking = false; });
  if (k.unsure || key !== st.key || st.keyMoving) return null;
  if (k.role && k.role === st.role) st.keyTag = tag;
  return { ...k, key };
}

// The version an ETag names ("7" -> 7), or 0.
export const versionOf = (etag) => Number(String(etag || '').replace(/[^0-9]/g, '')) || 0;

// Keeps a page current by long polling `path` (a campaign or grand campaign): st.etag is the
// version the page shows. A change is handed to onChange(r), which takes it (true) once every
// read that goes with it has succeeded; only then is st.etag its version. After any error the
// next poll is a full read (no If-None-Match), so the page never stays behind. setStatus says
// live, reconnecting or offline. st.poll aborts the poll in flight (a wake-up: read again now).
export async function watch(st, path, onChange, setStatus) {
  let pause = 1000;
  for (;;) {
    st.poll = new AbortController();
    // A poll the server does not answer (a half-open connection after a network switch) is
    // given up 10 s after its 25 s wait, and read again in full.
    const giveUp = setTimeout(() => { st.pollTimedOut = true; st.poll.abort(); }, 35000);
    try {
      const r = await api('GET', `${path}?wait=25`, { etag: st.etag || undefined, signal: st.poll.signal });
      if (r.status === 200 && r.etag !== st.etag) await onChange(r);
      setStatus('live');
      pause = 1000;
    } catch (e) {
      st.etag = null; // whatever failed, the next read is a full one
      // Aborted on purpose (a wake, a tap on Refresh): nothing is wrong with the connection.
      const failed = e.name !== 'AbortError' || st.pollTimedOut;
      if (failed) {
        setStatus(navigator.onLine ? 'reconnecting' : 'offline');
        // A 429 or 503 says when to come back; else back off, up to 8 s.
        await sleep(Math.max(pause, (e.retryAfter || 0) * 1000));
        pause = Math.min(pause * 2, 8000);
      }
      st.pollTimedOut = false;
    } finally {
      clearTimeout(giveUp);
    }
  }
}
