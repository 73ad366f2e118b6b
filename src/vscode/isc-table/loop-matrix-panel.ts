import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { LoopMatrixProtocol, LoopMatrixState, MatrixSnapshot, ShownMatrix } from '../../../webviews/loop-matrix/protocol';
import { matrixDeltas } from '../../../webviews/loop-matrix/view-model';
import { WebviewBridge, WebviewRequestRefused, webviewHtml, webviewOptions } from '../webview';

export const LOOP_MATRIX_VIEW_TYPE = 'idealState.loopMatrix';

type Answer = { ok: boolean; message?: string };

/** What a loop's matrix reads and asks: the loop's snapshot, and the actions of its buttons. */
export interface LoopMatrixSource {
  /** Fires with a loop's id when its progress changed (the loop's own deltas; no polling). */
  readonly onDidChangeLoop: vscode.Event<string>;
  matrix(loopId: string): Promise<MatrixSnapshot | undefined>;
  control(loopId: string, action: 'cancel' | 'resume'): Promise<Answer>;
}

/**
 * One loop's artifacts × criteria matrix. A (re)loaded view gets the whole matrix; after that
 * each change of the loop sends only the rows, columns and header that changed.
 */
export class LoopMatrixPanel implements vscode.Disposable {
  private readonly _onDidDispose = new vscode.EventEmitter<void>();
  readonly onDidDispose = this._onDidDispose.event;
  private readonly bridge: WebviewBridge<LoopMatrixProtocol>;
  private readonly disposables: vscode.Disposable[] = [this._onDidDispose];
  private shownSnapshot: MatrixSnapshot | undefined;
  private refreshing: Promise<void> = Promise.resolve();
  private readonly probes: ((shown: ShownMatrix) => void)[] = [];
  /** What was posted, for the editor's tests: snapshot, or the delta's kind. */
  readonly sent: string[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly loopId: string,
    extensionUri: vscode.Uri,
    private readonly source: LoopMatrixSource,
    private readonly log: Logger,
  ) {
    panel.webview.options = webviewOptions(extensionUri);
    panel.webview.html = webviewHtml(panel.webview, extensionUri, { entry: 'loop-matrix', title: 'Loop matrix' });
    this.bridge = new WebviewBridge<LoopMatrixProtocol>(
      panel.webview,
      {
        openRun: async ({ runId }) => {
          if (typeof runId !== 'string' || !runId) throw new WebviewRequestRefused('Open run needs the artifact’s run id', 'bad-request');
          await vscode.commands.executeCommand('idealState.openIscTable', runId);
          return { ok: true };
        },
        openFile: ({ file }) => openArtifact(file),
        control: async ({ action }) => {
          if (action !== 'cancel' && action !== 'resume') throw new WebviewRequestRefused(`no action "${String(action)}"`, 'bad-request');
          try {
            return await source.control(loopId, action);
          } finally {
            this.refresh();
          }
        },
        shown: (shown) => {
          for (const resolve of this.probes.splice(0)) resolve(shown);
          return null;
        },
      },
      log,
    );
    this.disposables.push(
      this.bridge,
      this.bridge.onDidBecomeReady(() => {
        this.shownSnapshot = undefined;
        this.refresh();
      }),
      source.onDidChangeLoop((id) => {
        if (id === loopId) this.refresh();
      }),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  refresh(): void {
    this.refreshing = this.refreshing.then(() => this.update()).catch((error: unknown) => this.log.error(`refreshing the matrix of loop ${this.loopId} failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  settled(): Promise<void> {
    return this.refreshing;
  }

  get ready(): boolean {
    return this.bridge.ready;
  }

  private async update(): Promise<void> {
    if (!this.bridge.ready) return;
    const next = await this.source.matrix(this.loopId);
    if (!next) {
      this.panel.title = `Loop · ${this.loopId} (not found)`;
      return;
    }
    this.panel.title = `Loop · ${next.header.passing}/${next.header.total} · ${next.header.title}`;
    if (!this.shownSnapshot) {
      this.bridge.post('snapshot', next);
      this.sent.push('snapshot');
    } else {
      for (const delta of matrixDeltas(this.shownSnapshot, next)) {
        if (delta.type === 'artifact') this.bridge.post('artifact', delta.body);
        else if (delta.type === 'header') this.bridge.post('header', delta.body);
        else this.bridge.post('columns', delta.body);
        this.sent.push(delta.type);
      }
    }
    if (this.sent.length > 500) this.sent.splice(0, this.sent.length - 500);
    this.shownSnapshot = next;
  }

  /** What the view shows, read back from its DOM. */
  probe(timeoutMs = 10_000): Promise<ShownMatrix> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the matrix of loop ${this.loopId} did not answer`)), timeoutMs);
      this.probes.push((shown) => (clearTimeout(timer), resolve(shown)));
      this.bridge.post('probe', {});
    });
  }

  private disposed = false;

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this._onDidDispose.fire();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}

/** Opens an artifact of the loop: a workspace-relative file inside the first folder, never a path outside it. */
async function openArtifact(file: unknown): Promise<Answer> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (typeof file !== 'string' || !file || !folder) throw new WebviewRequestRefused('Open needs a workspace file', 'bad-request');
  const parts = file.split(/[\\/]/);
  if (file.startsWith('/') || /^[a-zA-Z]:/.test(file) || parts.includes('..')) return { ok: false, message: `${file} is not a file inside the workspace` };
  try {
    await vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, ...parts), { preview: false, viewColumn: vscode.ViewColumn.One });
    return { ok: true };
  } catch {
    return { ok: false, message: `${file} could not be opened (was it moved or deleted?)` };
  }
}

export type { LoopMatrixState };
