import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { LoopMatrixState, ShownMatrix } from '../../../webviews/loop-matrix/protocol';
import { LOOP_MATRIX_VIEW_TYPE, LoopMatrixPanel, type LoopMatrixSource } from './loop-matrix-panel';

/** The open loop matrices, one panel per loop, and the serializer that brings them back after a reload. */
export class LoopMatrices implements vscode.WebviewPanelSerializer<LoopMatrixState>, vscode.Disposable {
  private readonly panels = new Map<string, LoopMatrixPanel>();
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly source: LoopMatrixSource,
    private readonly log: Logger,
  ) {
    this.disposables = [vscode.window.registerWebviewPanelSerializer(LOOP_MATRIX_VIEW_TYPE, this)];
  }

  open(loopId: string, options: { beside?: boolean } = {}): LoopMatrixPanel {
    const open = this.panels.get(loopId);
    if (open) {
      if (!options.beside) open.panel.reveal();
      return open;
    }
    const show = options.beside ? { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true } : vscode.ViewColumn.Active;
    const panel = vscode.window.createWebviewPanel(LOOP_MATRIX_VIEW_TYPE, `Loop · ${loopId}`, show, { enableScripts: true, enableFindWidget: true });
    return this.adopt(panel, loopId);
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: LoopMatrixState | undefined): Promise<void> {
    const loopId = typeof state?.loopId === 'string' ? state.loopId : '';
    if (!loopId) {
      this.log.warn('a loop matrix came back after a reload without its loop id; closed');
      panel.dispose();
      return;
    }
    this.adopt(panel, loopId);
  }

  private adopt(webviewPanel: vscode.WebviewPanel, loopId: string): LoopMatrixPanel {
    const panel = new LoopMatrixPanel(webviewPanel, loopId, this.extensionUri, this.source, this.log);
    this.panels.set(loopId, panel);
    panel.onDidDispose(() => {
      if (this.panels.get(loopId) === panel) this.panels.delete(loopId);
    });
    return panel;
  }

  /** For the editor's tests: what an open matrix shows once every refresh asked so far is done. */
  async shown(loopId: string, timeoutMs = 20_000): Promise<ShownMatrix> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const panel = this.panels.get(loopId);
      if (panel?.ready) {
        await panel.settled();
        return panel.probe();
      }
      if (Date.now() > deadline) throw new Error(`no matrix of loop ${loopId} became ready`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  sent(loopId: string): readonly string[] {
    return this.panels.get(loopId)?.sent ?? [];
  }

  dispose(): void {
    for (const panel of [...this.panels.values()]) panel.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
