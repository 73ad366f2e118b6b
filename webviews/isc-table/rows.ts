import { h } from '../shared/dom';
import type { EvidenceLocation, TableRow } from './protocol';
import { evidenceParts, PROBE_MARK, rowView } from './view-model';

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

/**
 * An empty row, built once and cloned: the row element is the grid and its cells are its
 * children, as few elements as the look needs (the twisty is CSS, the anti-criterion and
 * stale marks exist only on rows that have them, the re-verify and edit buttons are one
 * pair moved to the row in use — see row-tools.ts). Cloning it and setting text is what
 * lets a 1,000-row run be built in one pass before its first frame.
 */
let templates: { row: HTMLElement; anti: HTMLElement; stale: HTMLElement; probe: HTMLElement } | undefined;
function rowTemplates() {
  const cell = (name: string, ...children: Node[]) => h('div', { class: `cell c-${name}`, attrs: { role: 'gridcell' } }, ...children);
  templates ??= {
    row: h(
      'div',
      { class: 'row', attrs: { role: 'row', tabindex: -1, 'aria-expanded': 'false' } },
      cell('id mono'),
      cell('text', h('span', { class: 'text' })),
      cell('priority'),
      cell('source muted'),
      cell('domain'),
      cell('verify mono'),
      cell('status'),
      cell('outcome', h('span', { class: 'muted', dataset: { outcome: '' } })),
      cell('duration muted'),
      cell('claimed muted'),
      cell('actions'),
    ),
    anti: h('span', { class: 'anti-mark', title: 'Anti-criterion: holds when this is NOT true' }, 'NOT '),
    stale: h('span', { class: 'stale-mark', title: 'Stale: verified before the criterion or the workspace changed' }, ' · stale'),
    // A probed row (issue 28 §5): words in the criterion's own cell, so no width hides it.
    probe: h('span', { class: 'probe-mark', title: PROBE_MARK.title }, PROBE_MARK.text),
  };
  return templates;
}

/**
 * One element per criterion — a grid row, not a `<tr>`, so rows off screen skip layout and
 * paint through `content-visibility` (table rows cannot) while staying in the document for
 * find, keyboard navigation and screen readers. Its content is rebuilt in place when the
 * row changes; the element stays, so focus does too. Its evidence lives inside it only
 * while expanded. Clicks are handled once for the whole table (see IscTableApp.onClick).
 */
export function rowElement(row: TableRow, expanded: boolean, actions: RowActions): HTMLElement {
  const el = filled(row, expanded);
  if (expanded) el.append(detailElement(row, actions));
  return el;
}

/**
 * A row not yet on screen, as one element holding the row's words (id, text, priority,
 * source, domain, verify, status, outcome, claimed by) as one text node — about a tenth of
 * a full row's cost to build. It is a real row: find in page, End, the scroll height and
 * screen readers have it. Its block is built whole (`fillRow`) as it comes near the screen
 * or when the view is idle, whichever is first; the element stays, so focus does too.
 */
let lightTemplate: HTMLElement | undefined;
export function lightRow(row: TableRow): HTMLElement {
  const view = rowView(row, false);
  lightTemplate ??= h('div', { attrs: { role: 'row', tabindex: -1 } });
  const el = lightTemplate.cloneNode(false) as HTMLElement;
  el.className = `${view.rowClass} light`;
  el.setAttribute('data-id', row.id);
  const words = [row.id, (view.anti ? `NOT ${row.text}` : row.text) + (view.probe ? ` (${view.probe.text})` : ''), row.priority, row.source, row.domain ?? '', view.verify, row.status, view.outcome ? view.outcome.word + (view.outcome.stale ? ' · stale' : '') : '—', view.duration, view.claimedBy];
  el.textContent = words.join('\u2003');
  return el;
}

export function isLight(el: HTMLElement): boolean {
  return el.classList.contains('light');
}

export function fillRow(el: HTMLElement, row: TableRow, expanded: boolean, actions: RowActions): void {
  const fresh = filled(row, expanded);
  // The shared buttons stay with the row they are on.
  const tools = el.querySelector(':scope > .c-actions > .row-tools');
  if (tools) fresh.lastChild!.appendChild(tools);
  el.className = fresh.className;
  el.setAttribute('aria-expanded', String(expanded));
  el.replaceChildren(...Array.from(fresh.childNodes), ...(expanded ? [detailElement(row, actions)] : []));
}

/** A clone of the template with the row's text in its cells; strings only ever become text. */
function filled(row: TableRow, expanded: boolean): HTMLElement {
  const view = rowView(row, expanded);
  const parts = rowTemplates();
  const el = parts.row.cloneNode(true) as HTMLElement;
  el.className = view.rowClass;
  el.setAttribute('data-id', row.id);
  if (expanded) el.setAttribute('aria-expanded', 'true');
  const id = el.firstChild as HTMLElement;
  id.textContent = row.id;
  const text = id.nextSibling as HTMLElement;
  (text.firstChild as HTMLElement).textContent = row.text;
  if (view.anti) text.prepend(parts.anti.cloneNode(true));
  if (view.probe) text.append(parts.probe.cloneNode(true));
  const priority = text.nextSibling as HTMLElement;
  priority.className = `cell c-priority ${view.priorityClass}`;
  priority.textContent = row.priority;
  const source = priority.nextSibling as HTMLElement;
  source.textContent = row.source;
  const domain = source.nextSibling as HTMLElement;
  domain.textContent = row.domain ?? '';
  const verify = domain.nextSibling as HTMLElement;
  verify.textContent = view.verify;
  if (!view.verifyMissing) verify.title = view.verify;
  const status = verify.nextSibling as HTMLElement;
  status.className = `cell c-status ${view.statusClass}`;
  status.textContent = row.status;
  const outcome = status.nextSibling as HTMLElement;
  const badge = outcome.firstChild as HTMLElement;
  if (view.outcome) {
    badge.className = view.outcome.badgeClass;
    badge.setAttribute('data-outcome', view.outcome.word);
    badge.textContent = view.outcome.word;
    if (view.outcome.stale) badge.appendChild(parts.stale.cloneNode(true));
  } else badge.textContent = '—';
  const duration = outcome.nextSibling as HTMLElement;
  duration.textContent = view.duration;
  (duration.nextSibling as HTMLElement).textContent = view.claimedBy;
  return el;
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
