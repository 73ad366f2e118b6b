import type { z } from 'zod';

/**
 * One agent host's done gate: what it sends when its agent wants to stop, how it is told to
 * keep working, where its hook lives, and what the user sees. Each host is one small file in
 * this folder, with its sources cited; test/hosts/ runs the real programs against them.
 */

/** A stop request, whatever host sent it. */
export interface StopRequest {
  host: string;
  /** The host's event, e.g. `Stop`, `SubagentStop`, `AfterAgent`, `agentStop`, `stop`. */
  event: string;
  /** Counts blocks per session; hosts without one share a key per workspace. */
  sessionKey: string;
  /** Where the agent works (absent: the current directory). */
  cwd?: string;
  /** The host says the agent is already continuing because a stop hook blocked (undefined: it never says, or cannot be trusted to). */
  stopHookActive?: boolean;
}

/** What the gate decided: keep the agent working (with why), or let it stop (with a note for the user, if any). */
export type GateVerdict = { kind: 'block'; reason: string; summary: string } | { kind: 'allow'; note?: string };

/** The answer as the host reads it. */
export interface HostAnswer {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

export type TimeoutUnit = 'seconds' | 'milliseconds';

/** Where and how `gate install` writes the host's hook. */
export type HookInstall =
  /** Claude Code's shape: `hooks[Event]` is a list of matcher groups `{ hooks: [{ type, command, timeout }] }`. */
  | { kind: 'matcher-groups'; file: string; events: readonly string[] }
  /** VS Code's shape: `hooks[Event]` is a flat list of `{ type, command, timeout }`. */
  | { kind: 'flat'; file: string; events: readonly string[] }
  /** A file of the host's own format, written whole by the adapter's `hookFile`. */
  | { kind: 'own-file'; file: string }
  /** The host cannot run a stop hook: nothing is written, and the user is told so. */
  | { kind: 'none'; why: string };

export interface HostAdapter {
  /** The name `--host` and `gate install` take. */
  id: string;
  name: string;
  /**
   * The payload the host sends on stdin (zod: the source of truth; unknown keys pass), built when
   * asked: the stop hook reads one host's payload at every stop, and building every host's schema would slow each one.
   */
  payload(): z.ZodType<Record<string, unknown>>;
  /** Whether a payload (parsed, without `--host`) is this host's. */
  recognise(payload: Record<string, unknown>): boolean;
  request(payload: Record<string, unknown>): StopRequest;
  answer(request: StopRequest, verdict: GateVerdict): HostAnswer;
  /** What the host does with the answer, for the PRD's LOG ("sent the agent back", "shows the reason to the user only"). */
  hostWill(verdict: GateVerdict['kind']): string;
  install: HookInstall;
  /** The unit of the hook's `timeout` field in the host's configuration. */
  timeoutUnit: TimeoutUnit;
  /** How long the host waits for a hook by default when the configuration names no timeout (seconds). */
  defaultDeadlineSeconds: number;
  /** Where the user sees the gate's warning when it finally lets the agent stop. */
  warningChannel: string;
  /** The host's prompt-submit event, installed to run the same gate command (the criteria baseline). */
  promptSubmitEvent?: string;
  /** What the user must do before the host runs a newly installed hook (undefined: nothing). */
  trustStep?: string;
  /** The host's configuration folder in a workspace; `gate install --detect` installs where it exists. */
  configFolder: string;
  /** Where the host reads MCP servers, and the entry that runs `ideal-state mcp`. */
  mcp?: { file: string; key: string; entry: (launcher: string[]) => Record<string, unknown> };
  /** The whole hook file, for `own-file` installs. */
  hookFile?(command: string, options: { maxBlocks?: number; timeoutSeconds: number }): string;
}

export function str(payload: Record<string, unknown>, key: string): string | undefined {
  const v = payload[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export function flag(payload: Record<string, unknown>, key: string): boolean | undefined {
  const v = payload[key];
  return typeof v === 'boolean' ? v : undefined;
}

export function cwdOf(cwd: string | undefined): { cwd?: string } {
  return cwd ? { cwd } : {};
}

/** Claude Code's answer, shared by the hosts that copied its Stop hook output. */
export function claudeStyleAnswer(verdict: GateVerdict): HostAnswer {
  if (verdict.kind === 'block') return { exitCode: 0, stdout: JSON.stringify({ decision: 'block', reason: verdict.reason }) };
  return verdict.note ? { exitCode: 0, stdout: JSON.stringify({ systemMessage: verdict.note }) } : { exitCode: 0 };
}
