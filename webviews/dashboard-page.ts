// The static dashboard page `ideal-state dashboard` writes (bundled to media/dist/dashboard-page.js
// and .css, then inlined into index.html). Its figures are in the page itself, in a JSON block
// (a copy of data.json beside it): a page opened from file:// may not fetch a file beside it.
import './dashboard/page.css';
import './shared/base.css';
import './dashboard/dashboard.css';
import type { DashboardData } from './dashboard/protocol';
import { h } from './shared/dom';
import { redrawOnResize } from './dashboard/redraw';
import { renderDashboard } from './dashboard/render';

const block = document.getElementById('dashboard-data');
let data: DashboardData | undefined;
try {
  data = JSON.parse(block?.textContent ?? '') as DashboardData;
} catch {
  data = undefined;
}
const draw = () =>
  document.body.replaceChildren(
    data && data.version === 1
      ? renderDashboard(data, { source: document.body.dataset.source ?? 'Ideal State store' })
      : h('main', { class: 'dashboard' }, h('p', { attrs: { role: 'alert' } }, 'This page holds no dashboard figures it can read; write it again with ideal-state dashboard --out DIR.')),
  );
draw();
redrawOnResize(draw);
