import * as vscode from 'vscode';
import type { RunDelta, RunSessions } from '../../app/run-sessions';
import { engine } from '../engine';
import type { StoreHost } from '../store-host';

/**
 * This window's RunSessions (src/app/run-sessions.ts), the single writer of its runs, made
 * on first use so activation does not load the engine. Its deltas are an editor event the
 * views subscribe to from the start: the one event of a run's changes (RunService's
 * `onDidChangeRun` is this event).
 */
export class SessionsHost implements vscode.Disposable {
  private readonly _onDelta = new vscode.EventEmitter<RunDelta>();
  readonly onDelta = this._onDelta.event;
  private sessions: RunSessions | undefined;

  constructor(private readonly stores: StoreHost) {}

  get(): RunSessions {
    if (!this.sessions) {
      const sessions = new (engine().RunSessions)(() => this.stores.get());
      sessions.onDelta((delta) => this._onDelta.fire(delta));
      this.sessions = sessions;
    }
    return this.sessions;
  }

  /** Whether a run is going in this window (without loading the engine when none is). */
  isLive(runId: string): boolean {
    return this.sessions?.isLive(runId) ?? false;
  }

  dispose(): void {
    this.sessions?.cancel();
    this._onDelta.dispose();
  }
}
