import { h, replaceChildren } from '../shared/dom';
import { TABLE_PHASES, type BudgetFigure, type TableAbilities, type TableHeader } from './protocol';
import { formatCount } from './view-model';

export interface HeaderActions {
  reverifyAll(): void;
  openPrd(): void;
  control(action: 'cancel' | 'resume' | 'rate'): void;
}

const STATE_CLASS: Record<string, string> = {
  RUNNING: 'info',
  PENDING: '',
  NEEDS_APPROVAL: 'warn',
  COMPLETE: 'pass',
  BUDGET_EXHAUSTED: 'warn',
  BLOCKED: 'warn',
  CANCELLED: '',
  FAILED: 'fail',
};

/** Title, state, phase stepper, budget bars and the run's actions. */
export function renderHeader(root: HTMLElement, header: TableHeader, abilities: TableAbilities, counts: Record<string, number>, actions: HeaderActions): void {
  const current = TABLE_PHASES.indexOf(header.phase as (typeof TABLE_PHASES)[number]);
  const stepper = h(
    'ol',
    { class: 'stepper', attrs: { 'aria-label': 'Phases' } },
    ...TABLE_PHASES.map((phase, i) => {
      const state = i < current || (header.finished && header.state === 'COMPLETE') ? 'done' : i === current ? 'current' : 'todo';
      return h('li', { class: `step ${state}`, attrs: { 'aria-current': i === current ? 'step' : undefined }, dataset: { phase } }, h('span', { class: 'dot' }), h('span', { class: 'label' }, phase));
    }),
  );
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const passed = counts.PASS ?? 0;
  replaceChildren(
    root,
    h(
      'div',
      { class: 'title-row' },
      h('div', { class: 'title' }, h('h1', { attrs: { title: header.request } }, header.request), h('div', { class: 'subtitle muted' }, h('code', {}, header.runId), ` · ${header.effort} · iteration ${header.iteration} · criteria v${header.criteriaVersion}`)),
      h('div', { class: 'actions' }, ...actionButtons(header, abilities, actions)),
    ),
    h(
      'div',
      { class: 'status-row' },
      h('span', { class: `badge state ${STATE_CLASS[header.state] ?? ''}`, attrs: { 'data-state': header.state } }, header.state.replace(/_/g, ' ')),
      header.exitReason ? h('span', { class: 'exit-reason muted', attrs: { title: header.exitReason } }, header.exitReason) : null,
      h('span', { class: 'score', attrs: { 'aria-label': `${passed} of ${total} criteria pass` } }, h('strong', {}, String(passed)), ` / ${total} pass`),
      stepper,
    ),
    h('div', { class: 'budget' }, budgetBar('Time', header.budget.seconds, seconds), budgetBar('Tokens', header.budget.tokens, formatCount), budgetBar('Cost', header.budget.usd, (n) => `$${n.toFixed(2)}`)),
  );
}

function actionButtons(header: TableHeader, abilities: TableAbilities, actions: HeaderActions): HTMLElement[] {
  const button = (label: string, title: string, run: () => void, primary = false, name = label) =>
    h('button', { class: primary ? 'primary' : '', title, attrs: { type: 'button', 'data-action': name }, on: { click: run } }, label);
  const buttons: HTMLElement[] = [];
  if (abilities.verify) buttons.push(button('Re-verify all', 'Verify every criterion again against the workspace as it is now', () => actions.reverifyAll(), false, 'reverify-all'));
  if (header.prdPath) buttons.push(button('Open PRD', header.prdPath, () => actions.openPrd(), false, 'open-prd'));
  if (abilities.cancel) buttons.push(button('Cancel', 'Stop the run after its current step', () => actions.control('cancel'), false, 'cancel'));
  if (abilities.resume) buttons.push(button('Resume', 'Continue the run from its last stored step', () => actions.control('resume'), true, 'resume'));
  if (abilities.rate) buttons.push(button('Rate run…', 'How did this run go? (1–10)', () => actions.control('rate'), !abilities.resume, 'rate'));
  return buttons;
}

function budgetBar(label: string, figure: BudgetFigure, format: (n: number) => string): HTMLElement {
  const share = figure.limit ? figure.used / figure.limit : undefined;
  const level = share === undefined ? 'none' : share >= 1 ? 'over' : share >= 0.8 ? 'high' : 'ok';
  const width = share === undefined ? 0 : Math.min(100, Math.round(share * 100));
  const text = figure.limit !== undefined ? `${format(figure.used)} of ${format(figure.limit)}` : `${format(figure.used)} (no limit)`;
  const fill = h('div', { class: 'meter-fill' });
  // CSSOM, not a style attribute: the CSP allows no inline styles.
  fill.style.width = `${width}%`;
  return h(
    'div',
    { class: `meter ${level}`, attrs: { role: 'meter', 'aria-label': label, 'aria-valuenow': figure.used, 'aria-valuemax': figure.limit, 'aria-valuetext': text }, dataset: { budget: label.toLowerCase() } },
    h('div', { class: 'meter-label' }, h('span', {}, label), h('span', { class: 'muted' }, text)),
    h('div', { class: 'meter-track' }, fill),
  );
}

function seconds(n: number): string {
  if (n < 60) return `${n} s`;
  const m = Math.floor(n / 60);
  if (m >= 60) return `${Math.floor(m / 60)} h ${m % 60} min`;
  return n % 60 === 0 ? `${m} min` : `${m} min ${n % 60} s`;
}
