/**
 * Loop mode's public face (the command line and the editor use only this): the engine, how a
 * loop is read and listed, the artifact list and shards, templates per artifact, the loop PRD
 * and the shard files.
 */
export { LoopEngine, effortForIteration, listLoops, readLoop, type LoopPorts, type LoopResult } from './engine';
export { compareFiles, listArtifacts, LoopInputError, parseShard, shardIndexOf, shardOf } from './artifacts';
export { artifactCriteria, artifactGlob, artifactMethod, artifactVariables } from './criteria';
export { renderLoopPrd, type LoopPrdInput } from './loop-prd';
export { loopReport, mergeShards, parseShardFile, progressOf, shardFile, specKey, type MergedLoop } from './report';
export type { Loop, LoopArtifact, LoopArtifactView, LoopNotice, LoopProgress, LoopReport, LoopShardFile, LoopSpec, LoopSpecInput, LoopState } from '../../model/loop';

import type { LoopSpecInput } from '../../model/loop';
import { LoopEngine, type LoopPorts, type LoopResult } from './engine';

/** Starts a loop: `new LoopEngine(ports).start(spec, signal)` with progress reported to `onProgress`. */
export function startLoop(ports: LoopPorts, spec: LoopSpecInput, options: { signal?: AbortSignal; onProgress?: LoopPorts['onProgress'] } = {}): Promise<LoopResult> {
  return new LoopEngine({ ...ports, ...(options.onProgress ? { onProgress: options.onProgress } : {}) }).start(spec, options.signal);
}
