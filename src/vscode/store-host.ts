import * as vscode from 'vscode';
import type { Logger } from '../core/log';
import type { Settings } from '../core/settings';
import type { Store } from '../store/store';
import { engine } from './engine';

/**
 * Opens the workspace's store on first use (the sql.js WASM loads only then), shows
 * what went wrong while opening, and closes it — folding its journal — on dispose.
 */
export class StoreHost implements vscode.Disposable {
  private opening: Promise<Store> | undefined;

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
    for (const warning of store.warnings) {
      if (warning.kind === 'torn-journal') {
        this.log.info(warning.message);
        continue;
      }
      this.log.warn(warning.message);
      void vscode.window.showWarningMessage(`Ideal State: ${warning.message}`);
    }
    return store;
  }

  /** Folds the journal into the file and releases the writer lock. */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    const store = await opening?.catch(() => undefined);
    store?.close();
  }

  dispose(): void {
    void this.close();
  }
}
