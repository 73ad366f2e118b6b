import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { probedIds } from '../probe';
import { heldWhy, type HeldSet } from './held';
import type { ApprovedIgnores } from '../../verify/types';
import { compareWithLock } from './lock-changes';
import { approvedIgnoresOf } from './lock-inputs';
import type { GateVerification, PrdCheck, VerdictContext } from './verdict';

/**
 * Verifies one PRD; `write` says whether its outcomes may be written back (never into a tampered
 * file); `text` is the PRD as the lock comparison read it, so the bytes compared are the bytes
 * verified (absent: read once by the verifier, from the same frozen copy).
 */
export type VerifyPort = (file: string, write: boolean, ignores?: ApprovedIgnores, text?: string) => Promise<GateVerification>;

export type HeldChecks = { kind: 'checks'; checks: PrdCheck[]; heldBy: VerdictContext['heldBy'] } | { kind: 'nothing' };

/**
 * Each held PRD compared with what was locked (or baselined) and verified. Its criteria as
 * they are now are verified: those still as locked, and those the agent added (it may only
 * add). A changed or removed one is TAMPERED, whatever its verification would say.
 * `extra` is a PRD named with `--prd` where a person's lock holds others: held as well.
 */
export async function checkHeld(workspace: string, held: HeldSet, options: { verify: VerifyPort; now: Date; extra?: string; root?: string }): Promise<HeldChecks> {
  // What is compared with the lock is read where the checks run: the gate's frozen copy of the workspace (frozen.ts).
  const root = options.root ?? workspace;
  const shown = (file: string) => displayPath(workspace, file);
  const checks: PrdCheck[] = [];
  const seen = new Set<string>();
  if (held.kind === 'damaged') {
    checks.push({ file: workspace, shown: workspace, result: { kind: 'refused', message: `the criteria lock cannot be read (${held.message}); a person locks the criteria again with \`ideal-state criteria lock\`` }, changes: [] });
  } else if (held.kind === 'locked' || held.kind === 'baseline') {
    for (const locked of held.prds) {
      const file = path.join(workspace, locked.path);
      seen.add(path.resolve(file));
      const comparison = await compareWithLock(root, locked, options.now);
      const exists = comparison.readable || (await fs.stat(path.join(root, locked.path)).then((s) => s.isFile(), () => false));
      const source = held.kind === 'locked' ? `locked by ${locked.by} on ${locked.at.slice(0, 10)}` : 'when the person last spoke';
      const ignores = approvedIgnoresOf([locked], source);
      const result = exists ? await options.verify(file, comparison.changes.length === 0, ignores, comparison.text) : undefined;
      checks.push({ file, shown: locked.path, why: heldWhy(held, locked), changes: comparison.changes, lockedPriorities: new Map(locked.criteria.map((c) => [c.id, c.priority])), ...(result ? { result } : {}), ...probed(result) });
    }
  } else if (held.kind === 'newest' && (!options.extra || path.resolve(options.extra) === path.resolve(held.file))) {
    seen.add(path.resolve(held.file));
    const result = await options.verify(held.file, true);
    checks.push({ file: held.file, shown: shown(held.file), why: heldWhy(held), result, changes: [], ...probed(result) });
  }
  if (options.extra && !seen.has(path.resolve(options.extra))) checks.push({ file: options.extra, shown: shown(options.extra), why: 'named by the gate hook (--prd)', result: await options.verify(options.extra, true), changes: [] });
  if (checks.length === 0) return { kind: 'nothing' };
  return { kind: 'checks', checks, heldBy: held.kind === 'locked' ? 'lock' : held.kind === 'baseline' ? 'baseline' : 'none' };
}

/** The criteria whose check passed before any work (a "Probe" note under them): the answer asks whether those checks can fail. Read from the text verified. */
function probed(result: GateVerification | undefined): { probed?: string[] } {
  if (result?.kind !== 'verified') return {};
  const text = result.text ?? '';
  const ids = text.includes('Probe') ? probedIds(text) : [];
  return ids.length > 0 ? { probed: ids } : {};
}

export function displayPath(workspace: string, file: string): string {
  const relative = path.relative(workspace, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
}
