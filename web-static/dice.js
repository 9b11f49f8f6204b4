// Die faces drawn as SVG (the symbols of a Memoir '44 battle die), and a face picker for
// dice rolled at the table.
import { h, svg } from './dom.js';

export const FACES = ['infantry', 'armor', 'grenade', 'star', 'flag'];
const TITLES = { infantry: 'Infantry', armor: 'Armor', grenade: 'Grenade', star: 'Star', flag: 'Flag' };

function symbol(face) {
  switch (face) {
    case 'infantry': // a soldier: helmet, head, body
      return [
        svg('circle', { cx: 32, cy: 22, r: 7, fill: '#1f4e9c' }),
        svg('path', { d: 'M22 19 Q32 8 42 19 Z', fill: '#1f4e9c' }),
        svg('path', { d: 'M22 50 L25 32 Q32 28 39 32 L42 50 Z', fill: '#1f4e9c' }),
      ];
    case 'armor': // a tank: tracks, hull, turret, gun
      return [
        svg('rect', { x: 14, y: 38, width: 36, height: 10, rx: 5, fill: '#222' }),
        svg('rect', { x: 17, y: 29, width: 30, height: 10, rx: 2, fill: '#333' }),
        svg('rect', { x: 25, y: 22, width: 14, height: 9, rx: 3, fill: '#333' }),
        svg('rect', { x: 38, y: 24, width: 15, height: 3, fill: '#333' }),
      ];
    case 'grenade':
      return [
        svg('ellipse', { cx: 32, cy: 37, rx: 10, ry: 13, fill: '#b3261e' }),
        svg('rect', { x: 28, y: 19, width: 8, height: 6, fill: '#7a1a14' }),
        svg('path', { d: 'M36 21 Q46 18 44 30', stroke: '#7a1a14', 'stroke-width': 3, fill: 'none' }),
      ];
    case 'star':
      return [svg('path', { d: 'M32 12l5.9 12 13.1 1.9-9.5 9.3 2.2 13.1L32 42.1l-11.7 6.2 2.2-13.1-9.5-9.3 13.1-1.9z', fill: '#2f7d32' })];
    case 'flag':
      return [
        svg('rect', { x: 22, y: 12, width: 3, height: 40, fill: '#4a2b6b' }),
        svg('path', { d: 'M25 13 L46 20 L25 28 Z', fill: '#6a3d9a' }),
      ];
    default:
      return [svg('text', { x: 32, y: 40, 'text-anchor': 'middle', 'font-size': 20, text: '?' })];
  }
}

export function die(face, { small = false } = {}) {
  const el = svg('svg', { viewBox: '0 0 64 64', class: small ? 'die small' : 'die', role: 'img', 'aria-label': TITLES[face] || face },
    svg('title', { text: TITLES[face] || face }),
    svg('rect', { x: 3, y: 3, width: 58, height: 58, rx: 11, fill: '#f4efe1', stroke: '#3b3a2e', 'stroke-width': 3 }),
    symbol(face));
  el.dataset.face = face;
  return el;
}

export function diceRow(faces, opts) {
  return h('div', { class: 'dice' }, faces.map((f) => die(f, opts)));
}

// Tap faces to enter dice rolled at the table. onChange(faces) on every change.
export function picker(count, onChange) {
  const entered = [];
  const list = h('div', { class: 'dice entered', 'aria-label': 'Faces entered' });
  const status = h('p', { class: 'hint' });
  const redraw = () => {
    list.replaceChildren(...entered.map((f, i) => h('button', {
      type: 'button', 'aria-label': `Remove ${TITLES[f]} (die ${i + 1})`,
      onclick: () => { entered.splice(i, 1); redraw(); },
    }, die(f, { small: true }))));
    status.textContent = `${entered.length} of ${count} face${count === 1 ? '' : 's'} entered${entered.length ? ' (tap an entered die to remove it)' : ''}`;
    onChange(entered.slice());
  };
  const buttons = h('div', { class: 'picker', role: 'group', 'aria-label': 'Add a face' },
    FACES.map((f) => h('button', {
      type: 'button', 'aria-label': `Add ${TITLES[f]}`, dataset: { face: f },
      onclick: () => { if (entered.length < count) { entered.push(f); redraw(); } },
    }, die(f))));
  const el = h('div', { class: 'face-picker' }, buttons, list, status);
  redraw();
  return el;
}
