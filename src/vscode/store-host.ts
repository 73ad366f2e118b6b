import * as vscode from 'vscode';
import type { Logger } from '../model/log';
import type { Settings } from '../model/settings';
import type { Store } from '../store/store';
import { engine } from './engine';

/**
 * Opens the workspace's store on first use (the sql.js WASM loads only then), shows
 * what went wrong while opening, and closes it — folding its journal — on dispose.
 */
export class StoreHost implements vscode.Disposable {
  private opening: Promise<Store> | undefined;
  private readonly _onDidOpen = new vscode.EventEmitter<Store>();
  /**
   * Fires once the store is open, whoever asked for it first: what only shows stored facts
   * (the ratings in the status bar) waits for this instead of opening the store at activation.
   */
  readonly onDidOpen = this._onDidOpen.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly settings: Settings,
    private readonly log: Logger,
  ) {}

  /** The database file: workspace storage, or global storage when no folder is open. */
  get file(): string {
    const folder = this.context.storageUri ?? this.context.globalStorageUri;
    return vscode.Uri.joinPath(folder, engine().DATABASE_FILE_NAME).fsPath;
  }

  get(): Promise<Store> {
    this.opening ??= this.open();
    this.opening.catch(() => (this.opening = undefined));
    return this.opening;
  }

  private async open(): Promise<Store> {
    const started = Date.now();
    const store = await engine().Store.open({
      file: this.file,
      wasmPath: this.context.asAbsolutePath('dist/sql-wasm.wasm'),
      checkpointIdleMs: this.settings.get('checkpointIdleMs'),
      checkpointJournalBytes: this.settings.get('checkpointJournalBytes'),
    });
    this.log.info(`opened ${store.location} (schema ${store.schemaVersion}, ${store.readOnly ? 'read-only' : 'read-write'}) in ${Date.now() - started} ms`);
    // Every warning is shown, a cut journal too: it may have lost acknowledged commits, and the
    // message names where the damaged file (or its copy) is; the button opens that folder.
    for (const warning of store.warnings) {
      this.log.warn(warning.message);
      void this.notify(warning.message, warning.movedTo);
    }
    this._onDidOpen.fire(store);
    return store;
  }

  private async notify(message: string, movedTo: string | undefined): Promise<void> {
    const reveal = 'Show the damaged file';
    const choice = await vscode.window.showWarningMessage(`Ideal State: ${message}`, ...(movedTo ? [reveal] : []));
    if (choice !== reveal || !movedTo) return;
    // Remote and web windows have no OS file manager to reveal in: the path is in the message.
    await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(movedTo)).then(undefined, (error: unknown) => this.log.warn(`could not reveal ${movedTo}: ${String(error)}`));
  }

  /** Folds the journal into the file and releases the writer lock. */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    const store = await opening?.catch(() => undefined);
    store?.close();
  }

  dispose(): void {
    this._onDidOpen.dispose();
    void this.close();
  }
}
