import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { IscTableState, ShownTable } from '../../../webviews/isc-table/protocol';
import type { TableRatings } from '../learning/table-rating';
import type { RunWatch } from '../runs/run-watch';
import type { StoreHost } from '../store-host';
import type { RunStaleness } from '../verify/run-staleness';
import { ISC_TABLE_VIEW_TYPE, IscTablePanel, type SentMessage } from './table-panel';
import { TableInputCache } from './table-inputs';
import { WebviewPanels } from '../webview';
import { loadTableSnapshot } from './table-source';
import type { SessionsHost } from '../runs/sessions-host';
import type { TableLocks } from './table-lock';
import type { TableSteering } from './table-steering';

/** The open ISC tables, one panel per run, and the serializer that brings them back after a reload. */
export class IscTables implements vscode.WebviewPanelSerializer<IscTableState>, vscode.Disposable {
  private readonly panels: WebviewPanels<IscTablePanel>;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly inputs: TableInputCache;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly stores: StoreHost,
    private readonly steering: TableSteering,
    private readonly watch: RunWatch,
    private readonly log: Logger,
    sessions: SessionsHost,
    private readonly staleness?: Pick<RunStaleness, 'staleIds'>,
    private readonly ratings?: TableRatings,
    private readonly locks?: TableLocks,
  ) {
    this.inputs = new TableInputCache(stores);
    this.panels = new WebviewPanels(ISC_TABLE_VIEW_TYPE, (panel, runId) => this.make(panel, runId), (runId) => this.inputs.forget(runId));
    // Lock Criteria with nothing named locks the PRD of the table the person is looking at.
    locks?.showRunInView(() => this.panels.values().find((p) => p.panel.active)?.runId);
    const refresh = (runId: string | undefined) => {
      for (const panel of this.panels.values()) if (runId === undefined || panel.runId === runId) panel.refresh();
    };
    this.disposables.push(
      // A run's own changes arrive as deltas from its one writer: a going run's step updates the table without a store read.
      sessions.onDelta((delta) => {
        this.inputs.apply(delta);
        refresh('runId' in delta ? delta.runId : undefined);
      }),
      // Anything else (another process, a write this window only announces) is read from the store again.
      watch.onDidChangeOutside((runId) => {
        this.inputs.forget(runId);
        refresh(runId);
      }),
      steering.control.onDidChange(refresh),
      // The lock or a held PRD changed (a lock, an approval, a PRD edited on disk): every badge is read again.
      ...(locks ? [locks.onDidChange(() => refresh(undefined))] : []),
      vscode.window.registerWebviewPanelSerializer(ISC_TABLE_VIEW_TYPE, this),
    );
  }

  /** Opens (or reveals) the table of a run. */
  open(runId: string, options: { beside?: boolean } = {}): IscTablePanel {
    // Beside the editor, in the group where run tables already are: each run opening a group of
    // its own would leave the editor a row of narrow columns after a few runs.
    const tablesColumn = this.panels.values().map((p) => p.panel.viewColumn).find((c) => c !== undefined);
    const show = options.beside ? { viewColumn: tablesColumn ?? vscode.ViewColumn.Beside, preserveFocus: true } : vscode.ViewColumn.Active;
    return this.panels.show(runId, `ISC · ${runId}`, show, !options.beside);
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: IscTableState | undefined): Promise<void> {
    const restored = this.panels.restore(panel, state?.runId, this.log, 'an ISC table came back after a reload without its run id; closed');
    if (restored) this.log.info(`ISC table of ${restored.runId} restored after a reload`);
  }

  private make(webviewPanel: vscode.WebviewPanel, runId: string): IscTablePanel {
    const panel = new IscTablePanel(webviewPanel, runId, this.extensionUri, (id) => loadTableSnapshot(this.stores, this.inputs, this.steering, id, this.staleness, this.locks), this.steering, this.log, this.ratings, this.locks);
    const watching = this.watch.watch(panel);
    panel.onDidDispose(() => watching.dispose());
    return panel;
  }

  close(runId: string): void {
    this.panels.get(runId)?.dispose();
  }

  /** For the editor's tests: what an open table shows and what was sent to it. */
  async shown(runId: string): Promise<ShownTable> {
    const panel = await this.panels.whenReady(runId, `ISC table of ${runId}`);
    await panel.settled();
    return panel.probe();
  }

  sent(runId: string): readonly SentMessage[] {
    return this.panels.get(runId)?.sent ?? [];
  }

  async refresh(runId: string): Promise<void> {
    const panel = this.panels.get(runId);
    panel?.refresh();
    await panel?.settled();
  }

  openRunIds(): string[] {
    return this.panels.keys();
  }

  dispose(): void {
    this.panels.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
