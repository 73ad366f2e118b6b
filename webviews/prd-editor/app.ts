import type { HostBridge } from '../shared/bridge';
import { append, h, replaceChildren } from '../shared/dom';
import { WebviewRequestError } from '../shared/protocol';
import type { PrdEditorEdit, PrdEditorProtocol, PrdEditorState, PrdView, PrdViewCriterion } from './protocol';
import { criteriaTable, criterionRow, decisions, header, log, PRIORITY_ORDER, section, type RowActions } from './render';

/**
 * The PRD editor page. It never changes what it shows on its own: every action is a
 * request to the host, whose edit of the document comes back as a view or row delta.
 */
export class PrdEditorApp {
  private view: PrdView | undefined;
  /** The control that had the focus (`check:ISC-1`, `edit:ISC-1`, `add`), given back after a redraw. */
  private focusedControl: string | undefined;
  private editing: { id: string; input: HTMLInputElement } | undefined;
  private adding: HTMLInputElement | undefined;
  private addBox: HTMLElement | undefined;
  private readonly rows = new Map<string, HTMLTableRowElement>();
  private readonly root = h('main');
  private readonly status = h('div', { class: 'status-line', attrs: { role: 'status', 'aria-live': 'polite' } });
  private readonly actions: RowActions = {
    toggle: (c) => this.send({ kind: 'setChecked', id: c.id, checked: !c.checked }),
    edit: (c) => this.startEditing(c),
    cyclePriority: (c) => this.send({ kind: 'setPriority', id: c.id, priority: PRIORITY_ORDER[(PRIORITY_ORDER.indexOf(c.priority) + 1) % PRIORITY_ORDER.length]! }),
    reveal: (c) => void this.bridge.request('reveal', { id: c.id }),
  };

  constructor(private readonly bridge: HostBridge<PrdEditorProtocol, PrdEditorState>) {
    // No key handler on the page: keys act only on the control that has the focus.
    document.body.append(this.root, this.status, h('footer', { class: 'keys' }, h('kbd', {}, 'Tab'), ' to a control, ', h('kbd', {}, 'Space'), ' or ', h('kbd', {}, 'Enter'), ' to use it; ', h('kbd', {}, 'Esc'), ' cancels an edit. A criterion\'s ID opens its line in the text editor.'));
    document.addEventListener('focusin', (e) => {
      const control = (e.target as HTMLElement).dataset?.control;
      if (control) (this.focusedControl = control), this.save();
    });
    window.addEventListener('scroll', () => this.save(), { passive: true });
    bridge.on('view', (view) => this.show(view));
    bridge.on('rows', (delta) => this.applyRows(delta.rows, delta.order));
    const saved = bridge.state;
    this.focusedControl = saved?.focusedControl;
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
      section('Ideal State Criteria', criteria.length, h('div', {}, criteriaTable(criteria, this.actions, this.rows, 'None yet: add the first one.'), this.addControl()), 'criteria'),
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

  /** "Add criterion": a text box for the new criterion; Enter adds its line (the host picks the next free id). */
  private addControl(): HTMLElement {
    // One box for the page's life: a redraw while the person types in it moves it, and gives it the focus back.
    if (this.addBox) {
      if (this.adding) queueMicrotask(() => this.adding?.focus());
      return this.addBox;
    }
    const wrap = (this.addBox = h('div', { class: 'add' }));
    const button = h('button', { class: 'add-criterion', dataset: { control: 'add' }, on: { click: () => open() } }, '+ Add criterion');
    const open = () => {
      const input = h('input', { attrs: { type: 'text', 'aria-label': 'text of the new criterion', placeholder: 'What must be true when the work is done? Enter adds it, Esc cancels' } });
      this.adding = input;
      let done = false;
      const finish = (commit: boolean) => {
        if (done) return;
        done = true;
        this.adding = undefined;
        const text = input.value.trim();
        replaceChildren(wrap, button);
        if (commit && text !== '') {
          this.focusedControl = 'add';
          this.send({ kind: 'addCriterion', text });
        }
        if (document.activeElement === document.body || document.activeElement === null) button.focus();
      };
      input.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') (e.preventDefault(), finish(true));
        else if (e.key === 'Escape') (e.preventDefault(), finish(false));
      });
      input.addEventListener('blur', () => finish(input.value.trim() !== ''));
      replaceChildren(wrap, input);
      input.focus();
    };
    append(wrap, button);
    return wrap;
  }

  /** After a redraw the control that had the focus gets it back, so Tab goes on from where it was. */
  private restoreFocus(): void {
    if (this.editing || this.adding || !this.focusedControl) return;
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    const control = Array.from(document.querySelectorAll<HTMLElement>('[data-control]')).find((el) => el.dataset.control === this.focusedControl);
    control?.focus({ preventScroll: true });
  }

  private say(message: string, error = false): void {
    this.status.textContent = message;
    this.status.classList.toggle('error', error);
  }

  private save(): void {
    this.bridge.setState({ view: this.view, focusedControl: this.focusedControl, scrollY: window.scrollY });
  }
}
