import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { LoopMatrixProtocol, LoopMatrixState, MatrixSnapshot, ShownMatrix } from '../../../webviews/loop-matrix/protocol';
import { matrixDeltas } from '../../../webviews/loop-matrix/view-model';
import { WebviewPanelHost, WebviewRequestRefused } from '../webview';

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
  private readonly host: WebviewPanelHost<LoopMatrixProtocol>;
  readonly onDidDispose: vscode.Event<void>;
  private shownSnapshot: MatrixSnapshot | undefined;
  private refreshing: Promise<void> = Promise.resolve();
  /** What was posted, for the editor's tests: snapshot, or the delta's kind. */
  readonly sent: string[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly loopId: string,
    extensionUri: vscode.Uri,
    private readonly source: LoopMatrixSource,
    private readonly log: Logger,
  ) {
    this.host = new WebviewPanelHost<LoopMatrixProtocol>(
      panel,
      extensionUri,
      { entry: 'loop-matrix', title: 'Loop matrix' },
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
      },
      log,
    );
    this.onDidDispose = this.host.onDidDispose;
    this.host.own(
      this.host.bridge.onDidBecomeReady(() => {
        this.shownSnapshot = undefined;
        this.refresh();
      }),
      source.onDidChangeLoop((id) => {
        if (id === loopId) this.refresh();
      }),
    );
  }

  refresh(): void {
    this.refreshing = this.refreshing.then(() => this.update()).catch((error: unknown) => this.log.error(`refreshing the matrix of loop ${this.loopId} failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  settled(): Promise<void> {
    return this.refreshing;
  }

  get ready(): boolean {
    return this.host.ready;
  }

  private async update(): Promise<void> {
    if (!this.host.ready) return;
    const next = await this.source.matrix(this.loopId);
    if (!next) {
      this.panel.title = `Loop · ${this.loopId} (not found)`;
      return;
    }
    this.panel.title = `Loop · ${next.header.passing}/${next.header.total} · ${next.header.title}`;
    if (!this.shownSnapshot) {
      this.host.bridge.post('snapshot', next);
      this.sent.push('snapshot');
    } else {
      for (const delta of matrixDeltas(this.shownSnapshot, next)) {
        if (delta.type === 'artifact') this.host.bridge.post('artifact', delta.body);
        else if (delta.type === 'header') this.host.bridge.post('header', delta.body);
        else this.host.bridge.post('columns', delta.body);
        this.sent.push(delta.type);
      }
    }
    if (this.sent.length > 500) this.sent.splice(0, this.sent.length - 500);
    this.shownSnapshot = next;
  }

  /** What the view shows, read back from its DOM. */
  probe(timeoutMs = 10_000): Promise<ShownMatrix> {
    return this.host.probe(`the matrix of loop ${this.loopId}`, timeoutMs);
  }

  dispose(): void {
    this.host.dispose();
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
