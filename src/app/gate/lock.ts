import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { AnyCriterion } from '../../model';
import { formatVerifySpec } from '../../prd/verify-spec';
import { PRD_LIMITS } from '../../prd/limits';
import { readRegularFile, readRegularText, type SafeRead } from '../../verify/safe-read';
import { loadVerifySource, type VerifySource } from '../verify-source';
import { protectedGlobsOf, snapshotInputs } from './lock-inputs';
import { CriteriaLockFile, type LockedCriterion, type LockedPrd, type LockHow } from './lock-schema';
import { soleOpenCandidate, type LockCandidate } from './lock-choice';
import { lockCandidates, undecidableInLock } from './lock-preview';
import { prdFolder } from './prds';
import type { Undecidable } from './undecidable';
import { gateStateFolder, realWorkspace, writeJsonAtomically } from './state-folder';
import { checkHistory, recordLockEvent, type LockAction } from './lock-events';

/**
 * The criteria lock: made only by a person (on a terminal, in the editor), kept in the user's
 * state folder (src/app/gate/state-folder.ts), never in the workspace. The session baseline is
 * the same record under another name, made when the person speaks where nothing is locked.
 */
export const LOCK_NAMES = { lock: 'criteria-lock.json', baseline: 'session-baseline.json' } as const;
export type LockKind = keyof typeof LOCK_NAMES;

export async function lockFilePath(workspace: string, kind: LockKind, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return path.join(await gateStateFolder(workspace, env), LOCK_NAMES[kind]);
}

export type LockRead = { ok: true; record?: CriteriaLockFile; file: string } | { ok: false; file: string; message: string };

/** A lock's entries may be this far ahead of the clock (clocks differ a little between processes); further is a forged date. */
const CLOCK_SKEW_MS = 5_000;
/** The largest lock read: a lock keeps .gitignore texts (64 KiB each at most), so it may be large, but not without bound. */
const LOCK_FILE_LIMIT = 64 * 1024 * 1024;
const WHAT: Record<LockKind, string> = { lock: 'the criteria lock', baseline: 'the session baseline' };

/**
 * The record, absent when none was ever made; a damaged one is refused (the gate blocks on it),
 * and so is one that is not as Ideal State last wrote it (removed or rewritten by hand: the lock
 * history says, lock-events.ts), one owned by another user, and one dated in the future.
 */
export async function readLock(workspace: string, kind: LockKind, env: NodeJS.ProcessEnv = process.env): Promise<LockRead> {
  const file = await lockFilePath(workspace, kind, env);
  const read = await readRegularFile(file, { maxBytes: LOCK_FILE_LIMIT });
  if (!read.ok && read.reason !== 'absent') return { ok: false, file, message: `cannot read ${read.message}` };
  const bytes = read.ok ? read.bytes : undefined;
  if (bytes !== undefined) {
    const owner = await ownedByAnother(file);
    if (owner) return { ok: false, file, message: `${file} belongs to another user (${owner}); ${WHAT[kind]} is read only when it is the user's own` };
  }
  const traced = await checkHistory(path.dirname(file), LOCK_NAMES[kind], bytes, `${WHAT[kind]} ${file}`);
  if (!traced.ok) return { ok: false, file, message: traced.message };
  if (bytes === undefined) return { ok: true, file };
  try {
    const parsed = CriteriaLockFile.safeParse(JSON.parse(bytes.toString('utf8')));
    if (!parsed.success) return { ok: false, file, message: `${file} is not a criteria lock: ${parsed.error.issues[0]?.message ?? 'bad shape'}` };
    const future = parsed.data.prds.find((p) => Date.parse(p.at) > Date.now() + CLOCK_SKEW_MS);
    if (future) return { ok: false, file, message: `${file} is dated in the future (${future.path} at ${future.at}); a lock is made now, never later` };
    return { ok: true, file, record: parsed.data };
  } catch (error) {
    return { ok: false, file, message: `${file} is not JSON: ${(error as Error).message}` };
  }
}

/** "uid 1001" when the file belongs to a user other than this process's (where the system has user ids). */
export async function ownedByAnother(file: string): Promise<string | undefined> {
  if (typeof process.getuid !== 'function') return undefined;
  const uid = process.getuid();
  const stat = await fs.stat(file).catch(() => undefined);
  return stat && stat.uid !== uid ? `uid ${stat.uid}, not ${uid}` : undefined;
}

