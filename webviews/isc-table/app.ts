import type { HostBridge } from '../shared/bridge';
import { h, replaceChildren } from '../shared/dom';
import { renderApprovals, shownApprovals, type ApprovalActions } from './approvals';
import { renderHeader, tickTime, type HeaderActions, type TimeBar } from './header';
import type { ApprovalAnswer, EvidenceLocation, IscTableProtocol, IscTableState, RequestResult, SortKey, TableDelta, TableFilter, TableRow, TableSnapshot } from './protocol';
import { keepInView, placeRows } from './blocks';
import { decorateRow, renderLock, shownLock, type LockActions } from './lock';
import { attachRowTools } from './row-tools';
import { RatingSection } from './rating';
import { FullRows } from './full-rows';
import { COLUMNS, fillRow, isLight, lightRow, rowElement, type RowActions } from './rows';
import { ALL_ROWS, naturalCompare, visibleRows } from './view-model';

const OUTCOMES = ['ALL', 'PASS', 'FAIL', 'PARTIAL', 'UNKNOWN', 'NONE'] as const;
const PRIORITIES = ['ALL', 'CRITICAL', 'IMPORTANT', 'NICE'] as const;
const TICK_MS = 1000;

/**
 * The ISC table of one run. The host sends a snapshot when the view (re)loads and then only
 * deltas — one row, the header, the approvals — which change just those elements.
 */
export class IscTableApp implements RowActions, HeaderActions, ApprovalActions, LockActions {
  private snapshot: TableSnapshot | undefined;
  private readonly rows = new Map<string, TableRow>();
  private order: string[] = [];
  private readonly elements = new Map<string, HTMLElement>();
  private shownIds: string[] = [];
  /** The one row Tab reaches (roving tab stop). */
  private tabStop: HTMLElement | undefined;
  private state: IscTableState;
  /** When the header came (performance.now()): a going run's time bar counts on from there. */
  private headerAt = 0;
  private timeBar: TimeBar | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;

  private readonly headerEl = h('header', { class: 'run-header' });
  private readonly approvalsEl = h('section', { class: 'approvals', attrs: { 'aria-label': 'Pending approvals' } });
  private readonly lockEl = h('section', { class: 'lock-strip', attrs: { 'aria-label': 'Criteria lock', hidden: true } });
  private readonly toolbarEl = h('div', { class: 'toolbar', attrs: { role: 'search' } });
  private readonly countEl = h('span', { class: 'count muted', attrs: { 'aria-live': 'polite' } });
  private readonly statusEl = h('div', { class: 'status-line', attrs: { role: 'status' } });
  private readonly tbody = h('div', { class: 'body', attrs: { role: 'rowgroup' } });
  private readonly theadRow = h('div', { class: 'head', attrs: { role: 'row' } });
  private readonly emptyEl = h('p', { class: 'empty muted' });
  private readonly fullRows = new FullRows(this.tbody, (tr) => this.fillWhole(tr));
  private readonly rating = new RatingSection({ rateRun: (rating, comment) => this.bridge.request('rateRun', { ...(rating !== undefined ? { rating } : {}), comment }) });

  constructor(private readonly bridge: HostBridge<IscTableProtocol, IscTableState>) {
    const saved = bridge.state;
    this.state = { runId: saved?.runId ?? '', filter: { ...ALL_ROWS, ...saved?.filter }, sort: saved?.sort ?? { key: 'id', descending: false }, expanded: saved?.expanded ?? [], ...(saved?.focusedId ? { focusedId: saved.focusedId } : {}) };
    document.body.append(
      h('main', { class: 'isc-table' }, this.headerEl, this.lockEl, this.approvalsEl, this.toolbarEl, h('div', { class: 'table-wrap' }, h('div', { class: 'criteria', attrs: { role: 'grid', 'aria-label': 'Ideal State Criteria' } }, this.theadRow, this.tbody)), this.emptyEl, this.rating.el),
    );
    replaceChildren(this.headerEl, h('p', { class: 'muted' }, 'Loading the run…'));
    this.renderToolbar();
    this.renderHead();
    this.tbody.addEventListener('keydown', (e) => this.onKey(e));
    this.tbody.addEventListener('click', (e) => this.onClick(e));
    attachRowTools(this.tbody);
    document.addEventListener('keydown', (e) => {
      if (e.key === '/' && !(e.target instanceof HTMLInputElement)) {
        e.preventDefault();
        this.toolbarEl.querySelector<HTMLInputElement>('input.filter-text')?.focus();
      }
    });
    bridge.on('snapshot', (s) => this.load(s));
    bridge.on('delta', (d) => this.apply(d));
    bridge.on('rating', (r) => this.rating.update(r));
    bridge.on('probe', () => {
      this.fullRows.all();
      void bridge.request('shown', this.shown());
    });
    bridge.ready();
  }

