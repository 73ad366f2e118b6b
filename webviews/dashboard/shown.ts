import type { ShownDashboard } from './protocol';

/** What the page shows, read from its DOM (the editor's tests and the e2e tier compare it with the store). */
export function shownDashboard(root: ParentNode): ShownDashboard {
  const text = (el: Element | null) => (el?.textContent ?? '').trim();
  const totals: Record<string, string> = {};
  for (const card of Array.from(root.querySelectorAll<HTMLElement>('.card'))) totals[card.dataset.total ?? ''] = text(card.querySelector('.card-value'));
  return {
    totals,
    charts: Array.from(root.querySelectorAll<HTMLElement>('figure.chart-figure'), (f) => f.dataset.chart ?? ''),
    tables: Array.from(root.querySelectorAll('table.data-table'), (t) => ({
      caption: text(t.querySelector('caption')),
      rows: Array.from(t.querySelectorAll('tbody tr'), (tr) => Array.from(tr.children, (c) => text(c))),
    })),
    empty: root.querySelector('.empty-state') !== null,
  };
}
