import { h } from '../shared/dom';

/**
 * The re-verify and edit buttons of the table: one pair, moved into the row under the
 * pointer or with the focus. They only ever show on that row (hover and focus, see
 * isc-table.css), so a pair per row would be a thousand hidden buttons to build for nothing.
 * Their clicks reach IscTableApp.onClick like any click in the table (`data-action`); the
 * keyboard has R and F2 on every row.
 */
export function attachRowTools(body: HTMLElement): void {
  const reverify = h('button', { class: 'icon', attrs: { type: 'button', 'data-action': 'reverify', tabindex: -1 } }, '↻');
  const edit = h('button', { class: 'icon', attrs: { type: 'button', 'data-action': 'edit', tabindex: -1 } }, '✎');
  const tools = h('span', { class: 'row-tools' }, reverify, edit);
  const moveTo = (target: EventTarget | null) => {
    const row = target instanceof Element ? target.closest<HTMLElement>('.row') : null;
    const cell = row?.querySelector<HTMLElement>(':scope > .c-actions');
    const id = row?.dataset.id;
    if (!cell || !id || tools.parentElement === cell) return;
    reverify.title = `Re-verify ${id} (R)`;
    reverify.setAttribute('aria-label', `Re-verify ${id}`);
    edit.title = `Edit ${id} (F2)`;
    edit.setAttribute('aria-label', `Edit ${id}`);
    cell.appendChild(tools);
  };
  body.addEventListener('mouseover', (e) => moveTo(e.target));
  body.addEventListener('focusin', (e) => moveTo(e.target));
}
