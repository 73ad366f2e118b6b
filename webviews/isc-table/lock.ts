import { h, replaceChildren } from '../shared/dom';
import './lock.css';
import type { ShownTable, TableLock, TableLockChange, TableProposal } from './protocol';
import { agentBlockedWords } from './view-model';

export interface LockActions {
  lockCriteria(): void;
  approveCriteria(): void;
  revertCriterion(id: string): void;
  acceptProposal(id: string): void;
}

const BADGE: Record<TableLock['state'], { word: string; tone: string; note: string }> = {
  locked: { word: 'Locked', tone: 'pass', note: 'An agent under the done gate is held to these criteria as locked.' },
  tampered: { word: 'TAMPERED', tone: 'fail', note: 'Changed since the lock: the done gate blocks until you approve or the change is put back.' },
  'not-locked': { word: 'Not locked', tone: '', note: 'An agent under the done gate could change these criteria. Lock them so it cannot.' },
  baseline: { word: 'Not locked', tone: 'warn', note: 'Only the session baseline holds these criteria (as they were when you last spoke). Lock them to keep them.' },
  damaged: { word: 'Lock unreadable', tone: 'fail', note: 'The lock record cannot be read; the done gate blocks on it. Lock the criteria again.' },
};

/**
 * The criteria lock of the run's PRD, above the table: a badge (locked, not locked,
 * TAMPERED), Lock when nothing holds it, Approve when something changed, and the changes
 * that have no row of their own (an input, the PRD itself, a deleted criterion) with their
 * diff. Rows of changed criteria are marked in place (decorateRow). Everything shown is text.
 */
export function renderLock(root: HTMLElement, lock: TableLock | undefined, rowIds: ReadonlySet<string>, actions: LockActions): void {
  root.hidden = lock === undefined;
  if (!lock) {
    replaceChildren(root);
    return;
  }
  const badge = BADGE[lock.state];
  const since = lock.version !== undefined ? ` · criteria v${lock.version}${lock.by ? ` by ${lock.by}` : ''}` : '';
  const button = (label: string, action: string, run: () => void, primary = false) => h('button', { class: primary ? 'primary' : '', attrs: { type: 'button', 'data-action': action }, on: { click: run } }, label);
  const buttons: HTMLElement[] = [];
  if (lock.canAct) {
    if (lock.state === 'not-locked' || lock.state === 'baseline' || lock.state === 'damaged') buttons.push(button('Lock…', 'lock-criteria', () => actions.lockCriteria(), true));
    if (lock.state === 'tampered') buttons.push(button('Approve changes…', 'lock-approve-all', () => actions.approveCriteria(), true));
  }
  const loose = lock.changes.filter((c) => c.what !== 'criterion' || !rowIds.has(c.id));
  replaceChildren(
    root,
    h(
      'div',
      { class: 'lock-head' },
      h('span', { class: `badge lock-badge ${badge.tone}`, dataset: { lock: lock.state }, attrs: { title: lock.at ? `Locked at ${lock.at}` : '' } }, badge.word),
      h('span', { class: 'lock-what' }, h('code', {}, lock.prdPath), since, lock.state === 'tampered' ? ` · ${lock.changes.length} change${lock.changes.length === 1 ? '' : 's'}` : ''),
      h('span', { class: 'lock-note muted' }, lock.error ?? badge.note),
      lock.held ? h('span', { class: 'lock-note lock-held muted', dataset: { held: '' } }, lock.held) : null,
      lock.agentBlocked ? h('span', { class: 'lock-note lock-blocked', dataset: { blocked: '' } }, `BLOCKED: ${agentBlockedWords(lock.agentBlocked)}.`) : null,
      lock.canAct ? null : h('span', { class: 'lock-note muted' }, 'Trust this workspace to lock or approve criteria.'),
      buttons.length > 0 ? h('span', { class: 'lock-buttons' }, ...buttons) : null,
    ),
    ...loose.map((c) => h('div', { class: 'lock-change', dataset: { id: c.id } }, changeDetail(c), lock.canAct && c.revertible ? h('span', { class: 'lock-buttons' }, button('Revert', 'lock-revert', () => actions.revertCriterion(c.id))) : null)),
    ...(lock.proposals ?? []).map((p) => proposalDetail(p, lock.canAct ? button('Review…', 'proposal-review', () => actions.acceptProposal(p.id), true) : null)),
  );
}

