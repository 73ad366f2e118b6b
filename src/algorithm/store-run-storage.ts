import type { FileCheckpoint, RunStorage, StepCommit } from './ports';
import { emptyMemo, type AlgorithmState } from '../model/algorithm-state';
import type { Store } from '../store/store';

/**
 * The engine's storage port over the workspace store: each step is one `batch`, so the
 * run row, its criteria version, packets, candidates, report, decisions, events and the
 * step record land together or not at all.
 *
 * The engine hands over the whole state at every step; rows identical to what this storage
 * last wrote are left alone, so a step costs what it changed, not the run's size (validating
 * and writing every row again dominated a transition). A commit that fails remembers nothing.
 */
/** Runs whose last written rows are remembered (a window runs one at a time; tests run several). */
const REMEMBERED_RUNS = 8;

export class StoreRunStorage implements RunStorage {
  /** Per run: row key → the JSON last committed for it. */
  private readonly written = new Map<string, Map<string, string>>();

  constructor(private readonly store: Store) {}

  commit(c: StepCommit): void {
    const runId = c.run.id;
    const known = this.written.get(runId) ?? new Map<string, string>();
    const wrote = new Map<string, string>();
    const changed = <T>(key: string, row: T): string | undefined => {
      const json = JSON.stringify(row);
      if (known.get(key) === json) return undefined;
      wrote.set(key, json);
      return json;
    };
    // The rows that changed, each with the JSON just made for the comparison: it is also what is stored.
    const fresh = <T extends { id: string }>(kind: string, rows: readonly T[] | undefined): [T[], string[]] => {
      const out: T[] = [];
      const json: string[] = [];
      for (const r of rows ?? []) {
        const j = changed(`${kind}/${r.id}`, r);
        if (j !== undefined) (out.push(r), json.push(j));
      }
      return [out, json];
    };
    // Everything here was built by the engine (see JsonTable.upsertTrustedStatement): not parsed again.
    this.store.batch((tx) => {
      const run = changed('run', c.run);
      if (run !== undefined) tx.runs.table.saveTrusted([c.run], [run]);
      if (c.criteria) {
        const [rows] = fresh(`criteria/${c.run.criteriaVersion}`, c.criteria);
        if (rows.length > 0) tx.criteria.saveVersionTrusted(runId, c.run.criteriaVersion, rows);
      }
      const [packets, packetJson] = fresh('packet', c.packets);
      if (packets.length > 0) tx.packets.saveTrusted(packets, packetJson);
      const [candidates, candidateJson] = fresh('candidate', c.candidates);
      if (candidates.length > 0) tx.candidates.saveTrusted(candidates, candidateJson);
      if (c.report) {
        const report = changed(`report/${c.report.id}`, c.report);
        if (report !== undefined) tx.reports.saveTrusted([c.report], [report]);
      }
      const [decisions, decisionJson] = fresh('decision', c.decisions);
      if (decisions.length > 0) tx.decisions.saveTrusted(decisions, decisionJson);
      if (c.reflection) tx.reflections.saveTrusted([c.reflection]);
      if (c.events.length > 0) tx.events.saveTrusted(c.events);
      if (c.step) tx.steps.saveTrusted([c.step]);
    });
    for (const [key, json] of wrote) known.set(key, json);
    // The most recent runs only: a forgotten run's next commit writes every row, as it always may.
    this.written.delete(runId);
    this.written.set(runId, known);
    if (this.written.size > REMEMBERED_RUNS) this.written.delete(this.written.keys().next().value!);
  }

  load(runId: string): AlgorithmState | undefined {
    const run = this.store.runs.get(runId);
    if (!run) return undefined;
    const steps = this.store.steps.where('run_id = ?', [runId], 'seq DESC');
    const last = steps[0];
    const reports = this.store.reports.where('run_id = ?', [runId], 'iteration DESC, created_at DESC');
    const lastEvent = this.store.events.where('run_id = ?', [runId], 'seq DESC')[0];
    return {
      run,
      criteria: this.store.criteria.list(runId, run.criteriaVersion),
      packets: this.store.packets.where('run_id = ? AND iteration = ?', [runId, run.iteration], 'id'),
      candidates: this.store.candidates.where('run_id = ?', [runId], 'id').filter((c) => c.iteration === run.iteration),
      ...(reports[0] ? { report: reports[0] } : {}),
      decisions: this.store.decisions.where('run_id = ?', [runId], 'at, id'),
      memo: last ? last.memo : emptyMemo(),
      stepSeq: last ? last.seq + 1 : 0,
      eventSeq: lastEvent ? lastEvent.seq + 1 : 0,
    };
  }

  saveCheckpoint(runId: string, checkpoint: FileCheckpoint): void {
    const existing = this.store.checkpoints.where('run_id = ? AND path = ?', [runId, checkpoint.path])[0];
    // The first content is the one undo puts back; a later call only moves the fingerprint of what the run left there.
    if (existing) {
      if (checkpoint.afterSha256 !== undefined && checkpoint.afterSha256 !== existing.afterSha256) this.store.checkpoints.save({ ...existing, afterSha256: checkpoint.afterSha256 });
      return;
    }
    this.store.checkpoints.save({ runId, path: checkpoint.path, at: checkpoint.at, ...(checkpoint.before !== undefined ? { before: checkpoint.before } : {}), ...(checkpoint.afterSha256 !== undefined ? { afterSha256: checkpoint.afterSha256 } : {}) });
  }

  checkpoints(runId: string): FileCheckpoint[] {
    return this.store.checkpoints.where('run_id = ?', [runId], 'path').map(({ runId: _r, ...c }) => c);
  }
}
