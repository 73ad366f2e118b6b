import type { HostBridge } from '../shared/bridge';
import { h, replaceChildren } from '../shared/dom';
import type { LoopMatrixProtocol, LoopMatrixState, MatrixArtifact, MatrixHeader, MatrixSnapshot, ShownMatrix } from './protocol';
import { cellOf, headerLine, visibleArtifacts, withArtifact } from './view-model';
import { runStateLabel } from '../../src/model/labels';

/**
 * A loop as an artifacts × criteria matrix: one row per file, one column per criterion id,
 * each cell the artifact's latest outcome. The host sends a snapshot when the view (re)loads
 * and then one row, the header or the columns as they change (the loop's progress deltas).
 */
export class LoopMatrixApp {
  private snapshot: MatrixSnapshot | undefined;
  private state: LoopMatrixState;
  private readonly headerEl = h('header', { class: 'loop-header' });
  private readonly toolbarEl = h('div', { class: 'toolbar' });
  private readonly statusEl = h('div', { class: 'status-line', attrs: { role: 'status' } });
  private readonly tableEl = h('table', { class: 'grid matrix', attrs: { 'aria-label': 'Artifacts and their criteria' } });
  private readonly emptyEl = h('p', { class: 'empty muted' });
  private readonly failingOnlyEl = h('input', { class: 'failing-only', attrs: { type: 'checkbox', id: 'failing-only' } });

  constructor(private readonly bridge: HostBridge<LoopMatrixProtocol, LoopMatrixState>) {
    const saved = bridge.state;
    this.state = { loopId: saved?.loopId ?? '', failingOnly: saved?.failingOnly ?? false };
    this.failingOnlyEl.checked = this.state.failingOnly;
    this.failingOnlyEl.addEventListener('change', () => {
      this.state = { ...this.state, failingOnly: this.failingOnlyEl.checked };
      this.save();
      this.renderBody();
    });
    replaceChildren(this.toolbarEl, h('label', { class: 'filter', attrs: { for: 'failing-only' } }, this.failingOnlyEl, 'Failing only'), this.statusEl);
    document.body.append(h('main', { class: 'loop-matrix' }, this.headerEl, this.toolbarEl, h('div', { class: 'table-wrap' }, this.tableEl), this.emptyEl));
    replaceChildren(this.headerEl, h('p', { class: 'muted' }, 'Loading the loop…'));
    bridge.on('snapshot', (s) => {
      this.snapshot = s;
      if (this.state.loopId !== s.header.loopId) this.state = { ...this.state, loopId: s.header.loopId };
      this.save();
      this.renderHeader();
      this.renderBody();
    });
    bridge.on('artifact', (a) => {
      if (!this.snapshot) return;
      this.snapshot = withArtifact(this.snapshot, a);
      this.renderBody();
    });
    bridge.on('header', (header) => {
      if (!this.snapshot) return;
      this.snapshot = { ...this.snapshot, header };
      this.renderHeader();
    });
    bridge.on('columns', ({ criteria }) => {
      if (!this.snapshot) return;
      this.snapshot = { ...this.snapshot, criteria };
      this.renderBody();
    });
    bridge.on('probe', () => void bridge.request('shown', this.shown()));
    bridge.ready();
  }

  private save(): void {
    this.bridge.setState(this.state);
  }

  private renderHeader(): void {
    const head = this.snapshot?.header;
    if (!head) return;
    const actions: HTMLElement[] = [];
    if (head.canCancel) actions.push(this.controlButton('cancel', 'Cancel'));
    if (head.canResume) actions.push(this.controlButton('resume', 'Resume', true));
    replaceChildren(
      this.headerEl,
      h('div', { class: 'title-row' }, h('div', { class: 'title' }, h('h1', {}, `Loop · ${head.title}`), h('p', { class: 'subtitle muted mono' }, head.loopId)), h('div', { class: 'actions' }, ...actions)),
      h('div', { class: 'status-row' }, h('span', { class: `badge state ${stateClass(head)}`, dataset: { state: head.state } }, runStateLabel(head.state)), h('span', { class: 'summary' }, headerLine(head))),
    );
  }

