import { h, type Child } from '../shared/dom';
import { outcomeLabel, prdStatusLabel } from '../../src/model/labels';
import type { PrdView, PrdViewCriterion, Priority } from './protocol';

const SOURCE_LETTER = { EXPLICIT: 'E', INFERRED: 'I', IMPLICIT: 'R' } as const;
const OUTCOME_CLASS = { PASS: 'pass', FAIL: 'fail', PARTIAL: 'warn', UNKNOWN: '' } as const;
export const PRIORITY_ORDER: readonly Priority[] = ['CRITICAL', 'IMPORTANT', 'NICE'];

/** What a row does when the person uses one of its controls; the app turns these into requests. */
export interface RowActions {
  toggle(c: PrdViewCriterion): void;
  edit(c: PrdViewCriterion): void;
  cyclePriority(c: PrdViewCriterion): void;
  reveal(c: PrdViewCriterion): void;
}

export function header(view: PrdView): HTMLElement {
  const m = view.meta;
  const item = (key: string, value: Child, cls = '') => h('span', { class: `badge ${cls}` }, h('span', { class: 'key' }, key), ' ', value);
  const iteration = m.iteration === undefined ? undefined : m.maxIterations === undefined ? `${m.iteration}` : `${m.iteration} / ${m.maxIterations}`;
  const criteria = view.criteria.filter((c) => !c.anti);
  const done = criteria.filter((c) => c.checked).length;
  const pct = criteria.length === 0 ? 0 : Math.round((done / criteria.length) * 100);
  const bar = h('span', { class: 'bar' }, h('span', { attrs: { 'data-pct': pct } }));
  // The width is set through the CSSOM, which the CSP allows (no inline style attribute).
  (bar.firstChild as HTMLElement).style.width = `${pct}%`;
  return h(
    'header',
    {},
    h('h1', {}, view.title),
    h(
      'div',
      { class: 'meta' },
      m.status && item('status', prdStatusLabel(m.status), 'solid'),
      m.effort && item('effort', m.effort),
      iteration && item('iteration', iteration),
      m.phase && item('phase', m.phase),
      m.id && h('span', { class: 'badge mono', title: 'PRD id' }, m.id),
      m.runId && h('span', { class: 'badge mono', title: 'run' }, m.runId),
      view.errors > 0 && h('span', { class: 'badge fail', title: 'see the Problems panel' }, `${view.errors} error${view.errors === 1 ? '' : 's'}`),
      view.warnings > 0 && h('span', { class: 'badge warn', title: 'see the Problems panel' }, `${view.warnings} warning${view.warnings === 1 ? '' : 's'}`),
    ),
    h('div', { class: 'progress' }, bar, h('span', {}, `${done} of ${criteria.length} criteria done`)),
  );
}

export function criteriaTable(rows: readonly PrdViewCriterion[], actions: RowActions, rowElements: Map<string, HTMLTableRowElement>, empty = 'None yet.'): HTMLElement {
  if (rows.length === 0) return h('div', { class: 'empty' }, empty);
  const body = h('tbody');
  let domain: string | undefined;
  for (const c of rows) {
    if (c.domain !== domain && c.domain) body.append(h('tr', { class: 'domain' }, h('td', { attrs: { colspan: 7 } }, c.domain)));
    domain = c.domain;
    const tr = criterionRow(c, actions);
    rowElements.set(c.id, tr);
    body.append(tr);
  }
  return h(
    'table',
    { class: 'grid criteria', attrs: { role: 'grid' } },
    // Fixed column widths keep the criteria and anti-criteria tables aligned with each other.
    h('colgroup', {}, ...['check', 'id', 'text', 'priority', 'source', 'verify', 'outcome'].map((c) => h('col', { class: `c-${c}` }))),
    h('thead', {}, h('tr', {}, h('th', { class: 'check', attrs: { 'aria-label': 'done' } }), h('th', {}, 'ID'), h('th', {}, 'Criterion'), h('th', {}, 'Priority'), h('th', { class: 'source' }, 'Src'), h('th', { class: 'verify' }, 'Verify'), h('th', {}, 'Outcome'))),
    body,
  );
}

