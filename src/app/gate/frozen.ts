import { rmSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import type { ApprovedIgnores } from '../../verify/search-rules';
import { ProcessHost } from '../../verify/process-host';
import type { ProcessRunner } from '../../verify/process-runner';
import { takeSnapshot } from './snapshot';
import { removeOwnerSync } from './snapshot-sweep';
import { HostWhenReady } from './host-when-ready';
import { guardLinked, type LinkedGuard } from './linked-guard';
import { fingerprint, OwnWrites, workspaceChanges, type Fingerprint } from './workspace-fingerprint';

/**
 * The state of the workspace a stop gate verifies, in one place:
 * - a snapshot of its source (snapshot.ts) that every read, search and command of the checks
 *   uses, and the lock comparison too, so a change to the live tree meanwhile changes nothing;
 * - the live source's fingerprint as it was copied, compared with it after the checks
 *   (workspace-fingerprint.ts): a change is a block, never a pass; with it, what the checks run from
 *   the folders the snapshot links to live (linked-guard.ts);
 * - the process the checks start from: a process host adopted by the system (a double fork,
 *   src/verify/process-host.ts), started while the copy is made (host-when-ready.ts), so no check finds the gate among its ancestors or its variables
 *   in its environment: to a check, the gate is a plain verification.
 * Where the workspace cannot be copied (too many files, no temporary folder), it is verified as it
 * is, the fingerprint still guarding it, and `note` says so.
 */
export interface FrozenWorkspace {
  /** Where the checks read and run: the snapshot, or the workspace itself when there is none. */
  readonly root: string;
  readonly processes?: ProcessRunner;
  /** What the answer says of how the work was verified: in place, not in a snapshot; node_modules not guarded. */
  readonly note?: string;
  /** What it cost: milliseconds to copy, files copied, entries linked. */
  readonly cost: { snapshotMs: number; copied: number; linked: number };
  /** Records a file the gate wrote (a held PRD's LOG entry): not a change. */
  ownWrite(file: string): Promise<void>;
  /** What changed in the live source while the gate verified it, in words; empty when nothing did. */
  changes(): Promise<string[]>;
  /** Removes the snapshot and ends the process host. */
  dispose(): Promise<void>;
}

export interface FreezeOptions {
  approvedIgnores?: ApprovedIgnores;
  /** When the gate's process began (ms since the epoch): a change after it is not the agent's finished work. */
  sinceMs: number;
  /** dist/process-host.cjs beside the gate's bundle; absent or missing: the checks start from the gate's process. */
  processHost?: string;
  log: (s: string) => void;
  /** Where the snapshot goes (default: the system's temporary folder). */
  parent?: string;
  /**
   * The workspace-relative files the locked checks execute (the lock's `executes` inputs): those
   * in a linked folder are guarded with the source (linked-guard.ts).
   */
  executed?: readonly string[];
  /**
   * The locked checks whose command installs dependencies (check-installs.ts): they rewrite
   * node_modules through its link, so node_modules is not guarded, and `note` says so.
   */
  installing?: readonly string[];
  /**
   * Whether a change to the live source meanwhile counts (default true). Not at a subagent's stop:
   * other agents of the same session may be working beside it, honestly; its snapshot still holds.
   */
  guard?: boolean;
}

export async function freezeWorkspace(workspace: string, options: FreezeOptions): Promise<FrozenWorkspace> {
  const own = new OwnWrites(workspace);
  const installing = options.guard === false ? [] : (options.installing ?? []);
  const live = await realpath(workspace).catch(() => path.resolve(workspace));
  // Started now, waited for by the first check that starts a process (host-when-ready.ts).
  const host = options.processHost ? new HostWhenReady(ProcessHost.startDetached(options.processHost, options.log)) : undefined;
  const taken = await takeSnapshot(workspace, { ...(options.approvedIgnores ? { approvedIgnores: options.approvedIgnores } : {}), ...(options.parent ? { parent: options.parent } : {}) });
  const guarded = (walked: Fingerprint): Fingerprint => withGuard(walked, guardLinked(live, walked.leftOut ?? [], options.executed ?? [], { installing: installing.length > 0 }));
  // A workspace that cannot be walked at all has an empty fingerprint: its checks say what is wrong.
  const before = guarded(taken.ok ? taken.snapshot.fingerprint : await fingerprint(workspace, options.approvedIgnores).catch(() => ({ entries: new Map(), changed: new Map() })));
  const changes = async () => {
    if (options.guard === false) return [];
    const after = guarded(await fingerprint(workspace, options.approvedIgnores));
    return workspaceChanges(before, after, { sinceMs: clockTrusted(before, options.sinceMs), own });
  };
  // A gate ended by its watchdog (process.exit) leaves no copy behind.
  const onExit = () => {
    if (!taken.ok) return;
    rmSync(taken.snapshot.root, { recursive: true, force: true });
    removeOwnerSync(taken.snapshot.root);
  };
  process.once('exit', onExit);
  const dispose = async () => {
    process.removeListener('exit', onExit);
    host?.dispose();
    if (taken.ok) await taken.snapshot.dispose().catch(() => undefined);
  };
  const cost = taken.ok ? { snapshotMs: taken.snapshot.ms, copied: taken.snapshot.copied, linked: taken.snapshot.linked } : { snapshotMs: 0, copied: 0, linked: 0 };
  const notes = [
    ...(taken.ok ? [] : [`Ideal State: the checks ran in the workspace as it is, not in a snapshot of it: ${taken.message}.`]),
    ...(installing.length > 0 ? [unguardedNote(installing)] : []),
  ];
  if (installing.length > 0) options.log(unguardedNote(installing));
  return {
    root: taken.ok ? taken.snapshot.root : workspace,
    ...(host ? { processes: host } : {}),
    ...(notes.length > 0 ? { note: notes.join('\n') } : {}),
    cost,
    ownWrite: (file) => own.ownWrite(file),
    changes,
    dispose,
  };
}

function unguardedNote(installing: readonly string[]): string {
  const named = installing.slice(0, 3).map((c) => `\`${c.length > 80 ? `${c.slice(0, 77)}...` : c}\``).join(', ');
  return `Ideal State: node_modules was not guarded while the gate verified: the locked check ${named}${installing.length > 3 ? ' and others' : ''} install${installing.length === 1 ? 's' : ''} dependencies there itself, so a change to it then is not counted as the agent's.`;
}

/** A walk's fingerprint with the linked entries it guards beside its own (their keys never collide: each ends in a word in parentheses). */
function withGuard(walked: Fingerprint, guard: LinkedGuard): Fingerprint {
  return { entries: new Map([...walked.entries, ...guard.entries]), changed: new Map([...walked.changed, ...guard.changed]), ...(walked.leftOut ? { leftOut: walked.leftOut } : {}) };
}

/**
 * The gate's start, as the change-time rule uses it; never, where the workspace's file system
 * dates files ahead of this machine's clock (a network or container mount): an honest agent's
 * last writes would then look later than the gate's start.
 */
function clockTrusted(before: { changed: ReadonlyMap<string, number> }, sinceMs: number): number {
  const now = Date.now();
  for (const ctime of before.changed.values()) if (ctime > now + 1000) return Number.POSITIVE_INFINITY;
  return sinceMs;
}
