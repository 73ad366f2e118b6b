import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { StoreHost } from '../store-host';
import type { SessionsHost } from './sessions-host';

/** How often the store is looked at while someone watches (an open table or the Runs view). */
const POLL_MS = 1000;

/**
 * Tells the ISC tables and the Runs view that runs changed. The runs of this window say so
 * as deltas from their one writer (RunSessions); the store is never polled for them. Only
 * when another process holds the store (this window opened it read-only: another window,
 * the command line) is its signature (run rows, report, event and criteria counts) looked
 * at once a second, and only while something watches.
 */
export class RunWatch implements vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<string | undefined>();
  /** A run's id, or undefined for "any run may have changed". */
  readonly onDidChange = this._onDidChange.event;
  private readonly watchers = new Set<object>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private signature = '';
  private polling = false;

  private readonly deltas: vscode.Disposable;

  constructor(
    private readonly stores: StoreHost,
    sessions: SessionsHost,
    private readonly log: Logger,
  ) {
    this.deltas = sessions.onDelta((delta) => this._onDidChange.fire('runId' in delta ? delta.runId : undefined));
  }

  private readonly _onDidChangeOutside = new vscode.EventEmitter<string | undefined>();
  /** A change that did not come as a run's delta: a write this window says it made (touch), or another process's. */
  readonly onDidChangeOutside = this._onDidChangeOutside.event;

  touch(runId?: string): void {
    this._onDidChangeOutside.fire(runId);
    this._onDidChange.fire(runId);
  }

  /** Starts polling while `who` watches; the returned disposable stops its share. */
  watch(who: object): vscode.Disposable {
    this.watchers.add(who);
    this.timer ??= setInterval(() => void this.poll(), POLL_MS);
    return new vscode.Disposable(() => {
      this.watchers.delete(who);
      if (this.watchers.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    });
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const store = await this.stores.get();
      // This window writes the store: every change is its own, and arrives as a delta.
      if (!store.readOnly) return;
      const runs = store.runs.list().map((r) => `${r.id}:${r.updatedAt}:${r.state}:${r.phase}:${r.elapsedMs}`);
      const next = [runs.join(','), store.reports.count(), store.events.count(), store.criteria.table.count(), store.ratings.count()].join('|');
      if (this.signature !== '' && next !== this.signature) this.touch(undefined);
      this.signature = next;
    } catch (error) {
      this.log.warn(`watching the store for run changes failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.polling = false;
    }
  }

  dispose(): void {
    this.deltas.dispose();
    if (this.timer) clearInterval(this.timer);
    this._onDidChange.dispose();
    this._onDidChangeOutside.dispose();
  }
}
