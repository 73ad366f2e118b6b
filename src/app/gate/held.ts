import * as path from 'node:path';
import { lockCriteria, readLock, type LockResult } from './lock';
import type { LockedPrd } from './lock-schema';
import { criteriaPrds, workspaceOf } from './prds';

/**
 * What the gate holds an agent to, in the order it trusts it:
 * 1. every PRD a person locked (all of them, never "the newest file": an agent can write a
 *    newer one, or touch another);
 * 2. where nothing is locked, the criteria as they were when the person last spoke (the
 *    session baseline, recorded by the host's prompt hook);
 * 3. where neither was ever made, the newest PRD with criteria, as before the lock existed;
 * 4. nothing: the agent may stop. Only where nothing was ever locked or baselined.
 * A lock or baseline that cannot be read is refused: the gate blocks and says why.
 */
export type HeldSet =
  | { kind: 'locked' | 'baseline'; prds: readonly LockedPrd[] }
  | { kind: 'newest'; file: string }
  | { kind: 'none' }
  | { kind: 'damaged'; message: string };

export async function heldSet(workspace: string, env: NodeJS.ProcessEnv = process.env): Promise<HeldSet> {
  const lock = await readLock(workspace, 'lock', env);
  if (!lock.ok) return { kind: 'damaged', message: lock.message };
  if (lock.record && lock.record.prds.length > 0) return { kind: 'locked', prds: lock.record.prds };
  const baseline = await readLock(workspace, 'baseline', env);
  if (!baseline.ok) return { kind: 'damaged', message: baseline.message };
  if (baseline.record && baseline.record.prds.length > 0) return { kind: 'baseline', prds: baseline.record.prds };
  const prds = await criteriaPrds(workspace);
  return prds.length > 0 ? { kind: 'newest', file: prds[0]!.file } : { kind: 'none' };
}

/**
 * The session baseline: the criteria as they are when the person speaks (a host's
 * prompt-submit or session-start hook). Where a person locked criteria the lock holds and no
 * baseline is taken. Changes after it are the agent's and block until the person speaks again
 * or approves them. Returns undefined when a lock makes it unneeded.
 */
export async function recordBaseline(workspace: string, options: { now: Date; env?: NodeJS.ProcessEnv }): Promise<LockResult | undefined> {
  const env = options.env ?? process.env;
  const lock = await readLock(workspace, 'lock', env);
  if (!lock.ok || (lock.record && lock.record.prds.length > 0)) return undefined;
  return lockCriteria(workspace, { by: "the person's prompt", how: 'prompt', now: options.now, kind: 'baseline', env });
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
 * own `.ideal-state` or `.git` hid the locked PRDs (issue 23).
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

/**
 * The command line `gate install` writes into a host's hook: the workspace is in it, so the
 * gate never takes it from the payload. `event: 'prompt'` is the prompt-submit hook that
 * records the session baseline (for a host whose payload does not name its event, `--prompt`
 * says it).
 */
export function gateHookCommand(options: { command?: string; host: string; workspace: string; event: 'stop' | 'prompt' }): string {
  const base = options.command ?? 'ideal-state';
  const words = [base, 'gate', '--host', options.host, '--workspace', shellWord(path.resolve(options.workspace))];
  if (options.event === 'prompt') words.push('--prompt');
  return words.join(' ');
}
