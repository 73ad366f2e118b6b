import type { HostBridge } from '../shared/bridge';
import { h, replaceChildren } from '../shared/dom';
import { WebviewRequestError } from '../shared/protocol';
import type { PrdEditorEdit, PrdEditorProtocol, PrdEditorState, PrdView, PrdViewCriterion } from './protocol';
import { criteriaTable, criterionRow, decisions, header, log, PRIORITY_ORDER, section, type RowActions } from './render';

/**
 * The PRD editor page. It never changes what it shows on its own: every action is a
 * request to the host, whose edit of the document comes back as a view or row delta.
 */
export class PrdEditorApp {
  private view: PrdView | undefined;
  private focusedId: string | undefined;
  private editing: { id: string; input: HTMLInputElement } | undefined;
  private readonly rows = new Map<string, HTMLTableRowElement>();
  private readonly root = h('main');
  private readonly status = h('div', { class: 'status-line', attrs: { role: 'status', 'aria-live': 'polite' } });
  private readonly actions: RowActions = {
    toggle: (c) => this.send({ kind: 'setChecked', id: c.id, checked: !c.checked }),
    edit: (c) => this.startEditing(c),
    cyclePriority: (c) => this.send({ kind: 'setPriority', id: c.id, priority: PRIORITY_ORDER[(PRIORITY_ORDER.indexOf(c.priority) + 1) % PRIORITY_ORDER.length]! }),
    focus: (c) => {
      this.focusedId = c.id;
      this.save();
    },
  };

  constructor(private readonly bridge: HostBridge<PrdEditorProtocol, PrdEditorState>) {
    document.body.append(this.root, this.status, h('footer', { class: 'keys' }, h('kbd', {}, '↑'), h('kbd', {}, '↓'), ' move  ', h('kbd', {}, 'Space'), ' tick  ', h('kbd', {}, 'Enter'), ' edit text  ', h('kbd', {}, 'Esc'), ' cancel  ', h('kbd', {}, 'P'), ' priority  ', h('kbd', {}, 'O'), ' open in text editor'));
    document.addEventListener('keydown', (e) => this.onKey(e));
    window.addEventListener('scroll', () => this.save(), { passive: true });
    bridge.on('view', (view) => this.show(view));
    bridge.on('rows', (delta) => this.applyRows(delta.rows, delta.order));
    const saved = bridge.state;
    this.focusedId = saved?.focusedId;
    if (saved?.view) this.show(saved.view, saved.scrollY);
    bridge.ready();
  }

  private show(view: PrdView, scrollY?: number): void {
    this.view = view;
    this.rows.clear();
    const criteria = view.criteria.filter((c) => !c.anti);
    const anti = view.criteria.filter((c) => c.anti);
    replaceChildren(
      this.root,
      header(view),
      !view.isPrd && h('p', { class: 'not-prd muted' }, 'This file has no "prd: true" frontmatter, so Ideal State does not treat it as a PRD.'),
      section('Ideal State Criteria', criteria.length, criteriaTable(criteria, this.actions, this.rows), 'criteria'),
      section('Anti-Criteria', anti.length, criteriaTable(anti, this.actions, this.rows), 'anti-criteria'),
      section('Decisions', view.decisions.length, decisions(view), 'decisions'),
      section('Log', view.log.length, log(view), 'log'),
    );
    if (this.editing && this.rows.has(this.editing.id)) this.reattachEditor();
    else this.editing = undefined;
    this.restoreFocus();
    if (scrollY !== undefined) window.scrollTo(0, scrollY);
    this.save();
  }

  /** Replaces only the rows that changed; a new order or grouping redraws the page. */
  private applyRows(changed: readonly PrdViewCriterion[], order: readonly string[]): void {
    if (!this.view) return;
    const old = new Map(this.view.criteria.map((c) => [c.id, c]));
    const next = new Map(changed.map((c) => [c.id, c]));
    const criteria = order.map((id) => next.get(id) ?? old.get(id)).filter((c): c is PrdViewCriterion => c !== undefined);
    const view = { ...this.view, criteria };
    const sameShape = order.length === this.view.criteria.length && this.view.criteria.every((c, i) => c.id === order[i] && (!next.has(c.id) || (next.get(c.id)!.domain === c.domain && next.get(c.id)!.anti === c.anti)));
    if (!sameShape) return this.show(view);
    this.view = view;
    for (const c of changed) {
      const tr = this.rows.get(c.id);
      if (!tr) continue;
      const editing = this.editing?.id === c.id;
      const fresh = criterionRow(c, this.actions);
      tr.replaceWith(fresh);
      this.rows.set(c.id, fresh);
      if (editing) this.reattachEditor();
    }
    // The header counts checked criteria: redraw it too (it is small).
    this.root.querySelector('header')?.replaceWith(header(view));
    this.restoreFocus();
    this.save();
  }

