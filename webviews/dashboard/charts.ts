/**
 * The dashboard's charts, drawn as the Ratings view's chart is (webviews/ratings/chart.ts): SVG
 * made with DOM calls, every label a text node, colours from CSS classes (the theme's). No
 * charting library: three shapes (bars, stacked bars, lines) over at most a few hundred points
 * cost a few hundred lines here, where the small libraries that draw them (Chart.js, uPlot) add
 * 50–200 KB to a bundle that is otherwise ~25 KB and want a canvas or inline styles, which the
 * webview's CSP (no 'unsafe-inline') refuses. Each chart is hidden from screen readers: the
 * table beside it (charts-figure.ts) carries the same figures.
 */
const SVG = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  if (text !== undefined) el.textContent = text;
  return el;
}

export interface Series {
  name: string;
  /** CSS class of its colour, e.g. `s-pass`. */
  cls: string;
  /** One value per label; undefined: no point. */
  values: readonly (number | undefined)[];
}

export interface ChartSpec {
  labels: readonly string[];
  series: readonly Series[];
  /** Axis and tooltip text of a value. */
  format: (value: number) => string;
  /** The y axis's fixed range (a percentage 0–100, a rating 1–10); else 0 to the largest value. */
  min?: number;
  max?: number;
  /** Whole numbers (counts): the axis's top is rounded up so that its three steps are whole too. */
  integer?: boolean;
}

/**
 * The drawing's width in its own units: the width a panel of the page has (dashboard.css lays
 * them out in columns at least 440 px wide, 12 px apart), so a label drawn 10 units high shows
 * about 10 pixels high. An SVG scales its text with it: drawn 600 wide and shown 300 wide, its
 * labels would be 5 pixels. The page draws again when the window's width changes (redraw.ts).
 */
function chartWidth(): number {
  if (typeof window === 'undefined') return 600;
  const content = Math.min(window.innerWidth, 1400) - 32;
  const columns = Math.max(1, Math.floor((content + 12) / 452));
  const panel = (content - 12 * (columns - 1)) / columns - 22;
  return Math.round(Math.max(260, Math.min(600, panel)));
}
let W = 600;
const H = 170;
const LEFT = 44;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 20;

function frame(spec: ChartSpec, top: number): { root: SVGSVGElement; y: (v: number) => number; min: number; max: number } {
  W = chartWidth();
  const min = spec.min ?? 0;
  const wanted = spec.max ?? top;
  const max = spec.integer ? min + Math.max(3, Math.ceil((wanted - min) / 3) * 3) : Math.max(wanted, min + 1e-9);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', 'aria-hidden': 'true', focusable: 'false' });
  const y = (v: number) => TOP + ((max - Math.min(max, Math.max(min, v))) * (H - TOP - BOTTOM)) / (max - min);
  for (let i = 0; i <= 3; i++) {
    const v = min + ((max - min) * i) / 3;
    root.append(svg('line', { x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v), class: 'grid' }));
    root.append(svg('text', { x: LEFT - 4, y: y(v) + 3, class: 'axis', 'text-anchor': 'end' }, spec.format(v)));
  }
  const n = spec.labels.length;
  if (n > 0) {
    root.append(svg('text', { x: LEFT, y: H - 5, class: 'axis' }, spec.labels[0]!));
    if (n > 1) root.append(svg('text', { x: W - RIGHT, y: H - 5, class: 'axis', 'text-anchor': 'end' }, spec.labels[n - 1]!));
  }
  return { root, y, min, max };
}

/** Bars per label, the series stacked (runs by end state, a day's cost). */
export function stackedBars(spec: ChartSpec): SVGSVGElement {
  const n = spec.labels.length;
  const sums = spec.labels.map((_, i) => spec.series.reduce((s, se) => s + (se.values[i] ?? 0), 0));
  const { root, y } = frame(spec, Math.max(0, ...sums));
  const slot = (W - LEFT - RIGHT) / Math.max(1, n);
  const width = Math.max(1, Math.min(28, slot * 0.75));
  for (let i = 0; i < n; i++) {
    let base = spec.min ?? 0;
    for (const se of spec.series) {
      const v = se.values[i] ?? 0;
      if (v <= 0) continue;
      const bar = svg('rect', { x: LEFT + slot * i + (slot - width) / 2, y: y(base + v), width, height: Math.max(0.5, y(base) - y(base + v)), class: `bar ${se.cls}` });
      bar.append(svg('title', {}, `${spec.labels[i]} · ${se.name}: ${spec.format(v)}`));
      root.append(bar);
      base += v;
    }
  }
  return root;
}

/** One line per series, points where there is a value (a day with no COMPLETE run has no time to COMPLETE). */
export function lines(spec: ChartSpec): SVGSVGElement {
  const n = spec.labels.length;
  const all = spec.series.flatMap((s) => s.values.filter((v): v is number => v !== undefined));
  const { root, y } = frame(spec, Math.max(0, ...all));
  const x = (i: number) => LEFT + (n <= 1 ? (W - LEFT - RIGHT) / 2 : (i * (W - LEFT - RIGHT)) / (n - 1));
  for (const se of spec.series) {
    const points = se.values.map((v, i) => ({ v, i })).filter((p): p is { v: number; i: number } => p.v !== undefined);
    if (points.length > 1) root.append(svg('polyline', { points: points.map((p) => `${x(p.i)},${y(p.v)}`).join(' '), class: `line ${se.cls}` }));
    for (const p of points) {
      const dot = svg('circle', { cx: x(p.i), cy: y(p.v), r: n > 60 ? 1.5 : 3, class: `dot ${se.cls}` });
      dot.append(svg('title', {}, `${spec.labels[p.i]} · ${se.name}: ${spec.format(p.v)}`));
      root.append(dot);
    }
  }
  return root;
}

/** Horizontal bars, one per label, with the label written at its left (failing criteria, hosts). */
export function horizontalBars(labels: readonly string[], series: readonly Series[], format: (v: number) => string): SVGSVGElement {
  W = chartWidth();
  const rowH = 22;
  const labelW = Math.round(W * 0.3);
  const height = TOP + rowH * labels.length + 4;
  const root = svg('svg', { viewBox: `0 0 ${W} ${height}`, class: 'chart', 'aria-hidden': 'true', focusable: 'false' });
  const sums = labels.map((_, i) => series.reduce((s, se) => s + (se.values[i] ?? 0), 0));
  const max = Math.max(1, ...sums);
  const scale = (W - labelW - RIGHT - 40) / max;
  labels.forEach((label, i) => {
    const top = TOP + rowH * i;
    root.append(svg('text', { x: labelW - 6, y: top + rowH / 2 + 3, class: 'axis label', 'text-anchor': 'end' }, label.length > labelW / 5.5 ? `${label.slice(0, Math.floor(labelW / 5.5) - 1)}…` : label));
    let at = labelW;
    for (const se of series) {
      const v = se.values[i] ?? 0;
      if (v <= 0) continue;
      const bar = svg('rect', { x: at, y: top + 4, width: Math.max(1, v * scale), height: rowH - 8, class: `bar ${se.cls}` });
      bar.append(svg('title', {}, `${label} · ${se.name}: ${format(v)}`));
      root.append(bar);
      at += v * scale;
    }
    root.append(svg('text', { x: at + 4, y: top + rowH / 2 + 3, class: 'axis' }, format(sums[i]!)));
  });
  return root;
}
