// The REST API: JSON in and out; problems (RFC 7807) become ApiError with the field named.
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem && problem.detail ? problem.detail : `HTTP ${status}`);
    this.status = status;
    this.code = problem && problem.code;
    this.field = problem && problem.field;
    this.phase = problem && problem.phase;
  }
}

export function randomHex(bytes) {
  const b = new Uint8Array(bytes);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

// One request. POSTs carry an Idempotency-Key, and are retried once with the same key when
// the network fails, so a flaky connection at the table never rolls twice.
export async function api(method, path, { key, body, etag, signal } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (key) headers.Authorization = `Bearer ${key}`;
  if (etag) headers['If-None-Match'] = etag;
  if (method === 'POST') headers['Idempotency-Key'] = randomHex(16);
  const init = { method, headers, signal, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body) };
  let res;
  try {
    res = await fetch(`/api/v1${path}`, init);
  } catch (e) {
    if (method !== 'POST' || (signal && signal.aborted)) throw e;
    res = await fetch(`/api/v1${path}`, init);
  }
  if (res.status === 304) return { status: 304, etag: res.headers.get('ETag') };
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) throw new ApiError(res.status, data || { detail: `HTTP ${res.status}: ${text.slice(0, 200)}` });
  return { status: res.status, data, etag: res.headers.get('ETag') };
}
