import * as path from 'node:path';
import { installingChecks } from './check-installs';
import { freezeWorkspace, type FrozenWorkspace } from './frozen';
import type { HeldSet } from './held';
import { approvedIgnoresOf } from './lock-inputs';

/**
 * The frozen state a gate verifies its held PRDs in (frozen.ts), copied under the `.gitignore`
 * texts a person approved where the lock or baseline kept them. Undefined when nothing is held.
 * The process host is the one built beside the gate's own bundle (dist/process-host.cjs); a test
 * bundle has none, and its checks start from the test's process.
 */
export async function freezeHeld(workspace: string, held: HeldSet, options: { sinceMs: number; log: (s: string) => void; needed: boolean; parent?: string; guard?: boolean }): Promise<FrozenWorkspace | undefined> {
  if (!options.needed || held.kind === 'damaged') return undefined;
  const approved = held.kind === 'locked' || held.kind === 'baseline' ? approvedIgnoresOf(held.prds, held.kind === 'locked' ? 'locked by a person' : 'when the person last spoke') : undefined;
  // What the locked checks execute, where a person approved it: those in a linked folder are guarded too.
  const executed = held.kind === 'locked' || held.kind === 'baseline' ? [...new Set(held.prds.flatMap((p) => p.inputs.filter((i) => i.kind === 'executes').map((i) => i.name)))] : [];
  // Checks a person locked that install dependencies rewrite node_modules themselves: not guarded (linked-guard.ts).
  const installing = held.kind === 'locked' || held.kind === 'baseline' ? installingChecks(held.prds.flatMap((p) => p.criteria.map((c) => c.verify))) : [];
  return freezeWorkspace(workspace, {
    ...(approved ? { approvedIgnores: approved } : {}),
    executed,
    installing,
    sinceMs: options.sinceMs,
    processHost: path.join(__dirname, 'process-host.cjs'),
    log: options.log,
    ...(options.parent ? { parent: options.parent } : {}),
    ...(options.guard === false ? { guard: false } : {}),
  });
}
