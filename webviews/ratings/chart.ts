import type { RatingPoint } from './protocol';

const SVG = 'http://www.w3.org/2000/svg';
const EFFORT_ORDER = ['INSTANT', 'FAST', 'STANDARD', 'EXTENDED', 'ADVANCED', 'DEEP', 'COMPREHENSIVE', 'imported'];

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  if (text !== undefined) el.textContent = text;
  return el;
}

/**
 * Ratings over time, one line per effort level: x is the order of the ratings (oldest left),
 * y is 1–10. Built with DOM calls; every label is text. Colours come from CSS classes.
 */
export function ratingsChart(points: readonly RatingPoint[]): SVGSVGElement {
  const width = 300;
  const height = 130;
  const left = 22;
  const right = 8;
  const top = 8;
  const bottom = 18;
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': `Ratings over time, ${points.length} ratings` });
  const x = (i: number) => left + (points.length <= 1 ? (width - left - right) / 2 : (i * (width - left - right)) / (points.length - 1));
  const y = (r: number) => top + ((10 - r) * (height - top - bottom)) / 9;
  for (const r of [1, 4, 7, 10]) {
    root.append(svg('line', { x1: left, x2: width - right, y1: y(r), y2: y(r), class: 'grid' }));
    root.append(svg('text', { x: left - 4, y: y(r) + 3, class: 'axis', 'text-anchor': 'end' }, String(r)));
  }
  if (points.length > 0) {
    root.append(svg('text', { x: left, y: height - 4, class: 'axis' }, points[0]!.timestamp.slice(0, 10)));
    root.append(svg('text', { x: width - right, y: height - 4, class: 'axis', 'text-anchor': 'end' }, points[points.length - 1]!.timestamp.slice(0, 10)));
  }
  for (const effort of effortsOf(points)) {
    const series = points.map((p, i) => ({ p, i })).filter(({ p }) => p.effort === effort);
    const cls = `series effort-${effort.toLowerCase()}`;
    if (series.length > 1) root.append(svg('polyline', { points: series.map(({ p, i }) => `${x(i)},${y(p.rating)}`).join(' '), class: `${cls} line` }));
    for (const { p, i } of series) {
      const dot = svg('circle', { cx: x(i), cy: y(p.rating), r: 3, class: `${cls} dot` });
      dot.append(svg('title', {}, `${p.rating}/10 · ${p.effort} · ${p.timestamp.slice(0, 16).replace('T', ' ')}${p.comment ? ` · ${p.comment}` : ''}`));
      root.append(dot);
    }
  }
  return root;
}

export function effortsOf(points: readonly RatingPoint[]): string[] {
  return [...new Set(points.map((p) => p.effort))].sort((a, b) => EFFORT_ORDER.indexOf(a) - EFFORT_ORDER.indexOf(b));
}
