// The API contract as a test oracle: a small HTTP server on 127.0.0.1 that checks one response
// at a time against api/openapi.json (Ajv, JSON Schema 2020-12, as OpenAPI 3.1 uses). The API
// suite's HTTP client (tests/common/http.c) sends it every response it gets from m44d:
//   POST /check {"method","path","status","content_type","body"}
//   -> {"ok": true} | {"ok": false, "errors": ["..."]} | {"ok": true, "skipped": "why"}
// A response whose status the document does not list for that operation, or whose body does not
// match the schema documented for that status and content type, is an error. Requests to paths
// or methods the document does not describe at all (a hostile client's 404 or 405) are skipped.
// Started as: node validate.mjs OPENAPI_JSON; prints "listening PORT" when ready.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const docPath = process.argv[2];
const doc = JSON.parse(readFileSync(docPath, 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addSchema(doc, 'openapi.json');

const pointer = (...parts) => parts.map((p) => encodeURIComponent(String(p).replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
const templates = Object.keys(doc.paths).map((t) => ({ t, segs: t.split('/') }));
const compiled = new Map();

// The documented path template for a concrete path: literal segments beat parameters.
function template(path) {
  const segs = path.split('/');
  let best = null;
  let bestLiterals = -1;
  for (const { t, segs: ts } of templates) {
    if (ts.length !== segs.length) continue;
    let literals = 0;
    let ok = true;
    for (let i = 0; i < ts.length && ok; i++) {
      if (/^\{[^}]+\}$/.test(ts[i])) ok = segs[i].length > 0;
      else if (ts[i] === segs[i]) literals++;
      else ok = false;
    }
    if (ok && literals > bestLiterals) { best = t; bestLiterals = literals; }
  }
  return best;
}

function check({ method, path, status, content_type: contentType, body }) {
  const m = (method === 'HEAD' ? 'get' : method.toLowerCase());
  const bare = path.split('?')[0];
  const t = template(bare);
  if (!t) return { ok: true, skipped: `no documented path for ${bare}` };
  const op = doc.paths[t][m];
  if (!op) return { ok: true, skipped: `${method} ${t} is not documented (a 405)` };
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses[k]);
  if (!key) return { ok: false, errors: [`${method} ${t}: status ${status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`] };
  const resp = op.responses[key];
  const type = (contentType || '').split(';')[0].trim();
  if (method === 'HEAD' || status === 304 || status === 204) {
    return { ok: true };
  }
  if (!resp.content) {
    return body && body.length ? { ok: false, errors: [`${method} ${t} ${status}: the document says no body, got ${type || 'one'}`] } : { ok: true };
  }
  const media = resp.content[type];
  if (!media) return { ok: false, errors: [`${method} ${t} ${status}: content type ${type || '(none)'} is not documented (documented: ${Object.keys(resp.content).join(', ')})`] };
  if (!media.schema || !/json/.test(type)) return { ok: true };
  let data;
  try { data = JSON.parse(body); } catch (e) { return { ok: false, errors: [`${method} ${t} ${status}: the body is not JSON: ${e.message}`] }; }
  const ref = `openapi.json#/${pointer('paths', t, m, 'responses', key, 'content', type, 'schema')}`;
  let validate = compiled.get(ref);
  if (!validate) {
    validate = ajv.getSchema(ref);
    if (!validate) return { ok: false, errors: [`cannot compile the schema at ${ref}`] };
    compiled.set(ref, validate);
  }
  if (validate(data)) return { ok: true };
  return { ok: false, errors: validate.errors.slice(0, 8).map((e) => `${method} ${t} ${status}: ${e.instancePath || '(body)'} ${e.message}${e.params && e.params.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`) };
}

const server = createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (c) => { raw += c; });
  req.on('end', () => {
    let out;
    try { out = check(JSON.parse(raw)); } catch (e) { out = { ok: false, errors: [`validator: ${e.message}`] }; }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(out));
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