/** A TAMPERED row: its outcome says so, and under it its diff with Approve / Revert (always shown, not on hover). */
export function decorateRow(tr: HTMLElement, change: TableLockChange | undefined, canAct: boolean): void {
  if (!change || tr.classList.contains('light')) return;
  tr.classList.add('tampered');
  const badge = tr.querySelector<HTMLElement>(':scope > .c-outcome > span');
  if (badge) {
    badge.className = 'badge outcome tampered';
    badge.setAttribute('data-outcome', 'TAMPERED');
    badge.textContent = 'TAMPERED';
    badge.title = change.summary;
  }
  const button = (label: string, action: string, title: string) => h('button', { class: 'lock-row-button', title, attrs: { type: 'button', 'data-action': action, 'aria-label': `${label} ${change.id}` } }, label);
  // Under the row, full width: the diff and the two buttons (the actions column is too narrow for them).
  const buttons = canAct
    ? h(
        'span',
        { class: 'lock-row-actions' },
        button('Approve', 'lock-approve', 'Approve the changes to the locked criteria of this PRD (a dialog shows the diff)'),
        change.revertible ? button('Revert', 'lock-revert', `Put ${change.id} back into the PRD as it was locked`) : null,
      )
    : null;
  tr.append(h('div', { class: 'detail lock-detail' }, changeDetail(change), buttons));
}

function changeDetail(c: TableLockChange): HTMLElement {
  return h(
    'div',
    { class: 'lock-diff-wrap' },
    h('div', { class: 'lock-summary' }, h('strong', {}, `${c.id} TAMPERED: `), c.summary),
    h('pre', { class: 'lock-diff' }, ...c.diff.map((line) => h('span', { class: `line ${line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : ''}` }, line))),
  );
}

/** The lock as shown, read from the DOM (for the tests). */
export function shownLock(root: HTMLElement, body: HTMLElement): ShownTable['lock'] {
  if (root.hidden) return undefined;
  const labels = (el: ParentNode) => Array.from(el.querySelectorAll<HTMLElement>('button'), (b) => b.textContent ?? '');
  return {
    state: root.querySelector('.lock-badge')?.getAttribute('data-lock') ?? '',
    text: Array.from(root.querySelector('.lock-head')?.children ?? [], (el) => el.textContent ?? '').join(' ').replace(/\s+/g, ' ').trim(),
    ...(root.querySelector('.lock-blocked') ? { blocked: root.querySelector('.lock-blocked')!.textContent ?? '' } : {}),
    buttons: labels(root.querySelector('.lock-head') ?? root),
    tampered: Array.from(body.querySelectorAll<HTMLElement>('.row.tampered'), (tr) => ({ id: tr.dataset.id ?? '', buttons: labels(tr.querySelector('.lock-row-actions') ?? document.createElement('span')) })),
    proposals: Array.from(root.querySelectorAll<HTMLElement>('.proposal'), (el) => ({ id: el.dataset.proposal ?? '', text: (el.textContent ?? '').replace(/\s+/g, ' ').trim(), buttons: labels(el) })),
  };
}

/** A proposal an agent made that waits for the person: its exact lines, and Review… (a modal to add or drop it). */
function proposalDetail(p: TableProposal, review: HTMLElement | null): HTMLElement {
  return h(
    'div',
    { class: 'lock-change proposal', dataset: { proposal: p.id } },
    h('div', { class: 'lock-summary' }, h('span', { class: 'badge warn' }, 'Waiting for you'), ` ${p.header}`),
    p.problem ? h('div', { class: 'muted' }, p.problem) : h('pre', { class: 'lock-diff' }, ...p.lines.map((l) => h('span', { class: 'line add' }, `+ ${l}`))),
    p.commands.length > 0 ? h('div', { class: 'muted' }, `Runs ${p.commands.join(', ')} (asked before it first runs)`) : null,
    review ? h('span', { class: 'lock-buttons' }, review) : null,
  );
}
