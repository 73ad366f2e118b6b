import type { HostBridge } from '../shared/bridge';
import { h, replaceChildren } from '../shared/dom';
import type { DashboardData, DashboardProtocol, DashboardState } from './protocol';
import { redrawOnResize } from './redraw';
import { renderDashboard } from './render';
import { shownDashboard } from './shown';

/** The editor's dashboard: the host sends the store's figures when the view (re)loads and on Refresh. */
export class DashboardApp {
  private readonly root = h('div', { class: 'dashboard-root' });
  private readonly status = h('p', { class: 'status-line', attrs: { role: 'status' } });
  private data: DashboardData | undefined;

  constructor(private readonly bridge: HostBridge<DashboardProtocol, DashboardState>) {
    document.body.append(this.root);
    replaceChildren(this.root, h('p', { class: 'muted dashboard' }, 'Reading the store…'));
    bridge.on('snapshot', (data) => {
      this.data = data;
      this.draw();
    });
    redrawOnResize(() => this.draw());
    bridge.on('probe', () => void bridge.request('shown', shownDashboard(this.root)));
    bridge.ready();
  }

  private draw(): void {
    if (!this.data) return;
    const refresh = h('button', { attrs: { type: 'button' }, on: { click: () => this.refresh() } }, 'Refresh');
    replaceChildren(this.root, renderDashboard(this.data, { source: 'This workspace’s store', actions: [refresh] }), this.status);
  }

  private refresh(): void {
    this.status.textContent = 'Reading the store…';
    this.bridge.request('refresh', {}).then(
      () => (this.status.textContent = ''),
      (e: Error) => {
        this.status.textContent = e.message;
        this.status.classList.add('error');
      },
    );
  }
}
