import * as crypto from 'node:crypto';
import { LoopShardFile, type Loop, type LoopArtifact, type LoopProgress, type LoopReport, type LoopSpec, type LoopState } from '../../model/loop';
import { compareFiles, LoopInputError, shardIndexOf } from './artifacts';

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

export function progressOf(loop: Loop, artifacts: readonly LoopArtifact[], changed: readonly string[], usedMs: number): LoopProgress {
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
    budget: { usedMs, totalMs: loop.budgetSeconds * 1000 },
    ...(last ? { message: last.message } : {}),
  };
}

/** What identifies a loop across shards: the spec without its shard, agents or budget (they do not change results). */
export function specKey(spec: LoopSpec): string {
  const { glob, isc, effort, maxIterations, verifyOnly } = spec;
  return crypto.createHash('sha256').update(JSON.stringify({ glob, isc, effort, maxIterations, verifyOnly })).digest('hex').slice(0, 16);
}

/** A shard's results, for `--out FILE`. */
export function shardFile(loop: Loop, artifacts: readonly LoopArtifact[]): LoopShardFile {
  return {
    kind: 'ideal-state.loop-shard',
    version: 1,
    specKey: specKey(loop.spec),
    spec: loop.spec,
    shard: loop.spec.shard ?? { index: 1, count: 1 },
    criterionIds: loop.criterionIds,
    state: loop.state,
    iteration: loop.iteration,
    artifacts: [...artifacts]
      .sort((a, b) => compareFiles(a.file, b.file))
      .map((a) => ({ file: a.file, status: a.status, outcomes: a.outcomes, evidence: a.evidence, ...(a.runId ? { runId: a.runId } : {}) })),
  };
}

/** Reads a shard file's text; anything that is not one names the file and what is wrong. */
export function parseShardFile(name: string, text: string): LoopShardFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new LoopInputError(`${name} is not JSON (${(error as Error).message}); give the file a shard wrote with --shard I/N --out FILE`);
  }
  const parsed = LoopShardFile.safeParse(json);
  if (!parsed.success) throw new LoopInputError(`${name} is not a loop shard file: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

export interface MergedLoop {
  readonly spec: LoopSpec;
  readonly criterionIds: readonly string[];
  readonly state: LoopState;
  readonly iteration: number;
  readonly artifacts: readonly (ArtifactResult & { evidence: Record<string, string>; runId?: string })[];
  readonly report: LoopReport;
}

/**
 * Shard files of one loop into one result: every shard present once, all of one spec, each
 * artifact in the shard its path hashes to. Bad input throws LoopInputError naming the file.
 */
export function mergeShards(files: readonly { name: string; shard: LoopShardFile }[]): MergedLoop {
  if (files.length === 0) throw new LoopInputError('loop merge needs the shard files (FILE…)');
  const first = files[0]!;
  const count = first.shard.shard.count;
  const seen = new Map<number, string>();
  for (const { name, shard } of files) {
    if (shard.specKey !== first.shard.specKey) throw new LoopInputError(`${name} is a shard of another loop (glob ${shard.spec.glob}, ISC ${shard.spec.isc}) than ${first.name} (glob ${first.shard.spec.glob}, ISC ${first.shard.spec.isc})`);
    if (shard.shard.count !== count) throw new LoopInputError(`${name} is shard ${shard.shard.index}/${shard.shard.count} but ${first.name} is one of ${count}`);
    const other = seen.get(shard.shard.index);
    if (other) throw new LoopInputError(`${name} and ${other} are both shard ${shard.shard.index}/${count}`);
    seen.set(shard.shard.index, name);
    for (const a of shard.artifacts) {
      if (shardIndexOf(a.file, count) !== shard.shard.index) throw new LoopInputError(`${name}: ${a.file} belongs to shard ${shardIndexOf(a.file, count)}/${count}, not ${shard.shard.index}/${count}; the file was not written by that shard`);
    }
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length > 0) throw new LoopInputError(`shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: give all ${count} shard files`);
  const artifacts = files.flatMap((f) => f.shard.artifacts).sort((a, b) => compareFiles(a.file, b.file));
  const { shard: _s, ...spec } = first.shard.spec;
  const states = files.map((f) => f.shard.state);
  const state: LoopState = states.includes('CANCELLED') ? 'CANCELLED' : states.every((s) => s === 'COMPLETE') ? 'COMPLETE' : states.includes('BUDGET_EXHAUSTED') ? 'BUDGET_EXHAUSTED' : states.includes('RUNNING') ? 'RUNNING' : 'FAILED';
  return {
    spec: spec as LoopSpec,
    criterionIds: first.shard.criterionIds,
    state,
    iteration: Math.max(...files.map((f) => f.shard.iteration)),
    artifacts,
    report: loopReport(spec, first.shard.criterionIds, artifacts),
  };
}
