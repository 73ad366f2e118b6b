import type { Loop, LoopArtifact } from '../../model/loop';
import type { Store } from '../../store/store';

/** A loop and its artifacts as stored (the editor's matrix). */
export function readLoop(store: Store, loopId: string): { loop: Loop; artifacts: LoopArtifact[] } | undefined {
  const loop = store.loops.get(loopId);
  return loop ? { loop, artifacts: store.loops.artifactsOf(loopId) } : undefined;
}

/** Loops, newest first (the Runs view groups sub-runs under them). */
export function listLoops(store: Store, limit = 50): Loop[] {
  return store.loops.list(limit);
}
