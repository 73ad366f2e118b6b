import * as path from 'node:path';
import { SETTINGS } from '../../model/settings';
import { commitLock, prepareLock, readLock, type LockResult } from './lock';
import type { LockedPrd } from './lock-schema';
import { workspaceOf, workspacePathSetting } from './prds';
import { chooseSessionPrd } from './session-prd';

/**
 * What the gate holds an agent to, in the order it trusts it:
 * 1. every PRD a person locked (all of them, never "the newest file": an agent can write a
 *    newer one, or touch another);
 * 2. where nothing is locked, the PRD of the person's session as it was when the person last
 *    spoke (the session baseline, recorded by the host's prompt hook; session-prd.ts says
 *    which PRD that is) — or the PRD the hook or the workspace setting names;
 * 3. where neither was ever made, the newest unfinished PRD with criteria;
 * 4. nothing: the agent may stop. Only where nothing was ever locked or baselined.
 * A lock or baseline that cannot be read is refused: the gate blocks and says why.
 * Old PRDs nobody asked about are not held: an honest fix must not wait on them.
 */
export type HeldSet =
  | { kind: 'locked' | 'baseline'; prds: readonly LockedPrd[] }
  | { kind: 'newest'; file: string; why: string }
  | { kind: 'none' }
  | { kind: 'damaged'; message: string };

export interface HeldOptions {
  env?: NodeJS.ProcessEnv;
  /** `--prd`: where nothing is locked, the PRD held instead of the session's. */
  named?: string;
}

export async function heldSet(workspace: string, options: HeldOptions = {}): Promise<HeldSet> {
  const env = options.env ?? process.env;
  const lock = await readLock(workspace, 'lock', env);
  if (!lock.ok) return { kind: 'damaged', message: lock.message };
  if (lock.record && lock.record.prds.length > 0) return { kind: 'locked', prds: lock.record.prds };
  const baseline = await readLock(workspace, 'baseline', env);
  if (!baseline.ok) return { kind: 'damaged', message: baseline.message };
  const recorded = baseline.record?.prds ?? [];
  // The hook's --prd is held, as baselined where the baseline has it. The workspace setting is
  // the agent's to edit: it is read when the person speaks, and at a stop only where the person
  // never spoke through a prompt hook.
  const named = options.named ?? (baseline.record ? undefined : await workspacePathSetting(workspace, SETTINGS.gatePrd.key));
  const chosen = await chooseSessionPrd(workspace, named ? { named } : {});
  if (named && chosen) {
    const entry = recorded.find((p) => p.path === chosen.relative);
    return entry ? { kind: 'baseline', prds: [{ ...entry, why: chosen.why }] } : { kind: 'newest', file: path.join(workspace, chosen.relative), why: chosen.why };
  }
  if (recorded.length > 0) return { kind: 'baseline', prds: recorded };
  return chosen ? { kind: 'newest', file: path.join(workspace, chosen.relative), why: chosen.why } : { kind: 'none' };
}

/** Why a held PRD is held, in the words every answer uses. */
export function heldWhy(held: HeldSet, prd?: LockedPrd): string {
  switch (held.kind) {
    case 'locked':
      return prd ? `locked by ${prd.by} on ${prd.at.slice(0, 10)}, criteria version ${prd.version}` : 'locked by a person';
    case 'baseline':
      return `${prd?.why ?? "the PRD of the person's session"}, as when the person last spoke`;
    case 'newest':
      return `${held.why} (no lock, no session baseline)`;
    default:
      return '';
  }
}

/** The PRDs a held set holds, each with why, as every surface names them (workspace-relative paths). */
export function heldPrds(workspace: string, held: HeldSet): { path: string; why: string }[] {
  switch (held.kind) {
    case 'locked':
    case 'baseline':
      return held.prds.map((p) => ({ path: p.path, why: heldWhy(held, p) }));
    case 'newest':
      return [{ path: path.relative(workspace, held.file).split(path.sep).join('/'), why: heldWhy(held) }];
    default:
      return [];
  }
}

/**
 * The session baseline: the criteria of the session's PRD as they are when the person speaks
 * (a host's prompt-submit or session-start hook). Where a person locked criteria the lock holds
 * and no baseline is taken. Changes after it are the agent's and block until the person speaks
 * again or approves them. Returns undefined when a lock makes it unneeded.
 */
export async function recordBaseline(workspace: string, options: { now: Date; env?: NodeJS.ProcessEnv; named?: string; prompt?: string }): Promise<LockResult | undefined> {
  const env = options.env ?? process.env;
  const lock = await readLock(workspace, 'lock', env);
  if (!lock.ok || (lock.record && lock.record.prds.length > 0)) return undefined;
  const chosen = await chooseSessionPrd(workspace, { ...(options.named ? { named: options.named } : {}), ...(options.prompt ? { prompt: options.prompt } : {}) });
  const lockOptions = { files: chosen ? [chosen.relative] : [], by: "the person's prompt", how: 'prompt' as const, now: options.now, kind: 'baseline' as const, env };
  const prepared = await prepareLock(workspace, lockOptions);
  // Replaced whole at every prompt: a session about another PRD lets go of the last one.
  const entries = prepared.locked.map((p) => (chosen ? { ...p, why: chosen.why } : p));
  const file = await commitLock(workspace, 'baseline', entries, { env });
  return { file, ...prepared, locked: entries };
}

/**
 * The host variable that names the project folder, by host: the hook's workspace when the
 * installed command has no `--workspace`. Claude Code sets CLAUDE_PROJECT_DIR for every hook
 * (https://docs.claude.com/en/docs/claude-code/hooks, "Project-specific hook scripts").
 */
export const PROJECT_DIR_VARIABLES: Readonly<Record<string, string>> = { 'claude-code': 'CLAUDE_PROJECT_DIR' };

/**
 * The workspace of a gate run: `--workspace` (written into the hook's command by
 * `gate install`), else the host's project-folder variable, else the folder the host started
 * the hook in. Never the payload's `cwd`: an agent can be anywhere, and a subfolder with its
 * own `.ideal-state` or `.git` would hide the locked PRDs.
 */
export async function gateWorkspace(options: { flag?: string; host: string; env: NodeJS.ProcessEnv; processCwd: string }): Promise<string> {
  if (options.flag) return path.resolve(options.flag);
  const variable = PROJECT_DIR_VARIABLES[options.host];
  const fromHost = variable ? options.env[variable] : undefined;
  if (fromHost && path.isAbsolute(fromHost)) return path.resolve(fromHost);
  return workspaceOf(options.processCwd);
}

/** Quotes one word for a POSIX shell (a hook's command line is run by one). */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
