import type { HostBridge } from '../shared/bridge';
import { h, replaceChildren } from '../shared/dom';
import type { DashboardProtocol, DashboardState } from './protocol';
import { renderDashboard } from './render';
import { shownDashboard } from './shown';

/** The editor's dashboard: the host sends the store's figures when the view (re)loads and on Refresh. */
export class DashboardApp {
  private readonly root = h('div', { class: 'dashboard-root' });
  private readonly status = h('p', { class: 'status-line', attrs: { role: 'status' } });

  constructor(private readonly bridge: HostBridge<DashboardProtocol, DashboardState>) {
    document.body.append(this.root);
    replaceChildren(this.root, h('p', { class: 'muted dashboard' }, 'Reading the store…'));
    bridge.on('snapshot', (data) => {
      const refresh = h('button', { attrs: { type: 'button' }, on: { click: () => this.refresh() } }, 'Refresh');
      replaceChildren(this.root, renderDashboard(data, { source: 'This workspace’s store', actions: [refresh] }), this.status);
    });
    bridge.on('probe', () => void bridge.request('shown', shownDashboard(this.root)));
    bridge.ready();
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
