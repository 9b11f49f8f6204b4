// A tiny element builder. Text always goes in as text (never as HTML), so names typed by
// players cannot inject markup.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function svg(tag, attrs, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k === 'text') el.textContent = v;
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) if (c) el.append(c);
  return el;
}

export function say(message) {
  const live = document.getElementById('live');
  if (live) live.textContent = message;
}

// A labelled control, with an optional hint after the label.
export function field(label, control, hint) {
  return h('div', {}, h('label', { for: control.id }, label, hint ? h('span', { class: 'hint', text: ` — ${hint}` }) : null), control);
}

export const SIDES = ['allies', 'axis'];
export const SIDE_TITLE = { allies: 'Allies', axis: 'Axis' };
