import { h, type Child } from '../shared/dom';

/** A table's header and rows, every cell text. */
export interface TableSpec {
  caption: string;
  columns: readonly string[];
  rows: readonly (readonly Child[])[];
  /** Right-align these columns (figures). */
  numeric?: readonly number[];
}

let nextId = 1;

export function dataTable(spec: TableSpec, extraClass = ''): HTMLTableElement {
  const numeric = new Set(spec.numeric ?? []);
  return h(
    'table',
    { class: `grid data-table ${extraClass}`.trim() },
    h('caption', { class: 'sr-caption' }, spec.caption),
    h('thead', {}, h('tr', {}, ...spec.columns.map((c, i) => h('th', { class: numeric.has(i) ? 'num' : '', attrs: { scope: 'col' } }, c)))),
    h('tbody', {}, ...spec.rows.map((cells) => h('tr', {}, ...cells.map((c, i) => (i === 0 ? h('th', { attrs: { scope: 'row' } }, c) : h('td', { class: numeric.has(i) ? 'num' : '' }, c)))))),
  );
}

/**
 * A chart and its table: the chart for the eye (hidden from screen readers), the table for a
 * screen reader always (visually hidden until "Table" is pressed, which swaps the two).
 */
export function chartFigure(options: { key: string; title: string; note?: string; chart: SVGSVGElement; legend?: readonly { name: string; cls: string }[]; table: TableSpec; showTable?: boolean }): HTMLElement {
  const id = `table-${nextId++}`;
  const table = dataTable(options.table);
  table.id = id;
  const chartBox = h('div', { class: 'chart-box' }, options.chart);
  const toggle = h('button', { class: 'table-toggle', attrs: { type: 'button', 'aria-pressed': 'false', 'aria-controls': id } }, 'Table');
  const figure = h(
    'figure',
    { class: 'panel chart-figure', dataset: { chart: options.key } },
    h('div', { class: 'panel-head' }, h('h2', {}, options.title), toggle),
    options.note ? h('p', { class: 'muted note' }, options.note) : null,
    options.legend && options.legend.length > 1 ? h('div', { class: 'legends', attrs: { 'aria-hidden': 'true' } }, ...options.legend.map((l) => h('span', { class: `legend ${l.cls}` }, l.name))) : null,
    chartBox,
    h('div', { class: 'table-wrap' }, table),
  );
  const show = (asTable: boolean) => {
    figure.classList.toggle('as-table', asTable);
    toggle.setAttribute('aria-pressed', String(asTable));
    toggle.textContent = asTable ? 'Chart' : 'Table';
  };
  toggle.addEventListener('click', () => show(!figure.classList.contains('as-table')));
  show(options.showTable ?? false);
  return figure;
}

/** A panel with a table only (lists with no figure to plot: TAMPERED events, PRDs, recent runs). */
export function tablePanel(key: string, title: string, table: TableSpec, empty: string): HTMLElement {
  return h(
    'section',
    { class: 'panel table-panel', dataset: { table: key }, attrs: { 'aria-label': title } },
    h('div', { class: 'panel-head' }, h('h2', {}, title)),
    table.rows.length === 0 ? h('p', { class: 'muted empty' }, empty) : h('div', { class: 'table-wrap visible' }, dataTable(table)),
  );
}