  private send(edit: PrdEditorEdit): void {
    this.bridge.request('edit', edit).then(
      (r) => this.say(r.applied ? '' : 'The document changed meanwhile; try again.', !r.applied),
      (e: unknown) => this.say(e instanceof WebviewRequestError ? e.message : 'The edit failed.', true),
    );
  }

  private startEditing(c: PrdViewCriterion): void {
    if (this.editing) return;
    const input = h('input', { attrs: { type: 'text', 'aria-label': `text of ${c.id}` } });
    input.value = c.text;
    this.editing = { id: c.id, input };
    let done = false;
    const finish = (commit: boolean) => {
      if (done) return;
      done = true;
      const text = input.value.trim();
      this.editing = undefined;
      const current = this.view?.criteria.find((x) => x.id === c.id);
      if (current) this.redrawRow(current);
      this.restoreFocus();
      if (commit && current && text !== '' && text !== current.text) this.send({ kind: 'setText', id: c.id, text });
      else if (commit && text === '') this.say('A criterion needs text; nothing was changed.', true);
    };
    input.addEventListener('keydown', (e) => {
      e.stopPropagation();
      if (e.key === 'Enter') (e.preventDefault(), finish(true));
      else if (e.key === 'Escape') (e.preventDefault(), finish(false));
    });
    input.addEventListener('blur', () => finish(true));
    this.reattachEditor();
    input.focus();
    input.select();
  }

  private reattachEditor(): void {
    if (!this.editing) return;
    const cell = this.rows.get(this.editing.id)?.querySelector('td.text');
    if (cell) replaceChildren(cell, this.editing.input);
  }

  private redrawRow(c: PrdViewCriterion): void {
    const tr = this.rows.get(c.id);
    if (!tr) return;
    const fresh = criterionRow(c, this.actions);
    tr.replaceWith(fresh);
    this.rows.set(c.id, fresh);
  }

  private onKey(e: KeyboardEvent): void {
    // Chords (Ctrl+S, Ctrl+P, …) belong to the workbench, which VS Code forwards them to.
    if (this.editing || e.ctrlKey || e.metaKey || e.altKey) return;
    const tr = (e.target as HTMLElement).closest?.('tr[data-id]') as HTMLTableRowElement | null;
    const c = tr && this.view?.criteria.find((x) => x.id === tr.dataset.id);
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const all = Array.from(document.querySelectorAll<HTMLTableRowElement>('tr[data-id]'));
      const at = tr ? all.indexOf(tr) : -1;
      all[Math.max(0, Math.min(all.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)))]?.focus();
      return;
    }
    if (!c) return;
    if (e.key === ' ') (e.preventDefault(), this.actions.toggle(c));
    else if (e.key === 'Enter') (e.preventDefault(), this.actions.edit(c));
    else if (e.key === 'p' || e.key === 'P') (e.preventDefault(), this.actions.cyclePriority(c));
    else if (e.key === 'o' || e.key === 'O') (e.preventDefault(), void this.bridge.request('reveal', { id: c.id }));
  }

  private restoreFocus(): void {
    if (this.editing || !this.focusedId) return;
    const active = document.activeElement;
    if (active && active !== document.body && !(active instanceof HTMLTableRowElement)) return;
    this.rows.get(this.focusedId)?.focus({ preventScroll: true });
  }

  private say(message: string, error = false): void {
    this.status.textContent = message;
    this.status.classList.toggle('error', error);
  }

  private save(): void {
    this.bridge.setState({ view: this.view, focusedId: this.focusedId, scrollY: window.scrollY });
  }
}