  private controlButton(action: 'cancel' | 'resume', label: string, primary = false): HTMLElement {
    return h('button', {
      class: primary ? 'primary' : '',
      dataset: { action },
      on: {
        click: () => {
          void this.bridge.request('control', { action }).then((r) => this.say(r.ok ? '' : (r.message ?? `${label} did not work`), !r.ok), (e: Error) => this.say(e.message, true));
        },
      },
    }, label);
  }

  private renderBody(): void {
    const s = this.snapshot;
    if (!s) return;
    const rows = visibleArtifacts(s.artifacts, this.state.failingOnly);
    const head = h('tr', {}, h('th', { attrs: { scope: 'col' } }, 'Artifact'), ...s.criteria.map((id) => h('th', { class: 'criterion', attrs: { scope: 'col' } }, id)), h('th', { attrs: { scope: 'col' } }, 'Open'));
    const body = rows.map((a) => this.row(a, s.criteria));
    replaceChildren(this.tableEl, h('thead', {}, head), h('tbody', {}, ...body));
    const hidden = s.artifacts.length - rows.length;
    this.emptyEl.textContent = rows.length === 0 ? (s.artifacts.length === 0 ? 'No artifact matched the loop’s glob.' : 'Every artifact passes: nothing is failing.') : hidden > 0 ? `${hidden} passing artifact${hidden === 1 ? '' : 's'} hidden by “Failing only”.` : '';
  }

  private row(a: MatrixArtifact, criteria: readonly string[]): HTMLElement {
    const openFile = h('button', { class: 'link open-file', title: `Open ${a.file}`, on: { click: () => this.open('openFile', { file: a.file }) } }, a.file);
    const openRun = a.runId ? h('button', { class: 'open-run', title: 'Open this artifact’s run (its own ISC table)', dataset: { runId: a.runId }, on: { click: () => this.open('openRun', { runId: a.runId! }) } }, 'Open run') : h('span', { class: 'muted' }, '—');
    return h(
      'tr',
      { class: a.passing ? 'passing' : 'failing', dataset: { file: a.file, status: a.status } },
      h('th', { class: 'artifact', attrs: { scope: 'row' } }, openFile, h('span', { class: 'artifact-status muted' }, a.status)),
      ...criteria.map((id) => {
        const outcome = cellOf(a, id);
        return h('td', { class: `cell ${outcome.toLowerCase()}`, title: `${a.file} · ${id}: ${outcome}`, dataset: { outcome } }, outcome);
      }),
      h('td', {}, openRun),
    );
  }

  private open(method: 'openFile' | 'openRun', params: { file: string } | { runId: string }): void {
    const request = method === 'openFile' ? this.bridge.request('openFile', params as { file: string }) : this.bridge.request('openRun', params as { runId: string });
    void request.then((r) => this.say(r.ok ? '' : (r.message ?? 'That could not be opened'), !r.ok), (e: Error) => this.say(e.message, true));
  }

  private say(text: string, error: boolean): void {
    this.statusEl.textContent = text;
    this.statusEl.classList.toggle('error', error);
  }

  private shown(): ShownMatrix {
    const rows = Array.from(this.tableEl.querySelectorAll('tbody tr'), (tr) => ({ file: (tr as HTMLElement).dataset.file ?? '', cells: Array.from(tr.querySelectorAll('td.cell'), (td) => td.textContent ?? '') }));
    return {
      header: this.headerEl.querySelector('.summary')?.textContent ?? '',
      columns: Array.from(this.tableEl.querySelectorAll('thead th.criterion'), (th) => th.textContent ?? ''),
      rows,
      failingOnly: this.state.failingOnly,
    };
  }
}

function stateClass(head: MatrixHeader): string {
  if (!head.finished) return 'info';
  if (head.state === 'COMPLETE') return 'pass';
  if (head.state === 'FAILED') return 'fail';
  return 'warn';
}
