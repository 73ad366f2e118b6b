import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { LoopMatrixState, ShownMatrix } from '../../../webviews/loop-matrix/protocol';
import { WebviewPanels } from '../webview';
import { LOOP_MATRIX_VIEW_TYPE, LoopMatrixPanel, type LoopMatrixSource } from './loop-matrix-panel';

/** The open loop matrices, one panel per loop, and the serializer that brings them back after a reload. */
export class LoopMatrices implements vscode.WebviewPanelSerializer<LoopMatrixState>, vscode.Disposable {
  private readonly panels: WebviewPanels<LoopMatrixPanel>;
  private readonly disposables: vscode.Disposable[];

  constructor(
    extensionUri: vscode.Uri,
    source: LoopMatrixSource,
    private readonly log: Logger,
  ) {
    this.panels = new WebviewPanels(LOOP_MATRIX_VIEW_TYPE, (panel, loopId) => new LoopMatrixPanel(panel, loopId, extensionUri, source, log));
    this.disposables = [this.panels, vscode.window.registerWebviewPanelSerializer(LOOP_MATRIX_VIEW_TYPE, this)];
  }

  open(loopId: string, options: { beside?: boolean } = {}): LoopMatrixPanel {
    const show = options.beside ? { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true } : vscode.ViewColumn.Active;
    return this.panels.show(loopId, `Loop · ${loopId}`, show, !options.beside);
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: LoopMatrixState | undefined): Promise<void> {
    this.panels.restore(panel, state?.loopId, this.log, 'a loop matrix came back after a reload without its loop id; closed');
  }

  /** For the editor's tests: what an open matrix shows once every refresh asked so far is done. */
  async shown(loopId: string, timeoutMs = 20_000): Promise<ShownMatrix> {
    const panel = await this.panels.whenReady(loopId, `matrix of loop ${loopId}`, timeoutMs);
    await panel.settled();
    return panel.probe();
  }

  sent(loopId: string): readonly string[] {
    return this.panels.get(loopId)?.sent ?? [];
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
