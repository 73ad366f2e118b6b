import { Loop, LoopArtifact, type LoopClaim } from '../model/loop';
import { JsonTable, type RowReader, type StatementSink } from './json-table';

/**
 * Loops and their artifacts (loop mode). One row per artifact, rewritten alone when its
 * result is acknowledged, so a commit's cost does not grow with the results already kept.
 * A sub-run links to its loop through `loop_artifacts.run_id`.
 */
export class LoopRepository {
  readonly loops: JsonTable<Loop>;
  readonly artifacts: JsonTable<LoopArtifact>;

  constructor(reader: RowReader, sink: StatementSink) {
    this.loops = new JsonTable<Loop>({ table: 'loops', schema: Loop, key: ['id'], columns: { id: (l) => l.id, state: (l) => l.state, updated_at: (l) => l.updatedAt } }, reader, sink);
    this.artifacts = new JsonTable<LoopArtifact>(
      {
        table: 'loop_artifacts',
        schema: LoopArtifact,
        key: ['loop_id', 'file'],
        columns: {
          loop_id: (a) => a.loopId,
          file: (a) => a.file,
          shard: (a) => a.shard,
          status: (a) => a.status,
          iteration: (a) => a.iteration,
          run_id: (a) => a.runId ?? null,
          claim_owner: (a) => a.claim?.owner ?? null,
          claim_expires: (a) => a.claim?.expiresAt ?? null,
          updated_at: (a) => a.updatedAt,
        },
      },
      reader,
      sink,
    );
  }

  get(id: string): Loop | undefined {
    return this.loops.where('id = ?', [id])[0];
  }

  /** Newest first. */
  list(limit = 50): Loop[] {
    return this.loops.where('', [], 'updated_at DESC', limit);
  }

  save(loop: Loop): void {
    this.loops.save(loop);
  }

  /** A loop's artifacts, by path. */
  artifactsOf(loopId: string): LoopArtifact[] {
    return this.artifacts.where('loop_id = ?', [loopId], 'file');
  }

  artifact(loopId: string, file: string): LoopArtifact | undefined {
    return this.artifacts.where('loop_id = ?  AND file = ?', [loopId, file])[0];
  }

  /** The loop a sub-run belongs to, if any. */
  loopOfRun(runId: string): { loopId: string; file: string } | undefined {
    const a = this.artifacts.where('run_id = ?', [runId])[0];
    return a ? { loopId: a.loopId, file: a.file } : undefined;
  }

  /** Keeps artifact rows: one durable commit (validated). */
  saveArtifacts(...artifacts: LoopArtifact[]): void {
    if (artifacts.length > 0) this.artifacts.save(...artifacts);
  }

  /**
   * Takes an artifact for `owner` to work in `iteration`, unless another owner holds an
   * unexpired claim or it was worked in that iteration already. Reading and
   * writing happen in one synchronous step of this process, and the store has one writer
   * process (its writer lock), so two agents can never both get the same artifact.
   */
  claim(loopId: string, file: string, claim: LoopClaim, now: Date, iteration: number): LoopArtifact | undefined {
    const current = this.artifact(loopId, file);
    if (!current) return undefined;
    if (current.claim && current.claim.owner !== claim.owner && Date.parse(current.claim.expiresAt) > now.getTime()) return undefined;
    // Passing, or already worked in this iteration by another agent (its claim released): not again.
    if (current.status === 'PASSING' || current.workedIteration >= iteration) return undefined;
    const claimed: LoopArtifact = { ...current, status: 'WORKING', claim, updatedAt: now.toISOString() };
    this.artifacts.save(claimed);
    return claimed;
  }
}
