import { approveEffect } from '../../src/agent/approval-words';
import { diffTotals } from '../../src/agent/line-diff';
import { h, replaceChildren } from '../shared/dom';
import './approvals.css';
import type { ApprovalAnswer, TableApproval, ShownTable } from './protocol';

export interface ApprovalActions {
  decide(approvalId: string, answer: ApprovalAnswer): void;
  showDiff(approvalId: string): void;
}

/** Lines of an edit's summary shown before "Show Diff" is the better way to read it. */
const SUMMARY_LINES = 12;

/**
 * The agent's edits and commands that wait for a person, each with what it would do — the
 * file and its changed lines with Show Diff (the real diff editor), or the exact command and
 * its folder — and Approve / Always for this run / Deny, and "Deny always" for a run's
 * verification commands (remembered for the workspace). A configuration change (a file that
 * steers what runs) is badged as one, says what it can change, and has no "Always": each is
 * approved on its own. Everything shown is text.
 */
export function renderApprovals(root: HTMLElement, approvals: readonly TableApproval[], actions: ApprovalActions): void {
  root.hidden = approvals.length === 0;
  if (approvals.length === 0) {
    replaceChildren(root);
    return;
  }
  replaceChildren(
    root,
    h(
      'div',
      { class: 'approvals-head' },
      h('span', { class: 'approvals-icon', attrs: { 'aria-hidden': 'true' } }, '!'),
      h('h2', {}, approvals.length === 1 ? 'The run waits for your approval' : `The run waits for your approval (${approvals.length})`),
      h('span', { class: 'muted' }, 'Nothing changes until you answer; the notification asks the same.'),
    ),
    ...approvals.map((a) => approvalCard(a, actions)),
  );
}

function approvalCard(a: TableApproval, actions: ApprovalActions): HTMLElement {
  const answer = (value: ApprovalAnswer) => () => {
    // One answer per card: the first one wins anyway, this just says it was heard.
    card.querySelectorAll<HTMLButtonElement>('button[data-answer]').forEach((b) => (b.disabled = true));
    actions.decide(a.id, value);
  };
  const file = a.kind !== 'command';
  const kindWord = a.kind === 'edit' ? (a.creates ? 'New file' : 'Edit') : a.kind === 'config' ? 'Configuration' : 'Command';
  const what = file ? h('code', { class: 'approval-path', attrs: { title: a.path ?? a.title } }, a.path ?? a.title) : h('span', { class: 'approval-what' }, a.title);
  const card = h(
    'section',
    { class: `approval ${a.kind}`, dataset: { approval: a.id, kind: a.kind }, attrs: { 'aria-label': `${kindWord}: ${a.path ?? a.title}` } },
    h(
      'div',
      { class: 'approval-title' },
      h('span', { class: `badge ${a.kind === 'edit' ? 'info' : 'warn'}` }, kindWord),
      what,
      file ? changeCounts(a.detail) : null,
      h('span', { class: 'approval-time muted', attrs: { title: a.createdAt } }, `asked ${clock(a.createdAt)}`),
    ),
    a.kind === 'config' ? h('div', { class: 'approval-effect' }, `Configuration change: ${a.effect ?? 'this file steers what runs'}. Approving edits does not cover it; it is asked on its own.`) : null,
    file ? editSummary(a) : commandBlock(a),
    h(
      'div',
      { class: 'approval-actions' },
      file
        ? h('button', { attrs: { type: 'button', 'data-action': 'show-diff' }, title: 'Open the file beside the proposed text in the diff editor', on: { click: () => actions.showDiff(a.id) } }, 'Show Diff')
        : null,
      h('button', { class: 'primary', attrs: { type: 'button', 'data-action': 'approve', 'data-answer': 'approve' }, title: capitalize(approveEffect(a)), on: { click: answer('approve') } }, 'Approve'),
      a.kind === 'config'
        ? null
        : h('button', { attrs: { type: 'button', 'data-action': 'always', 'data-answer': 'always' }, title: `Approve this and the run's further ${a.kind === 'edit' ? 'edits' : 'commands'} without asking`, on: { click: answer('always') } }, 'Always for this run'),
      h('button', { class: 'deny', attrs: { type: 'button', 'data-action': 'deny', 'data-answer': 'deny' }, title: 'Refuse it: the agent is told and must not work around it', on: { click: answer('deny') } }, 'Deny'),
      // Only where the denial is remembered (a run's verification commands, issue 28 §3).
      a.kind === 'command' && a.remembersDenial
        ? h('button', { class: 'deny', attrs: { type: 'button', 'data-action': 'deny-always', 'data-answer': 'never' }, title: "Refuse it now and in every later verification of this workspace: never asked about again, until removed from the state folder's denied-commands.json", on: { click: answer('never') } }, 'Deny always')
        : null,
    ),
  );
  return card;
}

function editSummary(a: TableApproval): HTMLElement {
  const lines = a.detail.split('\n').filter((l) => !l.startsWith('---') && !l.startsWith('+++'));
  const shown = lines.slice(0, SUMMARY_LINES);
  return h(
    'pre',
    { class: 'approval-detail diff', attrs: { 'aria-label': 'Changed lines' } },
    ...shown.map((line) => h('span', { class: `line ${line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : ''}` }, `${line}\n`)),
    lines.length > shown.length ? h('span', { class: 'line more muted' }, `… ${lines.length - shown.length} more lines — Show Diff shows them all`) : null,
  );
}

function commandBlock(a: TableApproval): HTMLElement {
  return h(
    'div',
    { class: 'approval-command' },
    h('pre', { class: 'approval-detail command', attrs: { 'aria-label': 'Command line' } }, ...(a.command ?? a.detail).split('\n').filter((l) => l.trim() !== '').map((l) => h('span', { class: 'line' }, h('span', { class: 'prompt', attrs: { 'aria-hidden': 'true' } }, '$ '), `${l}\n`))),
    h('div', { class: 'approval-cwd muted' }, 'in ', h('code', {}, a.cwd ?? 'the workspace folder')),
  );
}

function changeCounts(summary: string): HTMLElement {
  const { added, removed } = diffTotals(summary);
  return h('span', { class: 'approval-counts' }, h('span', { class: 'add' }, `+${added}`), ' ', h('span', { class: 'del' }, `−${removed}`));
}

function clock(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** What the approvals panel shows, read from its DOM (for the editor's tests). */
export function shownApprovals(root: HTMLElement): NonNullable<ShownTable['approvals']> {
  return Array.from(root.querySelectorAll<HTMLElement>('.approval'), (el) => ({
    id: el.dataset.approval ?? '',
    kind: el.dataset.kind ?? '',
    what: (el.querySelector('.approval-path') ?? el.querySelector('.approval-command pre'))?.textContent?.replace(/^\$ /, '').trim() ?? '',
    buttons: Array.from(el.querySelectorAll<HTMLButtonElement>('.approval-actions button'), (b) => b.textContent ?? ''),
  }));
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
