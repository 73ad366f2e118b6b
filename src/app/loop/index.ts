/**
 * Loop mode's public face (the command line and the editor use only this): the engine, how a
 * loop is read and listed, the artifact list and shards, templates per artifact, the loop PRD
 * and the shard files.
 *
 * - `start(spec, signal)` / `resume(loopId, signal)` resolve with the loop's end state; an
 *   aborted signal ends the loop CANCELLED (resolved, not thrown: what finished is kept, and
 *   `resume` goes on). Bad input (unknown template, glob outside the workspace or matching
 *   nothing, bad spec) rejects with LoopInputError (code LOOP_BAD_INPUT).
 * - `onProgress` gets a LoopProgress after every acknowledged result and claim: every
 *   artifact's status and outcomes, `changed` (the files since the last one), passing/total and
 *   the budget used.
 * - `readLoop(store, id)` is the matrix; `listLoops(store)` and `store.loops.loopOfRun(runId)`
 *   group sub-runs under their loop (each artifact row keeps its `runIds`).
 */
export { LoopEngine, type LoopPorts, type LoopResult } from './engine';
export { effortForIteration } from './decay';
export { listLoops, readLoop } from './read';
export { compareFiles, listArtifacts, LoopInputError, parseShard, shardIndexOf, shardOf } from './artifacts';
export { artifactCriteria, artifactGlob, artifactMethod, artifactVariables } from './criteria';
export { renderLoopPrd, type LoopPrdInput } from './loop-prd';
export { loopReport, progressOf, shardFile, specKey, type MergedLoop } from './report';
export { checkShardSet, mergeShards, parseShardFile, type MergeCheckout } from './merge';
export type { Loop, LoopArtifact, LoopArtifactView, LoopNotice, LoopProgress, LoopReport, LoopShardFile, LoopSpec, LoopSpecInput, LoopState } from '../../model/loop';

import type { LoopSpecInput } from '../../model/loop';
import { LoopEngine, type LoopPorts, type LoopResult } from './engine';

/** Starts a loop: `new LoopEngine(ports).start(spec, signal)` with progress reported to `onProgress`. */
export function startLoop(ports: LoopPorts, spec: LoopSpecInput, options: { signal?: AbortSignal; onProgress?: LoopPorts['onProgress'] } = {}): Promise<LoopResult> {
  return new LoopEngine({ ...ports, ...(options.onProgress ? { onProgress: options.onProgress } : {}) }).start(spec, options.signal);
}
