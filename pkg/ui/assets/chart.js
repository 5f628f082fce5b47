// The weight chart of one interest fact: the curve the server computed from
// its decay policy (mentions, decay steps, the step below the archive floor,
// the expiry), drawn as steps, with the floor and now. No decay arithmetic
// happens here: the points come from GET /v1/users/{id}/facts.
import { h, svg, time, weight } from './core.js';

const W = 360;
const H = 140;
const PAD = { left: 26, right: 10, top: 14, bottom: 18 };

/** weightChart draws fact.curve; at is the server's now, rule the fact type's policy. */
export function weightChart(fact, at, rule) {
  const pts = fact.curve || [];
  if (pts.length === 0) return h('p', { class: 'empty small' }, 'No mentions to draw.');
  const now = new Date(at).getTime();
  const times = pts.map((p) => new Date(p.at).getTime());
  let t0 = Math.min(...times);
  let t1 = Math.max(...times, now);
  if (t1 - t0 < 3600e3) { t0 -= 1800e3; t1 += 1800e3; }
  const span = t1 - t0;
  t0 -= span * 0.02;
  t1 += span * 0.02;
  const x = (t) => PAD.left + ((t - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
  const top = Math.max(1, ...pts.map((p) => p.weight));
  const y = (w) => PAD.top + (1 - w / top) * (H - PAD.top - PAD.bottom);
  const f = (v) => v.toFixed(1);

  // Steps: the weight holds until the next point, then changes at once; an
  // expiry drops it to nothing until the next mention.
  let d = '';
  let cur = null;
  pts.forEach((p, i) => {
    const px = x(times[i]);
    if (cur === null) {
      d += `M${f(px)},${f(y(p.weight))}`;
    } else {
      d += `H${f(px)}V${f(y(p.weight))}`;
    }
    cur = p.weight;
    if (p.kind === 'expired') {
      d += `V${f(y(0))}`;
      cur = 0;
    }
  });
  const last = pts[pts.length - 1];
  if (last.kind !== 'expired' && now > times[times.length - 1]) d += `H${f(x(now))}`;

  const yTicks = [0, 0.5, 1].filter((v) => v <= top);
  const chart = svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img',
    'aria-label': `weight of ${fact.display || fact.value} over time` },
  svg('title', null, `${fact.display || fact.value}: weight ${weight(fact.weight)} now`),
  svg('line', { class: 'axis', x1: PAD.left, y1: y(0), x2: W - PAD.right, y2: y(0) }),
  svg('line', { class: 'axis', x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: y(0) }),
  yTicks.map((v) => svg('text', { x: 2, y: y(v) + 3 }, String(v))),
  rule ? [
    svg('line', { class: 'floor', x1: PAD.left, y1: y(rule.floor), x2: W - PAD.right, y2: y(rule.floor) }),
    svg('text', { x: PAD.left + 4, y: y(rule.floor) - 3 }, `archive floor ${rule.floor}`),
  ] : null,
  now >= t0 && now <= t1 ? [
    svg('line', { class: 'now', x1: x(now), y1: PAD.top, x2: x(now), y2: y(0) }),
    svg('text', { x: x(now) + 3, y: PAD.top - 4 }, 'now'),
  ] : null,
  svg('text', { x: x(times[0]), y: H - 4 }, time(pts[0].at).slice(0, 10)),
  svg('text', { x: x(times[times.length - 1]), y: H - 4, 'text-anchor': 'end' }, time(last.at).slice(0, 10)),
  svg('path', { class: 'curve', d }),
  pts.map((p, i) => svg('circle', { class: p.kind, cx: f(x(times[i])), cy: f(y(p.weight)), r: p.kind === 'decay' ? 2.5 : 3.5 },
    svg('title', null, `${p.kind} ${time(p.at)}: ${weight(p.weight)}`))));
  return chart;
}

export function chartLegend() {
  return h('div', { class: 'legend' },
    ['mention', 'decay', 'archived', 'expired'].map((k) => h('span', null, h('i', { class: k }), k)),
    h('span', null, '- - archive floor · now'));
}
