import * as crypto from 'node:crypto';
import type { LoopShardFile, Loop, LoopArtifact, LoopProgress, LoopReport, LoopSpec, LoopState } from '../../model/loop';
import { compareFiles } from './artifacts';

type ArtifactResult = Pick<LoopArtifact, 'file' | 'status' | 'outcomes'>;

/** The loop's report: the same whether it ran whole or was merged from shards. */
export function loopReport(spec: Pick<LoopSpec, 'glob' | 'isc'>, criterionIds: readonly string[], artifacts: readonly ArtifactResult[]): LoopReport {
  const sorted = [...artifacts].sort((a, b) => compareFiles(a.file, b.file));
  return {
    glob: spec.glob,
    isc: spec.isc,
    criterionIds: [...criterionIds],
    total: sorted.length,
    passing: sorted.filter((a) => a.status === 'PASSING').length,
    failing: sorted.filter((a) => a.status !== 'PASSING').map((a) => a.file),
    artifacts: sorted.map((a) => ({ file: a.file, status: a.status, outcomes: sortedRecord(a.outcomes) })),
  };
}

function sortedRecord<T>(r: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => compareFiles(a, b)));
}

export function progressOf(loop: Loop, artifacts: readonly LoopArtifact[], changed: readonly string[], usedMs: number, waitedMs = 0): LoopProgress {
  const last = loop.log[loop.log.length - 1];
  return {
    loopId: loop.id,
    iteration: loop.iteration,
    state: loop.state,
    effort: loop.effort,
    criterionIds: loop.criterionIds,
    artifacts: artifacts.map((a) => ({ file: a.file, status: a.status, ...(a.runId ? { runId: a.runId } : {}), outcomes: a.outcomes, iteration: a.iteration })),
    changed: [...changed],
    passing: artifacts.filter((a) => a.status === 'PASSING').length,
    total: artifacts.length,
    budget: { usedMs, totalMs: loop.budgetSeconds * 1000, ...(waitedMs > 0 ? { waitedMs } : {}) },
    ...(last ? { message: last.message } : {}),
  };
}

/** What identifies a loop across shards: the spec without its shard, agents or budget (they do not change results). */
export function specKey(spec: LoopSpec): string {
  const { glob, isc, effort, maxIterations, verifyOnly } = spec;
  return crypto.createHash('sha256').update(JSON.stringify({ glob, isc, effort, maxIterations, verifyOnly })).digest('hex').slice(0, 16);
}

/** A shard's results, for `--out FILE`, each bound to the sha256 of the content it was verified at (`hashes`, by file). */
export function shardFile(loop: Loop, artifacts: readonly LoopArtifact[], hashes: ReadonlyMap<string, string>): LoopShardFile {
  return {
    kind: 'ideal-state.loop-shard',
    version: 2,
    specKey: specKey(loop.spec),
    spec: loop.spec,
    shard: loop.spec.shard ?? { index: 1, count: 1 },
    criterionIds: loop.criterionIds,
    state: loop.state,
    iteration: loop.iteration,
    artifacts: [...artifacts]
      .sort((a, b) => compareFiles(a.file, b.file))
      .map((a) => ({ file: a.file, sha256: hashes.get(a.file) ?? '', status: a.status, outcomes: a.outcomes, evidence: a.evidence, ...(a.runId ? { runId: a.runId } : {}) })),
  };
}

export interface MergedLoop {
  readonly spec: LoopSpec;
  readonly criterionIds: readonly string[];
  readonly state: LoopState;
  readonly iteration: number;
  readonly artifacts: readonly (ArtifactResult & { evidence: Record<string, string>; runId?: string })[];
  readonly report: LoopReport;
}
