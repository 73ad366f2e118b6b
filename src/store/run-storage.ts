import { z } from 'zod';
import type { FileCheckpoint, RunStorage, StepCommit } from '../core/algorithm/ports';
import { RunStep, type AlgorithmState } from '../core/algorithm/state';
import { emptyMemo } from '../core/algorithm/state';
import { JsonTable, type RowReader, type StatementSink } from './json-table';
import type { Store } from './store';

export const StoredCheckpoint = z.object({ runId: z.string().min(1), path: z.string().min(1), before: z.string().optional(), at: z.iso.datetime() }).strict();
export type StoredCheckpoint = z.infer<typeof StoredCheckpoint>;

export function runStepTable(reader: RowReader, sink: StatementSink): JsonTable<RunStep> {
  return new JsonTable<RunStep>({ table: 'run_steps', schema: RunStep, key: ['run_id', 'seq'], columns: { run_id: (s) => s.runId, seq: (s) => s.seq, at: (s) => s.at } }, reader, sink);
}

export function checkpointTable(reader: RowReader, sink: StatementSink): JsonTable<StoredCheckpoint> {
  return new JsonTable<StoredCheckpoint>({ table: 'file_checkpoints', schema: StoredCheckpoint, key: ['run_id', 'path'], columns: { run_id: (c) => c.runId, path: (c) => c.path, at: (c) => c.at } }, reader, sink);
}

/**
 * The engine's storage port over the workspace store: each step is one `batch`, so the
 * run row, its criteria version, packets, candidates, report, decisions, events and the
 * step record land together or not at all.
 */
export class StoreRunStorage implements RunStorage {
  constructor(private readonly store: Store) {}

  commit(c: StepCommit): void {
    this.store.batch((tx) => {
      tx.runs.save(c.run);
      if (c.criteria) tx.criteria.saveVersion(c.run.id, c.run.criteriaVersion, c.criteria);
      if (c.packets && c.packets.length > 0) tx.packets.save(...c.packets);
      if (c.candidates && c.candidates.length > 0) tx.candidates.save(...c.candidates);
      if (c.report) tx.reports.save(c.report);
      if (c.decisions && c.decisions.length > 0) tx.decisions.save(...c.decisions);
      if (c.reflection) tx.reflections.save(c.reflection);
      if (c.events.length > 0) tx.events.save(...c.events);
      if (c.step) tx.steps.save(c.step);
    });
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
    if (this.store.checkpoints.count('run_id = ? AND path = ?', [runId, checkpoint.path]) > 0) return;
    this.store.checkpoints.save({ runId, path: checkpoint.path, at: checkpoint.at, ...(checkpoint.before !== undefined ? { before: checkpoint.before } : {}) });
  }

  checkpoints(runId: string): FileCheckpoint[] {
    return this.store.checkpoints.where('run_id = ?', [runId], 'path').map(({ runId: _r, ...c }) => c);
  }
}
