import * as vscode from 'vscode';
import type { MatrixSnapshot } from '../../../webviews/loop-matrix/protocol';
import type { Logger } from '../../model/log';
import type { LoopMatrixSource } from '../isc-table/loop-matrix-panel';
import type { LoopListing, LoopSummary } from '../runs/runs-tree';
import type { LoopInputs } from './loop-inputs';
import { matrixSnapshot, type LoopProgressView } from './loop-view';

/** A loop as the editor's views are told of it after each acknowledged change. */
export type LoopChange = LoopProgressView & { readonly active: boolean };

/** A loop as it ended (or stopped): its last progress. */
export type LoopResult = LoopProgressView;

/** How the editor drives the loop engine (src/app/loop); `loop-engine.ts` holds the one implementation. */
export interface LoopEngineCalls {
  start(inputs: LoopInputs & { verifyOnly: boolean }, signal: AbortSignal, onProgress: (p: LoopProgressView) => void): Promise<LoopResult>;
  resume(loopId: string, verifyOnly: boolean, signal: AbortSignal, onProgress: (p: LoopProgressView) => void): Promise<LoopResult>;
  /** A loop from the store, as its last acknowledged change left it. */
  read(loopId: string): Promise<LoopProgressView | undefined>;
  /** Every loop in the store with the sub-runs of its artifacts, newest first. */
  list(): Promise<(LoopProgressView & { readonly runIds: readonly string[] })[]>;
}

/** A loop cannot start or go on as asked; the message says what to do. */
export class LoopStartError extends Error {
  override readonly name = 'LoopStartError';
  readonly code = 'loop-start';
}

interface ActiveLoop {
  loopId?: string;
  readonly controller: AbortController;
  last?: LoopProgressView;
}

/**
 * Owns the loops of this window: starts and resumes them on the editor's single-writer path
 * (the sub-runs commit through the window's RunSessions, their approvals go to the editor's
 * approver like a run's), keeps their AbortControllers for Cancel, and tells the matrix, the
 * Runs view and the status bar every acknowledged change, never by polling.
 */
export class LoopService implements vscode.Disposable, LoopMatrixSource, LoopListing {
  private readonly _onDidChange = new vscode.EventEmitter<LoopChange>();
  /** Every acknowledged change of a loop this window runs, and its end (active false). */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidChangeLoop = new vscode.EventEmitter<string>();
  readonly onDidChangeLoop = this._onDidChangeLoop.event;
  private readonly active = new Set<ActiveLoop>();
  private trustOverride: boolean | undefined;

  constructor(
    private readonly calls: LoopEngineCalls,
    private readonly log: Logger,
  ) {}

  /** Loops going in this window, as last told. */
  activeLoops(): LoopProgressView[] {
    return [...this.active].flatMap((a) => (a.last ? [a.last] : []));
  }

  /** Whether the workspace lets the loop edit files (Restricted Mode: it verifies only). */
  trusted(): boolean {
    return this.trustOverride ?? vscode.workspace.isTrusted;
  }

  /** Test hook: loops behave as in Restricted Mode (false) or as the workspace's trust says (undefined). */
  simulateTrust(trusted: boolean | undefined): void {
    this.trustOverride = trusted;
  }

  start(inputs: LoopInputs, onStarted?: (loopId: string) => void): Promise<LoopResult> {
    const verifyOnly = !this.trusted();
    if (verifyOnly) this.log.warn('Restricted Mode: the loop verifies the files only; it edits nothing and runs no command. Trust the workspace to let it work the failing files.');
    return this.go((signal, onProgress) => this.calls.start({ ...inputs, verifyOnly }, signal, onProgress), onStarted);
  }

  resume(loopId: string, onStarted?: (loopId: string) => void): Promise<LoopResult> {
    if (!this.trusted()) this.log.warn(`Restricted Mode: loop ${loopId} goes on verifying only; it edits nothing and runs no command.`);
    if (this.isGoing(loopId)) throw new LoopStartError(`Loop ${loopId} is already going in this window.`);
    return this.go((signal, onProgress) => this.calls.resume(loopId, !this.trusted(), signal, onProgress), onStarted, loopId);
  }

