import { z } from 'zod';
import { RunStep } from '../model/algorithm-state';
import { JsonTable, type RowReader, type StatementSink } from './json-table';

/** The tables of a run's steps and of the files it changed (for undo), as the store keeps them. */

export const StoredCheckpoint = z.object({ runId: z.string().min(1), path: z.string().min(1), before: z.string().optional(), at: z.iso.datetime(), afterSha256: z.string().regex(/^[0-9a-f]{64}$/).optional() }).strict();
export type StoredCheckpoint = z.infer<typeof StoredCheckpoint>;

export function runStepTable(reader: RowReader, sink: StatementSink): JsonTable<RunStep> {
  return new JsonTable<RunStep>({ table: 'run_steps', schema: RunStep, key: ['run_id', 'seq'], columns: { run_id: (s) => s.runId, seq: (s) => s.seq, at: (s) => s.at } }, reader, sink);
}

export function checkpointTable(reader: RowReader, sink: StatementSink): JsonTable<StoredCheckpoint> {
  return new JsonTable<StoredCheckpoint>({ table: 'file_checkpoints', schema: StoredCheckpoint, key: ['run_id', 'path'], columns: { run_id: (c) => c.runId, path: (c) => c.path, at: (c) => c.at } }, reader, sink);
}

