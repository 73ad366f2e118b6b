import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyEdits } from '../../prd';
import { writeAtomically } from '../verify-prd-file';
import { commitLock, criterionLine, prepareLock, readLock, relativeTo, type LockKind } from './lock';
import { compareWithLock, type LockChange } from './lock-changes';
import type { LockedPrd, LockHow } from './lock-schema';
import { criteriaPrds } from './prds';

/**
 * A person's two acts on the lock, the same for every adapter (`ideal-state criteria` on a
 * terminal, the editor's commands and ISC table): what would be locked or approved, shown
 * to the person, then committed as shown. The adapters only ask; the logic is here.
 */

/** Who locks or approves: the user's login name. */
export function whoLocks(): string {
  try {
    return os.userInfo().username || 'a person';
  } catch {
    return 'a person';
  }
}

/** How the PRD's LOG says where it was done. */
export function howWords(how: LockHow): string {
  return how === 'terminal' ? 'on a terminal' : how === 'editor' ? 'in the editor' : "at the person's prompt";
}

/** What locking one PRD records, as shown to the person before it is locked. */
export function describeLock(p: LockedPrd): string {
  const inputs = p.inputs.filter((i) => i.digest !== null);
  return [
    `${p.path} — criteria version ${p.version}`,
    ...p.criteria.map((c) => `  ${criterionLine(c)}`),
    `  and ${inputs.length} input${inputs.length === 1 ? '' : 's'} their verification depends on: ${inputs.map((i) => i.name).join(', ') || 'none'}`,
    ...(p.walkTruncated ? ['  (the search for protected files stopped at its limit; files past it are not locked)'] : []),
  ].join('\n');
}

export type HeldRecord = { kind: LockKind; prds: readonly LockedPrd[] };

/** The record the gate holds the workspace to now: the lock, else the baseline; a damaged one is an error. */
export async function heldRecord(workspace: string, env: NodeJS.ProcessEnv = process.env): Promise<HeldRecord | { error: string } | undefined> {
  for (const kind of ['lock', 'baseline'] as const) {
    const read = await readLock(workspace, kind, env);
    if (!read.ok) return { error: read.message };
    if (read.record && read.record.prds.length > 0) return { kind, prds: read.record.prds };
  }
  return undefined;
}

/** One held PRD with what changed since it was locked; `gone`: the file is not there any more. */
export interface PendingChanges {
  locked: LockedPrd;
  changes: LockChange[];
  gone: boolean;
}

/** The held PRDs that changed (only `files`, workspace-relative or absolute, when given). */
export async function changesSinceLock(workspace: string, held: HeldRecord, options: { files?: readonly string[]; now: Date }): Promise<PendingChanges[]> {
  const wanted = options.files && options.files.length > 0 ? new Set(options.files.map((f) => relativeTo(workspace, f) ?? f)) : undefined;
  const changed: PendingChanges[] = [];
  for (const locked of held.prds) {
    if (wanted && !wanted.has(locked.path)) continue;
    const c = await compareWithLock(workspace, locked, options.now);
    if (c.changes.length > 0) changed.push({ locked, changes: c.changes, gone: !c.readable && c.changes.some((x) => x.what === 'prd') });
  }
  return changed;
}

/** The changes as the person reads them before approving: per PRD, each change's summary and its diff. */
export function describeChanges(changed: readonly PendingChanges[]): string {
  return changed
    .map((c) => [`${c.locked.path} (locked as criteria version ${c.locked.version} by ${c.locked.by}, ${c.locked.at}):`, ...c.changes.flatMap((x) => [`  ${x.summary}`, ...x.diff.map((d) => `    ${d}`)])].join('\n'))
    .join('\n');
}

export interface ApproveResult {
  file: string;
  /** The PRDs' new criteria versions. */
  approved: LockedPrd[];
  /** Locked PRDs that are gone: no longer locked. */
  dropped: string[];
  refused: { path: string; message: string }[];
  /** The approval is in the lock; logging it in a PRD failed (the PRD is named). */
  logProblems: string[];
}

/**
 * Approves what a person was shown: each changed PRD becomes its next criteria version (a
 * gone one is no longer locked), and the PRD's LOG says who approved what, when and how.
 */
export async function approveChanges(workspace: string, kind: LockKind, changed: readonly PendingChanges[], options: { by: string; how: LockHow; now: Date; env?: NodeJS.ProcessEnv }): Promise<ApproveResult> {
  const env = options.env ?? process.env;
  const present = changed.filter((c) => !c.gone).map((c) => c.locked.path);
  const dropped = changed.filter((c) => c.gone).map((c) => c.locked.path);
  const prepared = await prepareLock(workspace, { files: present, by: options.by, how: options.how, now: options.now, kind, env });
  const file = await commitLock(workspace, kind, prepared.locked, { env, drop: dropped });
  const logProblems: string[] = [];
  for (const p of prepared.locked) {
    const c = changed.find((x) => x.locked.path === p.path)!;
    if (p.format !== 'prd') continue;
    await logApproval(path.join(workspace, p.path), p, c.changes, options).catch((error: Error) => logProblems.push(`the approval was not logged in ${p.path}: ${error.message}`));
  }
  return { file, approved: prepared.locked, dropped, refused: prepared.refused, logProblems };
}

/** Who approved what and when, in the PRD's LOG; its criteria_version follows the lock's. */
async function logApproval(file: string, locked: LockedPrd, changes: readonly LockChange[], options: { how: LockHow; now: Date }): Promise<void> {
  const text = await fs.readFile(file, 'utf8');
  const at = options.now.toISOString();
  const next = applyEdits(text, [
    { kind: 'setFrontmatter', key: 'criteria_version', value: locked.version },
    {
      kind: 'appendLog',
      entry: {
        iteration: 0,
        date: at.slice(0, 10),
        phase: 'CRITERIA APPROVED',
        criteria: `version ${locked.version}`,
        work: `Criteria changes approved by ${locked.by} ${howWords(options.how)} at ${at}: ${changes.map((c) => c.summary).join('; ')}`,
        failing: [],
      },
    },
  ]);
  await writeAtomically(file, next);
}

/** One PRD as `criteria status` and the ISC table's lock badge show it. */
export interface LockStatusRow {
  path: string;
  held: LockKind | 'not locked';
  version?: number;
  by?: string;
  at?: string;
  changes: LockChange[];
}

/** Every held PRD with what changed since, then the PRDs with criteria that nothing holds (`only`: just these paths). */
export async function lockStatus(workspace: string, options: { env?: NodeJS.ProcessEnv; now: Date; only?: readonly string[] }): Promise<{ rows: LockStatusRow[] } | { error: string }> {
  const held = await heldRecord(workspace, options.env ?? process.env);
  if (held !== undefined && 'error' in held) return held;
  const only = options.only ? new Set(options.only.map((f) => relativeTo(workspace, f) ?? f)) : undefined;
  const rows: LockStatusRow[] = [];
  for (const locked of held?.prds ?? []) {
    if (only && !only.has(locked.path)) continue;
    const c = await compareWithLock(workspace, locked, options.now);
    rows.push({ path: locked.path, held: held!.kind, version: locked.version, by: locked.by, at: locked.at, changes: c.changes });
  }
  const others = only ? [...only].map((relative) => ({ relative })) : await criteriaPrds(workspace);
  for (const p of others) if (!rows.some((r) => r.path === p.relative)) rows.push({ path: p.relative, held: 'not locked', changes: [] });
  return { rows };
}
