// Two small charts drawn as SVG: medals per battle per side, and Reserve Tokens over the
// campaign. Hand-written: a few rectangles and lines need no charting library.
import { h, svg, SIDES, SIDE_TITLE } from './dom.js';

const COLOR = { allies: '#1f4e9c', axis: '#6b3a2e' };
// A narrow drawing scales up on a desktop and stays legible on a phone.
const W = 420, H = 220, L = 30, R = 10, T = 12, B = 30;

// The top of the scale: a multiple of a whole step, so the gridlines fall on whole numbers.
function scaleTop(max) {
  const step = Math.max(1, Math.ceil(max / 4));
  return { top: step * Math.ceil(max / step), step };
}

function axes(maxY, step) {
  const g = [];
  for (let v = 0; v <= maxY; v += step) {
    const y = H - B - ((H - T - B) * v) / maxY;
    g.push(svg('line', { x1: L, x2: W - R, y1: y, y2: y, stroke: '#ddd8c8' }));
    g.push(svg('text', { x: L - 6, y: y + 4, 'text-anchor': 'end', 'font-size': 12, fill: '#55534a', text: String(v) }));
  }
  return g;
}

function legend() {
  return h('div', { class: 'legend', 'aria-hidden': 'true' },
    SIDES.map((s) => h('span', { class: `l-${s}`, text: SIDE_TITLE[s] })));
}

// battles: [{number, result: {medals: {allies, axis}}}]
export function medalsChart(battles) {
  const done = battles.filter((b) => b.result);
  if (!done.length) return h('p', { class: 'muted', text: 'No battle finished yet.' });
  const { top: maxY, step } = scaleTop(Math.max(4, ...done.flatMap((b) => SIDES.map((s) => b.result.medals[s]))));
  const slot = (W - L - R) / done.length;
  const bw = Math.min(28, slot / 3);
  const bars = [];
  done.forEach((b, i) => {
    const cx = L + slot * i + slot / 2;
    SIDES.forEach((s, k) => {
      const v = b.result.medals[s];
      const hgt = ((H - T - B) * v) / maxY;
      bars.push(svg('rect', {
        x: cx + (k ? 2 : -bw - 2), y: H - B - hgt, width: bw, height: Math.max(hgt, 0.5), fill: COLOR[s],
        'data-side': s, 'data-battle': b.number, 'data-value': v, class: 'bar',
      }, svg('title', { text: `Battle ${b.number}, ${SIDE_TITLE[s]}: ${v} medal${v === 1 ? '' : 's'}` })));
    });
    bars.push(svg('text', { x: cx, y: H - B + 18, 'text-anchor': 'middle', 'font-size': 12, fill: '#55534a', text: `B${b.number}` }));
  });
  const desc = done.map((b) => `battle ${b.number}: Allies ${b.result.medals.allies}, Axis ${b.result.medals.axis}`).join('; ');
  return h('figure', { class: 'chart-figure' },
    svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': `Medals per battle: ${desc}`, id: 'medals-chart' },
      axes(maxY, step), bars),
    legend());
}

// history: token ledger rows [{seq, side, balance, battle}] in order; battles: the campaign's.
// One point at the start and one after each battle: each side's tokens then.
export function tokensChart(history, battles) {
  if (!history.length) return h('p', { class: 'muted', text: 'No Reserve Tokens in this campaign.' });
  const bal = { allies: 0, axis: 0 };
  const points = [];
  const upTo = (limit) => {
    for (const row of history) if ((row.battle || 0) <= limit) bal[row.side] = row.balance;
    return { ...bal };
  };
  points.push({ label: 'Start', ...upTo(0) });
  for (const b of battles) points.push({ label: `B${b.number}`, battle: b.number, ...upTo(b.number) });
  const { top: maxY, step } = scaleTop(Math.max(3, ...points.flatMap((p) => SIDES.map((s) => p[s]))));
  const n = points.length;
  const x = (i) => L + 14 + (n === 1 ? (W - L - R - 28) / 2 : ((W - L - R - 28) * i) / (n - 1));
  const y = (v) => H - B - ((H - T - B) * v) / maxY;
  const lines = SIDES.map((s) => {
    const d = points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)} ${y(p[s]).toFixed(1)}`).join(' ');
    return [
      svg('path', { d, fill: 'none', stroke: COLOR[s], 'stroke-width': 3, 'data-side': s, 'stroke-dasharray': s === 'axis' ? '6 3' : null }),
      points.map((p, i) => svg('circle', { cx: x(i), cy: y(p[s]), r: 4, fill: COLOR[s], class: 'point', 'data-side': s, 'data-value': p[s] },
        svg('title', { text: `${SIDE_TITLE[s]}: ${p[s]} token${p[s] === 1 ? '' : 's'} (${p.battle ? `after battle ${p.battle}` : 'at the start'})` }))),
    ];
  });
  const labels = points.map((p, i) => svg('text', { x: x(i), y: H - B + 18, 'text-anchor': 'middle', 'font-size': 12, fill: '#55534a', text: p.label }));
  const last = points[n - 1];
  return h('figure', { class: 'chart-figure' },
    svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', id: 'tokens-chart',
      'aria-label': `Reserve Tokens over the campaign, now Allies ${last.allies}, Axis ${last.axis}` },
      axes(maxY, step), lines, labels),
    legend());
}

// A grand campaign's points: each side's total at the start and after each campaign finished.
// campaigns: [{place, name, status, winner, points}]
export function pointsChart(campaigns) {
  const done = campaigns.filter((c) => c.status === 'finished');
  if (!done.length) return h('p', { class: 'muted', text: 'No campaign finished yet.' });
  const total = { allies: 0, axis: 0 };
  const points = [{ label: 'Start', allies: 0, axis: 0 }];
  for (const c of done) {
    if (c.winner) total[c.winner] += c.points;
    points.push({ label: `C${c.place}`, name: c.name, ...total });
  }
  const { top: maxY, step } = scaleTop(Math.max(2, total.allies, total.axis));
  const n = points.length;
  const x = (i) => L + 14 + ((W - L - R - 28) * i) / (n - 1);
  const y = (v) => H - B - ((H - T - B) * v) / maxY;
  const lines = SIDES.map((s) => [
    svg('path', { d: points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)} ${y(p[s]).toFixed(1)}`).join(' '), fill: 'none', stroke: COLOR[s], 'stroke-width': 3, 'data-side': s, 'stroke-dasharray': s === 'axis' ? '6 3' : null }),
    points.map((p, i) => svg('circle', { cx: x(i), cy: y(p[s]), r: 4, fill: COLOR[s], class: 'point', 'data-side': s, 'data-value': p[s] },
      svg('title', { text: `${SIDE_TITLE[s]}: ${p[s]} point${p[s] === 1 ? '' : 's'} (${p.name ? `after ${p.name}` : 'at the start'})` }))),
  ]);
  const labels = points.map((p, i) => svg('text', { x: x(i), y: H - B + 18, 'text-anchor': 'middle', 'font-size': 12, fill: '#55534a', text: p.label }));
  return h('figure', { class: 'chart-figure' },
    svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', id: 'points-chart',
      'aria-label': `Grand campaign points after each campaign, now Allies ${total.allies}, Axis ${total.axis}` },
      axes(maxY, step), lines, labels),
    legend());
}
