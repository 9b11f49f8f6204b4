// Checking the dice (RULES.md 1.2): every server roll recomputed in the browser from the
// revealed seed, and whether the faces look like fair dice.
const FACE_OF_INDEX = ['infantry', 'infantry', 'armor', 'grenade', 'star', 'flag'];
const enc = new TextEncoder();

export function hexToBytes(hex) {
  if (!/^[0-9a-f]*$/i.test(hex) || hex.length % 2) throw new Error('not hex');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

export function bytesToHex(b) {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

// SHA-256 in plain JavaScript, for pages opened over plain http on a LAN address, where
// browsers do not offer WebCrypto.
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);

export function sha256js(data) {
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const len = data.length;
  const padded = new Uint8Array(((len + 9 + 63) >> 6) << 6);
  padded.set(data);
  padded[len] = 0x80;
  const dv = new DataView(padded.buffer);
  dv.setUint32(padded.length - 4, (len * 8) >>> 0);
  dv.setUint32(padded.length - 8, Math.floor((len * 8) / 0x100000000));
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  const out = new Uint8Array(32);
  const odv = new DataView(out.buffer);
  h.forEach((x, i) => odv.setUint32(i * 4, x));
  return out;
}

export function hmacjs(key, msg) {
  const k = new Uint8Array(64);
  k.set(key.length > 64 ? sha256js(key) : key);
  const inner = new Uint8Array(64 + msg.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) { inner[i] = k[i] ^ 0x36; outer[i] = k[i] ^ 0x5c; }
  inner.set(msg, 64);
  outer.set(sha256js(inner), 64);
  return sha256js(outer);
}

export const webCrypto = typeof crypto !== 'undefined' && crypto.subtle && window.isSecureContext;

async function hmacKey(seed) {
  if (!webCrypto) return seed;
  return crypto.subtle.importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

async function hmac(key, msg) {
  if (!webCrypto) return hmacjs(key, msg);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, msg));
}

export async function sha256(bytes) {
  if (!webCrypto) return sha256js(bytes);
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

// The faces of roll n (RULES.md 1.2).
export async function deriveFaces(key, campaignId, n, clientSeed, count) {
  const faces = [];
  for (let k = 0; faces.length < count; k++) {
    const mac = await hmac(key, enc.encode(`${campaignId}:${n}:${clientSeed}:${k}`));
    for (const b of mac) {
      if (faces.length === count) break;
      if (b < 252) faces.push(FACE_OF_INDEX[b % 6]);
    }
  }
  return faces;
}

// Checks every roll against the revealed seeds: [{n, status, expected}], status one of
// 'ok' (recomputed, matches), 'mismatch', 'table' (entered from the table), 'unrevealed' (its
// seed is not revealed) or 'imported' (it matches a seed that came in an imported document:
// this server never held that seed secret, so the roll is consistent but not witnessed here).
// `dice` is the campaign's dice source: a table roll in a server campaign is a mismatch, and so is
// a server roll with a seed older than one an earlier roll used (seeds follow one another: an
// old one is never in force again). What this cannot see, `m44 verify` checks by replaying the
// rules: how many dice each roll had, and which seed was in force at each.
export async function verifyRolls(campaignId, seeds, rolls, dice) {
  const keys = new Map();
  const seedOk = new Map();
  const imported = new Set(seeds.filter((s) => s.origin === 'import').map((s) => s.epoch));
  for (const s of seeds) {
    if (!s.server_seed) continue;
    const bytes = hexToBytes(s.server_seed);
    seedOk.set(s.epoch, bytesToHex(await sha256(bytes)) === s.commitment);
    keys.set(s.epoch, await hmacKey(bytes));
  }
  const out = [];
  let epoch = 0; // the newest seed an earlier server roll used
  for (const [i, r] of rolls.entries()) {
    if (r.n !== i + 1) { out.push({ n: r.n, status: 'mismatch' }); continue; } // numbers run 1..N
    if (r.source === 'table') { out.push({ n: r.n, status: dice === 'server' ? 'mismatch' : 'table' }); continue; }
    if (r.source !== 'server' || dice === 'table') { out.push({ n: r.n, status: 'mismatch' }); continue; }
    if (!(r.seed_epoch >= epoch)) { out.push({ n: r.n, status: 'mismatch' }); continue; }
    epoch = r.seed_epoch;
    if (!keys.has(r.seed_epoch)) { out.push({ n: r.n, status: 'unrevealed' }); continue; }
    const expected = await deriveFaces(keys.get(r.seed_epoch), campaignId, r.n, r.client_seed || '', r.faces.length);
    const same = seedOk.get(r.seed_epoch) && expected.every((f, i) => f === r.faces[i]);
    out.push({ n: r.n, status: !same ? 'mismatch' : imported.has(r.seed_epoch) ? 'imported' : 'ok', expected });
  }
  return { rolls: out, seedsOk: [...seedOk.values()].every(Boolean) };
}

// Counts per symbol against fair dice (infantry 1/3, the others 1/6 each): chi-square with 4
// degrees of freedom, whose upper tail is exp(-x/2)(1 + x/2) exactly.
export function diceStats(rolls) {
  const counts = { infantry: 0, armor: 0, grenade: 0, star: 0, flag: 0 };
  let total = 0;
  for (const r of rolls) for (const f of r.faces) { counts[f]++; total++; }
  const p = { infantry: 1 / 3, armor: 1 / 6, grenade: 1 / 6, star: 1 / 6, flag: 1 / 6 };
  let chi = 0;
  for (const f of Object.keys(counts)) {
    const e = total * p[f];
    if (e > 0) chi += (counts[f] - e) ** 2 / e;
  }
  const pValue = total ? Math.exp(-chi / 2) * (1 + chi / 2) : 1;
  let words;
  if (total < 30) words = `Only ${total} dice so far: too few to judge.`;
  else if (pValue >= 0.05) words = `Consistent with fair dice (chi-square ${chi.toFixed(1)}, p = ${pValue.toFixed(2)}).`;
  else if (pValue >= 0.001) words = `Unusual, but it happens by chance about ${Math.max(1, Math.round(pValue * 1000))} times in 1000 (chi-square ${chi.toFixed(1)}).`;
  else words = `Very unlikely for fair dice (chi-square ${chi.toFixed(1)}, p < 0.001).`;
  return { counts, total, expected: Object.fromEntries(Object.entries(p).map(([f, q]) => [f, total * q])), chi, pValue, words };
}
