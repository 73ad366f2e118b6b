import * as path from 'node:path';
import * as vscode from 'vscode';
import { readRegularTextOrAbsent } from '../../verify/safe-read';
import type { Run } from '../../model';
import type { RequestResult, TableLock } from '../../../webviews/isc-table/protocol';
import type { CriteriaLocks, LockOffers } from '../lock';
import { engine } from '../engine';
import { tableLock } from './snapshot';
import type { StoreHost } from '../store-host';

/**
 * The ISC table's side of the criteria lock: the badge of the run's PRD, its Lock button,
 * Approve and Revert on TAMPERED rows — each through the same CriteriaLocks as the commands
 * (one way to do each thing). The first time a finished run's criteria are shown unlocked, the
 * lock is offered (LockOffers: a notification that never holds the run up); a run watched live
 * is offered it by the badge's Lock… button.
 */
export class TableLocks {
  /** Runs whose table was first shown while they worked (bounded: ids only, one per run of this window). */
  private readonly watchedLive = new Set<string>();

  constructor(
    private readonly stores: StoreHost,
    private readonly locks: CriteriaLocks,
    private readonly offers: LockOffers,
  ) {}

  readonly onDidChange = (listener: () => void): vscode.Disposable => this.locks.onDidChange(listener);

  /** Tells Lock Criteria which run's table has the focus (`activeRun`), so it locks that run's PRD. */
  showRunInView(activeRun: () => string | undefined): void {
    this.locks.runInView = async () => {
      const runId = activeRun();
      const run = runId ? (await this.stores.get()).runs.get(runId) : undefined;
      const where = run ? this.where(run) : undefined;
      const folder = where ? vscode.workspace.workspaceFolders?.find((f) => f.uri.fsPath === where.folder) : undefined;
      return where && folder ? { folder, file: where.prdPath } : undefined;
    };
  }

  /** The lock of a run's PRD, and the offer when its criteria are shown unlocked for the first time. */
  async state(run: Run, criteriaShown: number): Promise<TableLock | undefined> {
    const where = this.where(run);
    if (!where) return undefined;
    const state = await this.locks.state(where.folder, where.prdPath);
    // A run watched live has its approvals and its end as notifications: there the table's own badge
    // ("Not locked … Lock…") is the offer, and a notification would crowd out the ones the person needs.
    // (A verification's record stays PENDING and never works; a run is RUNNING once it has criteria to show.)
    const working = run.state === 'RUNNING' || run.state === 'NEEDS_APPROVAL';
    if (working) this.watchedLive.add(run.id);
    if (state.state === 'not-locked' && criteriaShown > 0 && !working && !this.watchedLive.has(run.id)) this.offers.offer(where.folder, state.prdPath);
    return tableLock(state, this.locks.trusted(), await heldSentence(where.folder, where.prdPath), await agentBlocked(where.folder, where.prdPath));
  }

  async lock(runId: string): Promise<RequestResult> {
    const where = await this.of(runId);
    return 'message' in where ? where : this.locks.lock(where.folder, [where.prdPath]);
  }

  async approve(runId: string): Promise<RequestResult> {
    const where = await this.of(runId);
    return 'message' in where ? where : this.locks.approve(where.folder, [where.prdPath]);
  }

  async acceptProposal(runId: string, id: string): Promise<RequestResult> {
    const where = await this.of(runId);
    return 'message' in where ? where : this.locks.acceptProposal(where.folder, where.prdPath, id);
  }

  async revert(runId: string, id: string): Promise<RequestResult> {
    const where = await this.of(runId);
    return 'message' in where ? where : this.locks.revert(where.folder, where.prdPath, id);
  }

  private async of(runId: string): Promise<{ folder: string; prdPath: string } | RequestResult> {
    const run = (await this.stores.get()).runs.get(runId);
    if (!run) return { ok: false, message: `There is no run ${runId} in the store.` };
    return this.where(run) ?? { ok: false, message: `${runId} has no PRD in an open folder to lock.` };
  }

  private where(run: Run): { folder: string; prdPath: string } | undefined {
    if (!run.prdPath) return undefined;
    const folders = vscode.workspace.workspaceFolders ?? [];
    const folder = folders.find((f) => f.name === run.workspaceFolder) ?? folders[0];
    if (!folder || folder.uri.scheme !== 'file') return undefined;
    return { folder: folder.uri.fsPath, prdPath: run.prdPath };
  }
}

/** What the done gate holds an agent to, said from this PRD's side: the person sees whether their PRD is the one. */
export async function heldSentence(folder: string, prdPath: string): Promise<string | undefined> {
  // The gate's code (zod, yaml) lives in the engine bundle, loaded when first needed, not in the extension's.
  const gate = engine();
  const held = await gate.heldSet(folder).catch(() => undefined);
  if (!held || held.kind === 'damaged') return undefined;
  const prds = gate.heldPrds(folder, held);
  const mine = prds.find((p) => p.path === prdPath);
  if (mine) return `The done gate holds an agent to this PRD: ${mine.why}.`;
  if (prds.length === 0) return 'The done gate holds an agent to no PRD here.';
  return `The done gate does not hold an agent to this PRD; it holds ${prds.map((p) => `${p.path} (${p.why})`).join(', ')}.`;
}

/** Whether the run's PRD says its agent stopped blocked (the honest exit), read from the PRD itself. */
async function agentBlocked(folder: string, prdPath: string): Promise<{ reason?: string } | undefined> {
  const text = await readRegularTextOrAbsent(path.join(folder, prdPath));
  // Only a PRD that says BLOCKED is parsed for it (the parser lives in the engine bundle).
  return text !== undefined && /^status:\s*BLOCKED\s*$/im.test(text) ? engine().agentBlockedOfPrd(text) : undefined;
}