  // ---- host → view

  private load(snapshot: TableSnapshot): void {
    this.snapshot = snapshot;
    this.headerAt = performance.now();
    if (this.state.runId !== snapshot.header.runId) this.state = { ...this.state, runId: snapshot.header.runId, expanded: [] };
    this.rows.clear();
    this.elements.clear();
    for (const r of snapshot.rows) this.rows.set(r.id, r);
    this.order = snapshot.rows.map((r) => r.id);
    this.renderTop();
    this.renderToolbar();
    this.renderBody(true);
    this.renderLock();
    this.save();
  }

  private apply(delta: TableDelta): void {
    if (!this.snapshot) return;
    switch (delta.type) {
      case 'row': {
        const known = this.rows.has(delta.row.id);
        this.rows.set(delta.row.id, delta.row);
        if (!known) this.order.push(delta.row.id);
        const tr = this.elements.get(delta.row.id);
        if (tr) this.fill(tr, delta.row);
        this.renderBody(false);
        this.renderTop();
        break;
      }
      case 'rowRemoved':
        this.rows.delete(delta.id);
        this.order = this.order.filter((id) => id !== delta.id);
        this.elements.get(delta.id)?.remove();
        this.elements.delete(delta.id);
        this.renderBody(false);
        this.renderTop();
        break;
      case 'order':
        this.order = delta.ids;
        this.renderBody(false);
        break;
      case 'header':
        this.snapshot.header = delta.header;
        this.headerAt = performance.now();
        this.renderTop();
        break;
      case 'approvals':
        this.snapshot.approvals = delta.approvals;
        renderApprovals(this.approvalsEl, delta.approvals, this);
        break;
      case 'abilities':
        this.snapshot.abilities = delta.abilities;
        this.renderTop();
        break;
      case 'lock': {
        const before = new Set((this.snapshot.lock?.changes ?? []).map((c) => c.id));
        const blockedBefore = JSON.stringify(this.snapshot.lock?.agentBlocked);
        if (delta.lock) this.snapshot.lock = delta.lock;
        else delete this.snapshot.lock;
        // Rows whose TAMPERED mark comes or goes (or whose diff changed) are built again.
        for (const id of new Set([...before, ...(delta.lock?.changes ?? []).map((c) => c.id)])) {
          const tr = this.elements.get(id);
          const row = this.rows.get(id);
          if (tr && row && !isLight(tr)) this.fill(tr, row);
        }
        this.renderLock();
        // The header says BLOCKED while the lock line brings the agent's honest exit.
        if (JSON.stringify(delta.lock?.agentBlocked) !== blockedBefore) this.renderTop();
        break;
      }
    }
  }

  // ---- rendering

  private renderTop(): void {
    if (!this.snapshot) return;
    // The state and score come from the rows as they are now, not from what the run said when it ended.
    this.timeBar = renderHeader(this.headerEl, this.snapshot.header, this.snapshot.abilities, this.rows.values(), this, this.headerAt, this.snapshot.lock?.agentBlocked);
    renderApprovals(this.approvalsEl, this.snapshot.approvals, this);
    this.followTime();
  }

