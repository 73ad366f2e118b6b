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

/** One `<tr>` per criterion; its cells are rebuilt in place when the row changes (the element stays, so focus does too). */
export function rowElement(row: TableRow, expanded: boolean, actions: RowActions): HTMLTableRowElement {
  const tr = h('tr', { class: 'row', attrs: { tabindex: -1, 'aria-expanded': expanded } });
  tr.dataset.id = row.id;
  fillRow(tr, row, expanded, actions);
  return tr;
}

export function fillRow(tr: HTMLTableRowElement, row: TableRow, expanded: boolean, actions: RowActions): void {
  tr.className = `row ${row.kind === 'anti-criterion' ? 'anti' : ''} outcome-${(row.outcome ?? 'none').toLowerCase()}${row.stale ? ' stale' : ''}${expanded ? ' expanded' : ''}`;
  tr.setAttribute('aria-expanded', String(expanded));
  const outcome = row.outcome
    ? h('span', { class: `badge outcome ${OUTCOME_CLASS[row.outcome] ?? ''}`, attrs: { 'data-outcome': row.outcome } }, row.outcome, row.stale ? h('span', { class: 'stale-mark', title: 'Stale: verified before the criterion or the workspace changed' }, ' · stale') : null)
    : h('span', { class: 'muted', attrs: { 'data-outcome': '' } }, '—');
  replaceChildren(
    tr,
    h('td', { class: 'c-id mono' }, h('span', { class: 'twisty', attrs: { 'aria-hidden': 'true' } }, expanded ? '▾' : '▸'), row.id),
    h('td', { class: 'c-text' }, row.kind === 'anti-criterion' ? h('span', { class: 'anti-mark', title: 'Anti-criterion: holds when this is NOT true' }, 'NOT ') : null, h('span', { class: 'text' }, row.text)),
    h('td', { class: 'c-priority' }, h('span', { class: `prio ${row.priority.toLowerCase()}` }, row.priority)),
    h('td', { class: 'c-source muted' }, row.source),
    h('td', { class: 'c-domain' }, row.domain ?? ''),
    h('td', { class: 'c-verify mono', title: row.verify ?? 'no verification method' }, row.verify ?? h('span', { class: 'muted' }, 'none')),
    h('td', { class: 'c-status' }, h('span', { class: `status ${row.status.toLowerCase()}` }, row.status)),
    h('td', { class: 'c-outcome' }, outcome),
    h('td', { class: 'c-duration muted' }, formatDuration(row.durationMs)),
    h('td', { class: 'c-claimed muted' }, row.claimedBy ?? ''),
    h(
      'td',
      { class: 'c-actions' },
      h('button', { class: 'icon', title: `Re-verify ${row.id} (R)`, attrs: { type: 'button', 'data-action': 'reverify', 'aria-label': `Re-verify ${row.id}`, tabindex: -1 }, on: { click: (e) => (e.stopPropagation(), actions.reverify(row.id)) } }, '↻'),
      h('button', { class: 'icon', title: `Edit ${row.id} (F2)`, attrs: { type: 'button', 'data-action': 'edit', 'aria-label': `Edit ${row.id}`, tabindex: -1 }, on: { click: (e) => (e.stopPropagation(), actions.startEdit(row.id)) } }, '✎'),
    ),
  );
}

/** The row under a criterion with its evidence; `file:line` mentions are links the host opens. */
export function detailElement(row: TableRow, actions: RowActions): HTMLTableRowElement {
  const link = (text: string, location: EvidenceLocation) =>
    h('a', { class: 'loc', attrs: { href: '#', title: `Open ${location.file} at line ${location.line}` }, dataset: { file: location.file, line: String(location.line) }, on: { click: (e) => (e.preventDefault(), actions.openLocation(location)) } }, text);
  const evidence = row.evidence ? evidenceParts(row.evidence).map((p) => ('location' in p ? link(p.text, p.location) : p.text)) : [h('span', { class: 'muted' }, 'Not verified yet.')];
  const mentioned = new Set(row.evidence ? evidenceParts(row.evidence).flatMap((p) => ('location' in p ? [`${p.location.file}:${p.location.line}`] : [])) : []);
  const extra = row.locations.filter((l) => !mentioned.has(`${l.file}:${l.line}`));
  const tr = h(
    'tr',
    { class: 'detail' },
    h(
      'td',
      { attrs: { colspan: COLUMNS.length } },
      h('div', { class: 'detail-body' }, h('div', { class: 'detail-label muted' }, 'Evidence'), h('pre', { class: 'evidence' }, ...evidence), extra.length > 0 ? h('div', { class: 'locations' }, 'Locations: ', ...extra.flatMap((l, i) => [i > 0 ? ', ' : '', link(`${l.file}:${l.line}`, l)])) : null),
    ),
  );
  tr.dataset.detailOf = row.id;
  return tr;
}
