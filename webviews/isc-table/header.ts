import { h, replaceChildren } from '../shared/dom';
import { headerStatus, stateBadge } from './header-state';
import { TABLE_PHASES, type BudgetFigure, type TableAbilities, type TableHeader, type TableRow } from './protocol';
import { formatCount } from './view-model';

export interface HeaderActions {
  reverifyAll(): void;
  openPrd(): void;
  control(action: 'cancel' | 'resume' | 'rate'): void;
}

/** The time bar's element and what it counts on from, so a tick updates it alone (buttons keep their focus). */
export interface TimeBar {
  readonly el: HTMLElement;
  readonly header: TableHeader;
  /** performance.now() when the header arrived: the view counts on from there. */
  readonly receivedAt: number;
}

/** Title, state, phase stepper, budget bars and the run's actions; the state and score come from the rows shown. */
export function renderHeader(root: HTMLElement, header: TableHeader, abilities: TableAbilities, rows: Iterable<TableRow>, actions: HeaderActions, receivedAt: number, agentBlocked?: { reason?: string }): TimeBar {
  const current = TABLE_PHASES.indexOf(header.phase as (typeof TABLE_PHASES)[number]);
  const status = headerStatus(header, rows, agentBlocked);
  const stepper = h(
    'ol',
    { class: 'stepper', attrs: { 'aria-label': 'Phases' } },
    ...TABLE_PHASES.map((phase, i) => {
      const state = i < current || (header.finished && header.state === 'COMPLETE') ? 'done' : i === current ? 'current' : 'todo';
      return h('li', { class: `step ${state}`, attrs: { 'aria-current': i === current ? 'step' : undefined }, dataset: { phase } }, h('span', { class: 'dot' }), h('span', { class: 'label' }, phase));
    }),
  );
  const time = h('div', { class: 'meter time', dataset: { budget: 'time' } });
  const bar: TimeBar = { el: time, header, receivedAt };
  tickTime(bar, receivedAt);
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
      h('span', { class: `badge state ${status.tone}`, attrs: { 'data-state': status.runState, 'data-shown': status.word, title: status.word === stateBadge(header.state) ? '' : `The run ended ${header.state}; its rows say otherwise now` } }, status.word),
      status.reason ? h('span', { class: 'exit-reason muted', attrs: { title: status.reason } }, status.reason) : null,
      h('span', { class: 'score', attrs: { 'aria-label': `${status.pass} of ${status.total} criteria pass${status.stale ? `, ${status.stale} stale` : ''}` } }, h('strong', {}, String(status.pass)), status.score.slice(String(status.pass).length)),
      stepper,
    ),
    h('div', { class: 'budget' }, time, budgetBar('Tokens', header.budget.tokens, formatCount), budgetBar('Cost', header.budget.usd, (n) => `$${n.toFixed(2)}`)),
    header.spent ? h('div', { class: 'spent muted', dataset: { budget: 'spent' } }, header.spent) : null,
  );
  return bar;
}

/**
 * Brings the time bar to `now` (performance.now()): a going run's time counts on from the
 * header's figures, except while it waits for a person — then the bar stands still and says
 * "waiting for approval" with how long.
 */
export function tickTime(bar: TimeBar, now: number): void {
  const shown = timeShown(bar.header, now - bar.receivedAt);
  const meter = meterParts('Time', shown.figure, seconds, shown.note);
  bar.el.className = meter.className;
  for (const [name, value] of Object.entries(meter.attrs)) {
    if (value === undefined) bar.el.removeAttribute(name);
    else bar.el.setAttribute(name, String(value));
  }
  bar.el.classList.toggle('waiting', shown.waitingS !== undefined);
  replaceChildren(bar.el, ...meter.children);
}

/** The time figure and its note `sinceMs` after the header came (pure; see header-state.test). */
export function timeShown(header: Pick<TableHeader, 'budget' | 'time'>, sinceMs: number): { figure: BudgetFigure; note?: string; waitingS?: number } {
  const { seconds: figure } = header.budget;
  const time = header.time;
  const later = Math.max(0, Math.floor(sinceMs / 1000));
  if (time.going && time.waitingMs !== undefined) {
    const waitingS = Math.floor(time.waitingMs / 1000) + later;
    return { figure, note: `waiting for ${time.waitingFor ?? 'approval'} ${seconds(waitingS)} (not counted)`, waitingS };
  }
  const used = time.going ? figure.used + later : figure.used;
  const waited = Math.floor(time.waitedMs / 1000);
  return { figure: { ...figure, used }, ...(waited > 0 ? { note: `+ ${seconds(waited)} waiting for approval, not counted` } : {}) };
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
  const meter = meterParts(label, figure, format);
  return h('div', { class: meter.className, attrs: meter.attrs, dataset: { budget: label.toLowerCase() } }, ...meter.children);
}

function meterParts(label: string, figure: BudgetFigure, format: (n: number) => string, note?: string): { className: string; attrs: Record<string, string | number | undefined>; children: HTMLElement[] } {
  const share = figure.limit ? figure.used / figure.limit : undefined;
  const level = share === undefined ? 'none' : share >= 1 ? 'over' : share >= 0.8 ? 'high' : 'ok';
  const width = share === undefined ? 0 : Math.min(100, Math.round(share * 100));
  const text = figure.limit !== undefined ? `${format(figure.used)} of ${format(figure.limit)}` : `${format(figure.used)} (no limit)`;
  const fill = h('div', { class: 'meter-fill' });
  // CSSOM, not a style attribute: the CSP allows no inline styles.
  fill.style.width = `${width}%`;
  return {
    className: `meter ${level}`,
    attrs: { role: 'meter', 'aria-label': label, 'aria-valuenow': figure.used, 'aria-valuemax': figure.limit, 'aria-valuetext': note ? `${text}; ${note}` : text },
    children: [
      h('div', { class: 'meter-label' }, h('span', {}, label), h('span', { class: 'muted' }, text)),
      h('div', { class: 'meter-track' }, fill),
      ...(note ? [h('div', { class: 'meter-note muted' }, note)] : []),
    ],
  };
}

export function seconds(n: number): string {
  if (n < 60) return `${n} s`;
  const m = Math.floor(n / 60);
  if (m >= 60) return `${Math.floor(m / 60)} h ${m % 60} min`;
  return n % 60 === 0 ? `${m} min` : `${m} min ${n % 60} s`;
}