  /** Stops the loop (or every loop) at its next safe point; what it acknowledged is kept for Resume. */
  cancel(loopId?: string): number {
    let count = 0;
    for (const a of this.active) {
      if (loopId === undefined || a.loopId === loopId) {
        a.controller.abort();
        count++;
      }
    }
    return count;
  }

  isGoing(loopId: string): boolean {
    return [...this.active].some((a) => a.loopId === loopId);
  }

  canResume(loop: Pick<LoopProgressView, 'loopId' | 'state'>): boolean {
    // A loop stopped by a reload still says RUNNING in the store; a cancelled one keeps its state for Resume (in Restricted Mode it goes on verifying only).
    return !this.isGoing(loop.loopId) && (loop.state === 'CANCELLED' || loop.state === 'RUNNING');
  }

  async progress(loopId: string): Promise<LoopProgressView | undefined> {
    const going = [...this.active].find((a) => a.loopId === loopId)?.last;
    return going ?? this.calls.read(loopId);
  }

  // ---- the matrix (LoopMatrixSource)

  async matrix(loopId: string): Promise<MatrixSnapshot | undefined> {
    const p = await this.progress(loopId);
    return p ? matrixSnapshot(p, { canCancel: this.isGoing(loopId), canResume: this.canResume(p) }) : undefined;
  }

  async control(loopId: string, action: 'cancel' | 'resume'): Promise<{ ok: boolean; message?: string }> {
    if (action === 'cancel') {
      return this.cancel(loopId) > 0 ? { ok: true } : { ok: false, message: 'That loop is not going in this window.' };
    }
    const p = await this.progress(loopId);
    if (!p || !this.canResume(p)) return { ok: false, message: 'That loop cannot be resumed (it is going or it has ended).' };
    void vscode.commands.executeCommand('idealState.resumeLoop', loopId);
    return { ok: true };
  }

  // ---- the Runs view (LoopListing)

  async list(): Promise<LoopSummary[]> {
    const loops = await this.calls.list();
    return loops.map((l) => {
      const going = [...this.active].find((a) => a.loopId === l.loopId)?.last;
      const p = going ?? l;
      return { id: l.loopId, title: p.title, state: p.state, passing: p.passing, total: p.total, runIds: [...new Set([...l.runIds, ...p.artifacts.flatMap((a) => (a.runId ? [a.runId] : []))])], canCancel: this.isGoing(l.loopId), canResume: this.canResume(p) };
    });
  }

  private async go(begin: (signal: AbortSignal, onProgress: (p: LoopProgressView) => void) => Promise<LoopResult>, onStarted?: (loopId: string) => void, loopId?: string): Promise<LoopResult> {
    const active: ActiveLoop = { controller: new AbortController(), ...(loopId ? { loopId } : {}) };
    this.active.add(active);
    let announced = false;
    const told = (p: LoopProgressView, going: boolean) => {
      active.loopId ??= p.loopId;
      active.last = p;
      if (!announced) {
        announced = true;
        onStarted?.(p.loopId);
      }
      this._onDidChange.fire({ ...p, active: going });
      this._onDidChangeLoop.fire(p.loopId);
    };
    try {
      const result = await begin(active.controller.signal, (p) => told(p, true));
      this.active.delete(active);
      told(result, false);
      this.log.info(`loop ${result.loopId} ended ${result.state}: ${result.passing}/${result.total} artifacts passing`);
      return result;
    } finally {
      if (this.active.delete(active) && active.last) {
        // It stopped with an error: the views show it as the store has it now.
        const stopped = (await this.calls.read(active.last.loopId).catch(() => undefined)) ?? active.last;
        this._onDidChange.fire({ ...stopped, active: false });
        this._onDidChangeLoop.fire(stopped.loopId);
      }
    }
  }

  dispose(): void {
    this.cancel();
    this._onDidChange.dispose();
    this._onDidChangeLoop.dispose();
  }
}

