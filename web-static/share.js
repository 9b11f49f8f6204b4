// Sharing a campaign's links at the table: the system's share sheet where the browser has one,
// copy otherwise, and a QR code to scan from another phone. The QR code comes from qrcode.js
// (Kazuhiko Arase, MIT: /assets/qrcode-LICENSE.txt), loaded as a plain script.
import { h, svg, say } from './dom.js';
import { errorSlot, showError } from './actions.js';

// A campaign's page (`page` "c") or a grand campaign's ("g"), with a role's key.
export function linkFor(id, key, page = 'c') {
  return `${window.location.origin}/${page}/${id}#key=${key}`;
}

// The link anyone may have: the page without a key, to follow the campaign and act on nothing.
export function readOnlyCard(id, page = 'c') {
  return [h('p', { class: 'hint', text: 'To let someone follow without acting (a friend, the group), share this link: it holds no key.' }),
    linkCard('reader', 'Read only', `${window.location.origin}/${page}/${id}`)];
}

// The QR code of `text` as SVG: one path of dark modules on a white square with a quiet zone.
export function qrSvg(text, label) {
  const qr = window.qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const n = qr.getModuleCount();
  const quiet = 4;
  let d = '';
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) if (qr.isDark(r, c)) d += `M${c + quiet} ${r + quiet}h1v1h-1z`;
  }
  const size = n + 2 * quiet;
  return svg('svg', { viewBox: `0 0 ${size} ${size}`, class: 'qr', role: 'img', 'aria-label': label, 'shape-rendering': 'crispEdges' },
    svg('rect', { x: 0, y: 0, width: size, height: size, fill: '#fff' }),
    svg('path', { d, fill: '#000' }));
}

// One link: its text, Share (or Copy), and a QR code shown on demand.
export function linkCard(role, label, url) {
  const input = h('input', { type: 'text', readonly: true, value: url, id: `link-${role}`, 'aria-label': `${label} link` });
  const status = h('span', { class: 'ok', 'aria-live': 'polite' });
  const copy = async () => {
    try { await navigator.clipboard.writeText(url); } catch { input.select(); document.execCommand('copy'); }
    status.textContent = 'Copied';
    say(`${label} link copied`);
  };
  const share = h('button', { type: 'button', class: 'secondary', id: `share-${role}` }, navigator.share ? 'Share' : 'Copy');
  share.addEventListener('click', async () => {
    if (navigator.share) {
      try { await navigator.share({ title: `Memoir '44 campaign: ${label}`, url }); return; } catch (e) { if (e.name === 'AbortError') return; }
    }
    await copy();
  });
  const qrBox = h('div', { class: 'qr-box', id: `qr-${role}`, hidden: true });
  const qrButton = h('button', { type: 'button', class: 'secondary', id: `show-qr-${role}`, 'aria-expanded': 'false' }, 'QR code');
  qrButton.addEventListener('click', () => {
    if (!qrBox.firstChild) qrBox.append(qrSvg(url, `QR code of the ${label} link`), h('p', { class: 'hint', text: 'Scan it with the phone that should open this link.' }));
    qrBox.hidden = !qrBox.hidden;
    qrButton.setAttribute('aria-expanded', String(!qrBox.hidden));
  });
  return h('div', { class: 'link-card', 'data-role': role }, h('label', { for: input.id, text: label }),
    h('div', { class: 'row' }, input, share, qrButton, status), qrBox);
}

// "New <label> link…", then a confirmation; `send` makes the new key (and says so), and a
// refusal it throws is said under the control.
export function reissueControl(role, label, send) {
  const err = errorSlot();
  const start = h('button', { type: 'button', class: 'secondary', id: `reissue-${role}` }, `New ${label} link…`);
  const yes = h('button', { type: 'button', class: 'danger', id: `confirm-reissue-${role}`, hidden: true }, `Yes: a new ${label} link; the old one stops working`);
  start.addEventListener('click', () => { yes.hidden = false; yes.focus(); });
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    err.hidden = true;
    try {
      await send();
    } catch (e) {
      showError(err, e);
      yes.disabled = false;
    }
  });
  return h('div', { class: 'reissue' }, start, yes, err);
}
