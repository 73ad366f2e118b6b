import { h, replaceChildren } from '../shared/dom';
import type { EvidenceLocation, TableRow } from './protocol';
import { evidenceParts, formatDuration } from './view-model';

export interface RowActions {
  toggle(id: string): void;
  reverify(id: string): void;
  startEdit(id: string): void;
  openLocation(location: EvidenceLocation): void;
}

export const COLUMNS = [
  { key: 'id', label: 'ID', sort: 'id' },
  { key: 'text', label: 'Criterion' },
  { key: 'priority', label: 'Priority', sort: 'priority' },
  { key: 'source', label: 'Source' },
  { key: 'domain', label: 'Domain', sort: 'domain' },
  { key: 'verify', label: 'Verify' },
  { key: 'status', label: 'Status', sort: 'status' },
  { key: 'outcome', label: 'Outcome', sort: 'outcome' },
  { key: 'duration', label: 'Time', sort: 'duration' },
  { key: 'claimed', label: 'Claimed by' },
  { key: 'actions', label: '' },
] as const;

const OUTCOME_CLASS: Record<string, string> = { PASS: 'pass', FAIL: 'fail', PARTIAL: 'warn', UNKNOWN: 'unknown' };

/**
 * The cells of a row, built once and cloned: cloning a template and setting text is several
 * times faster than creating each element, which matters for a 1,000-row first paint.
 */
let template: HTMLElement | undefined;
function cellsTemplate(): HTMLElement {
  const cell = (name: string, ...children: Node[]) => h('div', { class: `cell c-${name}`, attrs: { role: 'gridcell' } }, ...children);
  template ??= h(
    'div',
    { class: 'cells' },
    cell('id mono', h('span', { class: 'twisty', attrs: { 'aria-hidden': 'true' } }), h('span', { class: 'id' })),
    cell('text', h('span', { class: 'anti-mark', title: 'Anti-criterion: holds when this is NOT true' }, 'NOT '), h('span', { class: 'text' })),
    cell('priority', h('span', { class: 'prio' })),
    cell('source muted'),
    cell('domain'),
    cell('verify mono', h('span', { class: 'method' })),
    cell('status', h('span', { class: 'status' })),
    cell('outcome', h('span', { class: 'badge outcome', attrs: { 'data-outcome': '' } }, h('span', { class: 'outcome-word' }), h('span', { class: 'stale-mark', title: 'Stale: verified before the criterion or the workspace changed' }, ' · stale'))),
    cell('duration muted'),
    cell('claimed muted'),
    cell(
      'actions',
      h('button', { class: 'icon', attrs: { type: 'button', 'data-action': 'reverify', tabindex: -1 } }, '↻'),
      h('button', { class: 'icon', attrs: { type: 'button', 'data-action': 'edit', tabindex: -1 } }, '✎'),
    ),
  );
  return template;
}

/**
 * One element per criterion — a grid row, not a `<tr>`, so rows off screen skip layout
 * through `content-visibility` (table rows cannot). Its content is rebuilt in place when
 * the row changes; the element stays, so focus does too. Its evidence lives inside it
 * when expanded. Clicks are handled once for the whole table (see IscTableApp.onClick).
 */
export function rowElement(row: TableRow, expanded: boolean, actions: RowActions): HTMLElement {
  const el = document.createElement('div');
  el.setAttribute('role', 'row');
  el.tabIndex = -1;
  el.dataset.id = row.id;
  fillRow(el, row, expanded, actions);
  return el;
}

export function fillRow(el: HTMLElement, row: TableRow, expanded: boolean, actions: RowActions): void {
  el.className = `row${row.kind === 'anti-criterion' ? ' anti' : ''} outcome-${(row.outcome ?? 'none').toLowerCase()}${row.stale ? ' stale' : ''}${expanded ? ' expanded' : ''}`;
  el.setAttribute('aria-expanded', String(expanded));
  const cells = cellsTemplate().cloneNode(true) as HTMLElement;
  const [id, text, priority, source, domain, verify, status, outcome, duration, claimed, buttons] = cells.children as unknown as HTMLElement[];
  (id!.firstChild as HTMLElement).textContent = expanded ? '▾' : '▸';
  (id!.lastChild as HTMLElement).textContent = row.id;
  if (row.kind !== 'anti-criterion') text!.firstChild!.remove();
  (text!.lastChild as HTMLElement).textContent = row.text;
  const prio = priority!.firstChild as HTMLElement;
  prio.className = `prio ${row.priority.toLowerCase()}`;
  prio.textContent = row.priority;
  source!.textContent = row.source;
  domain!.textContent = row.domain ?? '';
  const method = verify!.firstChild as HTMLElement;
  method.textContent = row.verify ?? 'none';
  if (row.verify) method.title = row.verify;
  else method.className = 'muted';
  const state = status!.firstChild as HTMLElement;
  state.className = `status ${row.status.toLowerCase()}`;
  state.textContent = row.status;
  const badge = outcome!.firstChild as HTMLElement;
  if (row.outcome) {
    badge.className = `badge outcome ${OUTCOME_CLASS[row.outcome] ?? ''}`;
    badge.dataset.outcome = row.outcome;
    (badge.firstChild as HTMLElement).textContent = row.outcome;
    if (!row.stale) badge.lastChild!.remove();
  } else {
    badge.className = 'muted';
    badge.textContent = '—';
  }
  duration!.textContent = formatDuration(row.durationMs);
  claimed!.textContent = row.claimedBy ?? '';
  const [again, edit] = buttons!.children as unknown as HTMLElement[];
  again!.title = `Re-verify ${row.id} (R)`;
  again!.setAttribute('aria-label', `Re-verify ${row.id}`);
  edit!.title = `Edit ${row.id} (F2)`;
  edit!.setAttribute('aria-label', `Edit ${row.id}`);
  replaceChildren(el, cells, expanded ? detailElement(row, actions) : null);
}

/** A row's evidence; `file:line` mentions are links the host opens (inside the workspace only). */
function detailElement(row: TableRow, actions: RowActions): HTMLElement {
  const link = (text: string, location: EvidenceLocation) =>
    h('a', { class: 'loc', attrs: { href: '#', title: `Open ${location.file} at line ${location.line}` }, dataset: { file: location.file, line: String(location.line) }, on: { click: (e) => (e.preventDefault(), e.stopPropagation(), actions.openLocation(location)) } }, text);
  const parts = row.evidence ? evidenceParts(row.evidence) : [];
  const evidence = row.evidence ? parts.map((p) => ('location' in p ? link(p.text, p.location) : p.text)) : [h('span', { class: 'muted' }, 'Not verified yet.')];
  const mentioned = new Set(parts.flatMap((p) => ('location' in p ? [`${p.location.file}:${p.location.line}`] : [])));
  const extra = row.locations.filter((l) => !mentioned.has(`${l.file}:${l.line}`));
  return h(
    'div',
    { class: 'detail' },
    h('div', { class: 'detail-label muted' }, 'Evidence'),
    h('pre', { class: 'evidence' }, ...evidence),
    extra.length > 0 ? h('div', { class: 'locations' }, 'Locations: ', ...extra.flatMap((l, i) => [i > 0 ? ', ' : '', link(`${l.file}:${l.line}`, l)])) : null,
    row.verify ? h('div', { class: 'locations muted' }, 'Verify: ', h('code', {}, row.verify)) : null,
  );
}