  /** While the run goes, its time bar counts on every second (or, waiting for a person, counts the wait). */
  private followTime(): void {
    const going = this.snapshot?.header.time.going ?? false;
    if (going && this.timer === undefined) {
      this.timer = setInterval(() => this.timeBar && tickTime(this.timeBar, performance.now()), TICK_MS);
    } else if (!going && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private renderHead(): void {
    replaceChildren(
      this.theadRow,
      ...COLUMNS.map((c) => {
        if (!('sort' in c)) return h('div', { class: `cell c-${c.key}`, attrs: { role: 'columnheader' } }, c.label);
        const active = this.state.sort.key === c.sort;
        return h(
          'div',
          { class: `cell c-${c.key}`, attrs: { role: 'columnheader', 'aria-sort': active ? (this.state.sort.descending ? 'descending' : 'ascending') : 'none' } },
          h('button', { class: `sort${active ? ' active' : ''}`, attrs: { type: 'button', 'data-sort': c.sort }, on: { click: () => this.sortBy(c.sort) } }, c.label, active ? (this.state.sort.descending ? ' ↓' : ' ↑') : ''),
        );
      }),
    );
  }

  private renderToolbar(): void {
    const f = this.state.filter;
    const domains = ['ALL', ...new Set([...this.rows.values()].map((r) => r.domain).filter((d): d is string => !!d))].sort((a, b) => (a === 'ALL' ? -1 : b === 'ALL' ? 1 : naturalCompare(a, b)));
    const select = (name: string, label: string, values: readonly string[], value: string, change: (v: string) => void) =>
      h(
        'label',
        { class: 'filter' },
        h('span', { class: 'muted' }, label),
        h(
          'select',
          { class: `filter-${name}`, attrs: { 'aria-label': `Filter by ${label.toLowerCase()}` }, on: { change: (e) => change((e.target as HTMLSelectElement).value) } },
          ...values.map((v) => h('option', { attrs: { value: v, selected: v === value } }, v === 'ALL' ? 'All' : v === 'NONE' ? 'Not verified' : v)),
        ),
      );
    const text = h('input', { class: 'filter-text', attrs: { type: 'text', placeholder: 'Filter text ( / )', 'aria-label': 'Filter by text', value: f.text }, on: { input: (e) => this.setFilter({ text: (e.target as HTMLInputElement).value }) } });
    replaceChildren(
      this.toolbarEl,
      select('outcome', 'Outcome', OUTCOMES, f.outcome, (v) => this.setFilter({ outcome: v as TableFilter['outcome'] })),
      select('priority', 'Priority', PRIORITIES, f.priority, (v) => this.setFilter({ priority: v as TableFilter['priority'] })),
      select('domain', 'Domain', domains, f.domain, (v) => this.setFilter({ domain: v })),
      h('div', { class: 'filter text' }, text),
      this.statusEl,
      this.countEl,
    );
  }

  /**
   * Puts the visible rows in order, making elements only for rows that have none (all of them
   * when `rebuild`). Every row goes in, in one pass, before the frame: rows off screen cost
   * little (content-visibility), and find, End and screen readers see the whole run.
   */
  renderBody(rebuild: boolean): void {
    if (rebuild) this.tbody.textContent = '';
    const visible = visibleRows(
      this.order.map((id) => this.rows.get(id)).filter((r): r is TableRow => r !== undefined),
      this.state.filter,
      this.state.sort,
    );
    const ids = visible.map((r) => r.id);
    if (rebuild) this.elements.clear();
    const unchanged = !rebuild && ids.length === this.shownIds.length && ids.every((id, i) => id === this.shownIds[i]) && ids.every((id) => this.elements.has(id));
    if (!unchanged) {
      // Rows filtered out are detached, not destroyed: their elements come back as they were.
      placeRows(
        this.tbody,
        visible.map((row) => {
          let tr = this.elements.get(row.id);
          if (!tr) {
            // On a (re)load rows start light, but for the open and the focused ones, and the
            // first screen of them is made whole before the frame (FullRows.fillScreen); a
            // row added later is built whole.
            const light = rebuild && !this.isExpanded(row.id) && row.id !== this.state.focusedId;
            tr = light ? lightRow(row) : this.decorate(rowElement(row, this.isExpanded(row.id), this));
            this.elements.set(row.id, tr);
          }
          return tr;
        }),
      );
      if (rebuild) this.fullRows.fillScreen();
      this.fullRows.placed();
      this.shownIds = ids;
      this.updateTabStop();
    }
    this.countEl.textContent = `${ids.length} of ${this.rows.size} shown`;
    this.emptyEl.textContent = this.rows.size === 0 ? 'This run has no criteria yet; they appear here as the run defines them.' : ids.length === 0 ? 'No criterion matches the filter.' : '';
    this.emptyEl.hidden = this.emptyEl.textContent === '';
  }

  /** Builds a light row whole, in place. */
  private fillWhole(tr: HTMLElement): void {
    const row = tr.dataset.id ? this.rows.get(tr.dataset.id) : undefined;
    if (row) this.fill(tr, row);
  }

  /** Builds a row whole in place, with its TAMPERED mark when the lock says so. */
  private fill(tr: HTMLElement, row: TableRow): void {
    fillRow(tr, row, this.isExpanded(row.id), this);
    this.decorate(tr);
  }

  private decorate(tr: HTMLElement): HTMLElement {
    const lock = this.snapshot?.lock;
    const change = lock?.changes.find((c) => c.what === 'criterion' && c.id === tr.dataset.id);
    decorateRow(tr, change, lock?.canAct ?? false);
    return tr;
  }

  private renderLock(): void {
    renderLock(this.lockEl, this.snapshot?.lock, new Set(this.rows.keys()), this);
  }

  private updateTabStop(): void {
    const id = this.state.focusedId && this.elements.has(this.state.focusedId) && this.shownIds.includes(this.state.focusedId) ? this.state.focusedId : this.shownIds[0];
    const next = id ? this.elements.get(id) : undefined;
    if (next === this.tabStop) return;
    if (this.tabStop) this.tabStop.tabIndex = -1;
    if (next) next.tabIndex = 0;
    this.tabStop = next;
  }

  // ---- user actions

  private setFilter(change: Partial<TableFilter>): void {
    this.state = { ...this.state, filter: { ...this.state.filter, ...change } };
    this.renderBody(false);
    this.save();
  }

  private sortBy(key: SortKey): void {
    this.state = { ...this.state, sort: { key, descending: this.state.sort.key === key ? !this.state.sort.descending : false } };
    this.renderHead();
    this.renderBody(false);
    this.save();
  }

  private isExpanded(id: string): boolean {
    return this.state.expanded.includes(id);
  }

  toggle(id: string): void {
    const expanded = this.isExpanded(id) ? this.state.expanded.filter((x) => x !== id) : [...this.state.expanded, id];
    this.state = { ...this.state, expanded };
    const row = this.rows.get(id);
    const tr = this.elements.get(id);
    if (row && tr) this.fill(tr, row);
    this.save();
  }

  reverify(id: string): void {
    void this.ask(`Verifying ${id}…`, this.bridge.request('reverify', { ids: [id] }));
  }

  reverifyAll(): void {
    void this.ask('Verifying every criterion…', this.bridge.request('reverify', {}));
  }

  openLocation(location: EvidenceLocation): void {
    void this.ask('', this.bridge.request('openLocation', location));
  }

  openPrd(): void {
    void this.ask('', this.bridge.request('openPrd', {}));
  }

  control(action: 'cancel' | 'resume' | 'rate'): void {
    if (action === 'rate' && this.rating.focus()) return;
    void this.ask('', this.bridge.request('control', { action }));
  }

  decide(approvalId: string, answer: ApprovalAnswer): void {
    void this.ask(answer === 'deny' || answer === 'never' ? 'Denying…' : 'Approving…', this.bridge.request('decide', { approvalId, answer }));
  }

  showDiff(approvalId: string): void {
    void this.ask('', this.bridge.request('showDiff', { approvalId }));
  }

  lockCriteria(): void {
    void this.ask('Locking: answer the dialog…', this.bridge.request('lockCriteria', {}));
  }

  approveCriteria(): void {
    void this.ask('Approving: answer the dialog…', this.bridge.request('approveCriteria', {}));
  }

  acceptProposal(id: string): void {
    void this.ask('A proposal: answer the dialog…', this.bridge.request('acceptProposal', { id }));
  }

  revertCriterion(id: string): void {
    void this.ask(`Putting ${id} back as locked…`, this.bridge.request('revertCriterion', { id }));
  }

  startEdit(id: string): void {
    const row = this.rows.get(id);
    const tr = this.elements.get(id);
    if (!row || !tr) return;
    if (isLight(tr)) this.fillWhole(tr);
    const cell = tr.querySelector<HTMLElement>(':scope > .c-text .text');
    if (!cell) return;
    const input = h('input', { class: 'edit-text', attrs: { type: 'text', value: row.text, 'aria-label': `New text of ${id}`, maxlength: 500 } });
    // Once: removing a focused input fires its blur, which would finish again (and throw).
    let done = false;
    const finish = (commit: boolean) => {
      if (done) return;
      done = true;
      input.remove();
      this.fill(tr, this.rows.get(id) ?? row);
      tr.focus();
      if (commit && input.value.trim() !== row.text) void this.ask(`Saving ${id}…`, this.bridge.request('editCriterion', { id, text: input.value }));
    };
    input.addEventListener('keydown', (e) => {
      e.stopPropagation();
      if (e.key === 'Enter') finish(true);
      else if (e.key === 'Escape') finish(false);
    });
    input.addEventListener('blur', () => finish(false));
    replaceChildren(cell, input);
    input.focus();
    input.select();
  }

  private async ask(pending: string, request: Promise<RequestResult>): Promise<void> {
    if (pending) this.setStatus(pending, false);
    try {
      const result = await request;
      this.setStatus(result.message, !result.ok);
    } catch (error) {
      this.setStatus(error instanceof Error ? error.message : String(error), true);
    }
  }

  private setStatus(text: string, error: boolean): void {
    this.statusEl.textContent = text;
    this.statusEl.classList.toggle('error', error);
  }

  private rowOf(target: EventTarget | null): HTMLElement | undefined {
    const el = target instanceof Element ? target.closest<HTMLElement>('.row') : null;
    const id = el?.dataset.id;
    return id ? this.elements.get(id) : undefined;
  }

  private onClick(e: MouseEvent): void {
    const tr = this.rowOf(e.target);
    if (!tr?.dataset.id) return;
    const button = e.target instanceof Element ? e.target.closest<HTMLElement>('button[data-action]') : null;
    if (button?.dataset.action === 'reverify') return this.reverify(tr.dataset.id);
    if (button?.dataset.action === 'edit') return this.startEdit(tr.dataset.id);
    if (button?.dataset.action === 'lock-approve') return this.approveCriteria();
    if (button?.dataset.action === 'lock-revert') return this.revertCriterion(tr.dataset.id);
    if (e.target instanceof Element && e.target.closest('a, button, input, .detail')) return;
    this.focusRow(tr.dataset.id);
    this.toggle(tr.dataset.id);
  }

  private onKey(e: KeyboardEvent): void {
    if (e.target instanceof HTMLInputElement) return;
    const tr = this.rowOf(e.target);
    const id = tr?.dataset.id;
    if (!id) return;
    const at = this.shownIds.indexOf(id);
    const move = (to: number) => {
      const next = this.shownIds[Math.max(0, Math.min(this.shownIds.length - 1, to))];
      if (next) this.focusRow(next);
    };
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(at + 1),
      ArrowUp: () => move(at - 1),
      Home: () => move(0),
      End: () => move(this.shownIds.length - 1),
      PageDown: () => move(at + 10),
      PageUp: () => move(at - 10),
      Enter: () => this.toggle(id),
      ' ': () => this.toggle(id),
      ArrowRight: () => !this.isExpanded(id) && this.toggle(id),
      ArrowLeft: () => this.isExpanded(id) && this.toggle(id),
      F2: () => this.startEdit(id),
      r: () => this.reverify(id),
    };
    const action = keys[e.key];
    if (!action || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    action();
  }

  private focusRow(id: string): void {
    this.state = { ...this.state, focusedId: id };
    this.updateTabStop();
    const tr = this.elements.get(id);
    if (tr && isLight(tr)) this.fillWhole(tr);
    tr?.focus();
    if (tr) keepInView(tr);
    this.save();
  }

  private save(): void {
    this.bridge.setState(this.state);
  }

  /** What the view shows, read from the DOM. */
  private shown() {
    const rows = [...this.elements.values()].map((tr) => {
      const mark = tr.querySelector<HTMLElement>('.c-text .probe-mark');
      return {
        id: tr.dataset.id ?? '',
        text: tr.querySelector('.c-text .text')?.textContent ?? '',
        outcome: tr.querySelector('.c-outcome [data-outcome]')?.getAttribute('data-outcome') ?? '',
        status: tr.querySelector('.c-status')?.textContent ?? '',
        stale: tr.classList.contains('stale'),
        ...(mark ? { probe: { text: mark.textContent ?? '', title: mark.title } } : {}),
      };
    });
    return {
      runId: this.snapshot?.header.runId ?? '',
      phase: this.headerEl.querySelector('.step.current')?.getAttribute('data-phase') ?? '',
      rows,
      visibleIds: Array.from(this.tbody.querySelectorAll<HTMLElement>('.row'), (tr) => tr.dataset.id ?? ''),
      header: {
        state: this.headerEl.querySelector('.badge.state')?.textContent ?? '',
        reason: this.headerEl.querySelector('.exit-reason')?.textContent ?? '',
        score: this.headerEl.querySelector('.score')?.textContent ?? '',
        time: this.headerEl.querySelector('[data-budget="time"]')?.getAttribute('aria-valuetext') ?? '',
        timeUsed: Number(this.headerEl.querySelector('[data-budget="time"]')?.getAttribute('aria-valuenow') ?? NaN),
        spent: this.headerEl.querySelector('[data-budget="spent"]')?.textContent ?? '',
      },
      approvals: shownApprovals(this.approvalsEl),
      ...(this.lockEl.hidden ? {} : { lock: shownLock(this.lockEl, this.tbody) }),
      ...(this.rating.el.hidden ? {} : { rating: this.rating.el.textContent ?? '' }),
    };
  }
}