/** Writes the record and appends the write to the lock history; `action` says which act it was. */
export async function writeLock(workspace: string, record: CriteriaLockFile, env: NodeJS.ProcessEnv = process.env, action?: LockAction): Promise<string> {
  const file = await lockFilePath(workspace, record.kind, env);
  const text = await writeJsonAtomically(file, CriteriaLockFile.parse(record));
  const how = [...new Set(record.prds.map((p) => p.how))].join(', ');
  await recordLockEvent(path.dirname(file), { action: action ?? (record.kind === 'baseline' ? 'baseline' : 'lock'), file: LOCK_NAMES[record.kind], text, prds: record.prds.map((p) => p.path), ...(how ? { how } : {}) });
  return file;
}

export function lockedCriterion(c: AnyCriterion): LockedCriterion {
  return { id: c.id, text: c.text, priority: c.priority, kind: c.kind, verify: c.verify ? formatVerifySpec(c.verify, c.text) : null };
}

/** One line of a criterion as a diff shows it. */
export function criterionLine(c: LockedCriterion): string {
  return `${c.id}: [${c.priority}]${c.kind === 'anti-criterion' ? ' (anti)' : ''} ${c.text}${c.verify ? ` | Verify: ${c.verify}` : ''}`;
}

export type PrdRead = { ok: true; text: string; source: VerifySource } | { ok: false; message: string; reason: SafeReadReason | 'bad-input' };
type SafeReadReason = Extract<SafeRead, { ok: false }>['reason'];

/** A PRD (or ISA) read for locking or comparing: `relative` to the workspace. Only a regular file within a PRD's size is read. */
export async function readForLock(workspace: string, relative: string, now: Date): Promise<PrdRead> {
  const read = await readRegularText(path.join(workspace, relative), { shown: relative, maxBytes: PRD_LIMITS.maxChars * 4 });
  if (!read.ok) return { ok: false, message: read.message, reason: read.reason };
  const text = read.text;
  const source = loadVerifySource(text, relative, now);
  if (!source.ok) return { ok: false, message: source.summary, reason: 'bad-input' };
  return { ok: true, text, source };
}

export interface SnapshotOptions {
  by: string;
  how: LockHow;
  now: Date;
  version: number;
}

/** What a person locks of one PRD: its criteria and the digests of their inputs. */
export async function snapshotPrd(workspace: string, relative: string, options: SnapshotOptions): Promise<{ ok: true; locked: LockedPrd; warnings: string[] } | { ok: false; message: string }> {
  const read = await readForLock(workspace, relative, options.now);
  if (!read.ok) return read;
  if (read.source.document.meta.loopId !== undefined) return { ok: false, message: `${relative} is a loop's PRD (loop: ${read.source.document.meta.loopId}); its artifacts' PRDs hold the criteria` };
  const globs = protectedGlobsOf(read.source.document.frontmatter?.data);
  const inputs = await snapshotInputs(workspace, read.source.criteria, globs.globs);
  return {
    ok: true,
    warnings: globs.problem ? [`${relative}: ${globs.problem}`] : [],
    locked: {
      path: relative,
      format: read.source.format === 'isa' ? 'isa' : 'prd',
      // Never behind the PRD's own criteria version (a run's THINK and the person's edits count
      // them): the lock's dialog and the run's ISC table then name the same version.
      version: Math.max(options.version, read.source.document.meta.criteriaVersion ?? 0),
      at: options.now.toISOString(),
      by: options.by,
      how: options.how,
      prdFolder: await prdFolder(workspace),
      criteria: read.source.criteria.map(lockedCriterion),
      protectedGlobs: globs.globs,
      inputs: inputs.inputs,
      walkTruncated: inputs.truncated,
      ...goalOf(read.source.document.frontmatter?.data),
    },
  };
}

/** The frontmatter keys a person states and an agent may not move, since they say what done means: `principal_stated_goal`, `frozen`. */
export function goalOf(data: unknown): Pick<LockedPrd, 'goal'> {
  if (typeof data !== 'object' || data === null) return {};
  const record = data as Record<string, unknown>;
  const goal: NonNullable<LockedPrd['goal']> = {};
  if ('principal_stated_goal' in record) goal.principalStatedGoal = typeof record.principal_stated_goal === 'string' ? record.principal_stated_goal : record.principal_stated_goal === null ? null : JSON.stringify(record.principal_stated_goal);
  if ('frozen' in record) goal.frozen = record.frozen;
  return Object.keys(goal).length > 0 ? { goal } : {};
}

export function relativeTo(workspace: string, file: string): string | undefined {
  const r = path.relative(workspace, path.resolve(workspace, file));
  return r.startsWith('..') || path.isAbsolute(r) ? undefined : r.split(path.sep).join('/');
}