/**
 * One criterion. Every change goes through a control of its own that takes focus (the check
 * box, the Edit and priority buttons): no key typed on the page edits anything, so text meant
 * for another editor cannot tick, untick or re-prioritise a criterion.
 */
export function criterionRow(c: PrdViewCriterion, actions: RowActions): HTMLTableRowElement {
  const box = h('input', { attrs: { type: 'checkbox', 'aria-label': `${c.id} done` }, dataset: { control: `check:${c.id}` }, on: { click: (e) => (e.preventDefault(), actions.toggle(c)) } });
  box.checked = c.checked;
  const outcome = c.outcome ? h('span', { class: `badge ${OUTCOME_CLASS[c.outcome]}`, title: `verifier: ${outcomeLabel(c.outcome)}` }, c.outcome) : h('span', { class: 'muted', title: 'not verified yet' }, '—');
  return h(
    'tr',
    { class: c.checked ? 'done' : '', dataset: { id: c.id } },
    h('td', { class: 'check' }, box),
    h('td', { class: 'id' }, h('button', { class: 'link', title: `${c.id}: show this line in the text editor`, dataset: { control: `reveal:${c.id}` }, on: { click: () => actions.reveal(c) } }, c.id)),
    h(
      'td',
      { class: 'text' },
      h('span', { class: 'criterion-text', title: 'double-click or use Edit to change the text', on: { dblclick: () => actions.edit(c) } }, c.text),
      h('button', { class: 'edit', title: 'edit the text', attrs: { 'aria-label': `edit the text of ${c.id}` }, dataset: { control: `edit:${c.id}` }, on: { click: () => actions.edit(c) } }, '✎'),
      notes(c),
    ),
    h('td', { class: 'priority' }, h('button', { class: `badge p-${c.priority.toLowerCase()}`, title: 'change the priority', attrs: { 'aria-label': `priority of ${c.id}: ${c.priority}; change` }, dataset: { control: `priority:${c.id}` }, on: { click: () => actions.cyclePriority(c) } }, c.priority)),
    h('td', { class: 'source' }, h('span', { class: 'badge source', title: c.source }, SOURCE_LETTER[c.source])),
    h('td', { class: 'verify', title: c.verify ?? 'no verification method' }, c.verify ?? '—'),
    h('td', { class: 'outcome' }, outcome),
  );
}

/** The notes the file holds under a criterion, as text, with the labels the file uses. */
function notes(c: PrdViewCriterion): HTMLElement | undefined {
  if (!c.notes || c.notes.length === 0) return undefined;
  return h('ul', { class: 'notes', attrs: { 'aria-label': `notes on ${c.id}` } }, ...c.notes.map((n) => h('li', { class: `note note-${n.kind}`, title: n.digest ? `about the command ${n.digest}` : undefined }, h('span', { class: 'note-label' }, `${n.label}:`), ' ', n.text)));
}

export function decisions(view: PrdView): HTMLElement {
  if (view.decisions.length === 0) return h('div', { class: 'empty' }, 'No decisions recorded.');
  return h(
    'div',
    {},
    ...view.decisions.map((d) =>
      h(
        'div',
        { class: 'decision' },
        h('div', { class: 'title' }, d.date && h('span', { class: 'date' }, d.date), d.title),
        (d.decision || d.rationale) && h('dl', { class: 'fields' }, ...(d.decision ? [h('dt', {}, 'Decision'), h('dd', {}, d.decision)] : []), ...(d.rationale ? [h('dt', {}, 'Rationale'), h('dd', {}, d.rationale)] : [])),
      ),
    ),
  );
}

export function log(view: PrdView): HTMLElement {
  if (view.log.length === 0) return h('div', { class: 'empty' }, 'Nothing logged yet.');
  return h('div', {}, ...view.log.map((e) => h('div', { class: 'log-entry' }, h('div', { class: 'title' }, e.title), h('dl', { class: 'fields' }, ...e.fields.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])))));
}

export function section(title: string, count: number | undefined, content: HTMLElement, id: string): HTMLElement {
  return h('section', { attrs: { id, 'aria-label': title } }, h('h2', {}, title, count !== undefined && h('span', { class: 'count' }, String(count))), content);
}
