import {
  AntiCriterion,
  Candidate,
  Criterion,
  type AnyCriterion,
  Decision,
  Packet,
  PrdIndexEntry,
  Rating,
  Reflection,
  Run,
  RunEvent,
  VerificationReport,
  type RunState,
} from '../model';
import { z } from 'zod';
import { JsonTable, type RowReader, type StatementSink } from './json-table';

/** The columns a stored criterion carries beside the criterion itself. */
const StoredCriterionKey = { runId: z.string().min(1), version: z.number().int().nonnegative() };
/**
 * A criterion with its key, as one discriminated union rather than `AnyCriterion.and(key)`:
 * the intersection parsed every row twice and merged the results, the largest share of a
 * commit's validation in profiles. Same rules, same errors.
 */
const StoredCriterion = z.discriminatedUnion('kind', [Criterion.extend(StoredCriterionKey), AntiCriterion.extend(StoredCriterionKey)]);

export class RunRepository {
  readonly table: JsonTable<Run>;
  constructor(reader: RowReader, private readonly sink: StatementSink) {
    this.table = new JsonTable<Run>(
      {
        table: 'runs',
        schema: Run,
        key: ['id'],
        columns: { id: (r) => r.id, state: (r) => r.state, effort: (r) => r.effort, created_at: (r) => r.createdAt, updated_at: (r) => r.updatedAt },
      },
      reader,
      sink,
    );
  }
  save(run: Run): void {
    this.table.save(run);
  }
  get(id: string): Run | undefined {
    return this.table.where('id = ?', [id])[0];
  }
  list(states?: readonly RunState[]): Run[] {
    if (!states) return this.table.where('', [], 'created_at DESC');
    return this.table.where(`state IN (${states.map(() => '?').join(', ')})`, states, 'created_at DESC');
  }
  count(): number {
    return this.table.count();
  }
  /** Deletes the run and, through foreign keys, its criteria, packets, candidates, reports, decisions and events. */
  delete(id: string): void {
    this.sink.commit([this.table.deleteStatement('id = ?', [id])]);
  }
}

/** Criteria by run and criteria version; a new version is a new set of rows. */
export class CriterionRepository {
  readonly table: JsonTable<AnyCriterion & { runId: string; version: number }>;
  constructor(reader: RowReader, private readonly sink: StatementSink) {
    this.table = new JsonTable(
      {
        table: 'criteria',
        schema: StoredCriterion,
        key: ['run_id', 'version', 'id'],
        columns: {
          run_id: (c) => c.runId,
          version: (c) => c.version,
          id: (c) => c.id,
          kind: (c) => c.kind,
          status: (c) => c.status,
          outcome: (c) => c.outcome ?? null,
        },
      },
      reader,
      sink,
    );
  }
  /** Writes one criteria version in one commit. */
  saveVersion(runId: string, version: number, criteria: readonly AnyCriterion[]): void {
    this.sink.commit(criteria.map((c) => this.table.upsertStatement({ ...c, runId, version })));
  }
  /** `saveVersion` for criteria the engine built (see `JsonTable.upsertTrustedStatement`). */
  saveVersionTrusted(runId: string, version: number, criteria: readonly AnyCriterion[]): void {
    this.sink.commit(criteria.map((c) => this.table.upsertTrustedStatement({ ...c, runId, version })));
  }
  /** Updates one row of an existing version (status, outcome, claim, …). */
  update(runId: string, version: number, criterion: AnyCriterion): void {
    this.table.save({ ...criterion, runId, version });
  }
  list(runId: string, version?: number): AnyCriterion[] {
    const v = version ?? this.latestVersion(runId);
    if (v === undefined) return [];
    return this.table.where('run_id = ? AND version = ?', [runId, v], 'id').map(({ runId: _r, version: _v, ...c }) => c as AnyCriterion);
  }
  versions(runId: string): number[] {
    return this.table
      .where('run_id = ?', [runId], 'version')
      .map((c) => c.version)
      .filter((v, i, all) => all.indexOf(v) === i);
  }
  latestVersion(runId: string): number | undefined {
    const versions = this.versions(runId);
    return versions.length > 0 ? versions[versions.length - 1] : undefined;
  }
}

export function packetTable(reader: RowReader, sink: StatementSink): JsonTable<Packet> {
  return new JsonTable<Packet>(
    { table: 'packets', schema: Packet, key: ['run_id', 'id'], columns: { run_id: (p) => p.runId, id: (p) => p.id, iteration: (p) => p.iteration } },
    reader,
    sink,
  );
}

export function candidateTable(reader: RowReader, sink: StatementSink): JsonTable<Candidate> {
  return new JsonTable<Candidate>(
    { table: 'candidates', schema: Candidate, key: ['run_id', 'id'], columns: { run_id: (c) => c.runId, id: (c) => c.id, packet_id: (c) => c.packetId } },
    reader,
    sink,
  );
}

export function reportTable(reader: RowReader, sink: StatementSink): JsonTable<VerificationReport> {
  return new JsonTable<VerificationReport>(
    {
      table: 'verification_reports',
      schema: VerificationReport,
      key: ['run_id', 'id'],
      columns: { run_id: (r) => r.runId, id: (r) => r.id, iteration: (r) => r.iteration, created_at: (r) => r.createdAt },
    },
    reader,
    sink,
  );
}

export function decisionTable(reader: RowReader, sink: StatementSink): JsonTable<Decision> {
  return new JsonTable<Decision>(
    { table: 'decisions', schema: Decision, key: ['run_id', 'id'], columns: { run_id: (d) => d.runId, id: (d) => d.id, at: (d) => d.at } },
    reader,
    sink,
  );
}

export function runEventTable(reader: RowReader, sink: StatementSink): JsonTable<RunEvent> {
  return new JsonTable<RunEvent>(
    {
      table: 'run_events',
      schema: RunEvent,
      key: ['run_id', 'seq'],
      columns: {
        run_id: (e) => e.runId,
        seq: (e) => e.seq,
        at: (e) => e.at,
        kind: (e) => e.kind,
        input_tokens: (e) => e.inputTokens,
        output_tokens: (e) => e.outputTokens,
        cost_usd: (e) => e.costUsd,
      },
    },
    reader,
    sink,
  );
}

export function ratingTable(reader: RowReader, sink: StatementSink): JsonTable<Rating> {
  return new JsonTable<Rating>(
    {
      table: 'ratings',
      schema: Rating,
      key: ['id'],
      columns: { id: (r) => r.id, run_id: (r) => r.runId ?? null, timestamp: (r) => r.timestamp, rating: (r) => r.rating },
    },
    reader,
    sink,
  );
}

export function reflectionTable(reader: RowReader, sink: StatementSink): JsonTable<Reflection> {
  return new JsonTable<Reflection>(
    {
      table: 'reflections',
      schema: Reflection,
      key: ['id'],
      columns: { id: (r) => r.id, run_id: (r) => r.runId, timestamp: (r) => r.timestamp, category: (r) => r.category },
    },
    reader,
    sink,
  );
}

export function prdIndexTable(reader: RowReader, sink: StatementSink): JsonTable<PrdIndexEntry> {
  return new JsonTable<PrdIndexEntry>(
    {
      table: 'prd_index',
      schema: PrdIndexEntry,
      key: ['path'],
      columns: { path: (p) => p.path, prd_id: (p) => p.prdId, run_id: (p) => p.runId ?? null, updated_at: (p) => p.updatedAt },
    },
    reader,
    sink,
  );
}