export interface LockResult {
  file: string;
  locked: LockedPrd[];
  /** PRDs that could not be locked, with why. */
  refused: { path: string; message: string }[];
  warnings: string[];
}

export interface LockOptions {
  /**
   * Workspace-relative or absolute. Default: the one PRD with criteria whose work is not
   * finished, when there is exactly one; otherwise none, and `candidates` lists them for the
   * person to choose from. A lock is per PRD: never every PRD in the folder at once.
   */
  files?: readonly string[];
  by: string;
  how: LockHow;
  now: Date;
  kind?: LockKind;
  env?: NodeJS.ProcessEnv;
}

export interface PreparedLock extends Omit<LockResult, 'file'> {
  /** Only when no files were named: every PRD with criteria, newest first, to choose from. */
  candidates?: LockCandidate[];
  /** Of a lock (not a baseline): each PRD's CRITICAL criteria the done gate cannot decide, shown before the person says yes. */
  undecidable: { path: string; criteria: Undecidable[] }[];
}

/**
 * What locking would record, without writing it: shown to the person, then committed as it
 * was shown (commitLock), so a file changed between the question and the answer is not what
 * gets locked. Each PRD locked before becomes its next criteria version.
 */
export async function prepareLock(workspace: string, options: LockOptions): Promise<PreparedLock> {
  const kind = options.kind ?? 'lock';
  const existing = await readLock(workspace, kind, options.env ?? process.env);
  const previous = new Map((existing.ok && existing.record ? existing.record.prds : []).map((p) => [p.path, p]));
  const candidates = options.files ? undefined : (await lockCandidates(workspace)).map(({ mtimeMs: _mtime, ...c }) => c);
  const sole = candidates ? soleOpenCandidate(candidates) : undefined;
  const names = options.files ? options.files.map((f) => relativeTo(workspace, f) ?? f) : sole ? [sole.relative] : [];
  const result: PreparedLock = { locked: [], refused: [], warnings: [], undecidable: [], ...(candidates ? { candidates } : {}) };
  for (const name of names) {
    if (path.isAbsolute(name) || name.startsWith('..')) {
      result.refused.push({ path: name, message: `${name} is not inside the workspace ${workspace}` });
      continue;
    }
    const version = (previous.get(name)?.version ?? 0) + 1;
    const snap = await snapshotPrd(workspace, name, { by: options.by, how: options.how, now: options.now, version });
    if (!snap.ok) result.refused.push({ path: name, message: snap.message });
    else {
      result.warnings.push(...snap.warnings);
      result.locked.push(snap.locked);
    }
  }
  // A baseline is taken at every prompt and shown to nobody: only a lock is worth the reads.
  if (kind === 'lock') result.undecidable = await undecidableInLock(workspace, result.locked);
  return result;
}

/**
 * Writes prepared entries into the record, beside the PRDs locked before (a lock); a baseline
 * is replaced whole at every prompt. `drop` forgets PRDs (a person approved that one is gone).
 */
export async function commitLock(workspace: string, kind: LockKind, entries: readonly LockedPrd[], options: { env?: NodeJS.ProcessEnv; drop?: readonly string[] } = {}): Promise<string> {
  const env = options.env ?? process.env;
  const existing = await readLock(workspace, kind, env);
  // A damaged lock is replaced only by a person's lock, never merged with.
  const kept = new Map((kind === 'lock' && existing.ok && existing.record ? existing.record.prds : []).map((p) => [p.path, p]));
  for (const gone of options.drop ?? []) kept.delete(gone);
  for (const e of entries) kept.set(e.path, e);
  const prds = [...kept.values()].sort((a, b) => a.path.localeCompare(b.path));
  // A person approving changes passes what is dropped (maybe nothing); a lock does not.
  const action: LockAction = kind === 'baseline' ? 'baseline' : options.drop !== undefined ? 'approve' : 'lock';
  return writeLock(workspace, { version: 1, kind, workspace: await realWorkspace(workspace), prds }, env, action);
}

/** Locks PRDs (prepareLock, then commitLock). Callers are a person's act only: a terminal prompt, an editor modal, or the person's prompt for a baseline. */
export async function lockCriteria(workspace: string, options: LockOptions): Promise<LockResult> {
  const prepared = await prepareLock(workspace, options);
  const file = await commitLock(workspace, options.kind ?? 'lock', prepared.locked, options.env ? { env: options.env } : {});
  return { file, ...prepared };
}

