import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { readRegularFile } from '../../../verify/safe-read';

/**
 * A host's settings file, read the way the host would have to read it: a file that is missing is
 * simply not there; one that is not JSON (or not a JSON object) is reported with its line, since
 * the host may refuse it whole, gate and all. Read only when it is a regular file of bounded
 * size: an agent that puts a FIFO there must not hang the doctor either.
 */
export type SettingsRead =
  | { state: 'absent'; file: string }
  | { state: 'read'; file: string; settings: Record<string, unknown> }
  | { state: 'refused'; file: string; problem: string; text?: string };

export async function readSettingsFile(file: string, shown: string): Promise<SettingsRead> {
  const r = await readRegularFile(file, { shown });
  if (!r.ok) return r.reason === 'absent' ? { state: 'absent', file } : { state: 'refused', file, problem: r.message };
  const text = r.bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { state: 'refused', file, text, problem: `${shown} is not valid JSON (${jsonErrorLine(text, error as Error)}); the host may refuse the whole file` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { state: 'refused', file, problem: `${shown} is not a JSON object; the host may refuse the whole file` };
  return { state: 'read', file, settings: parsed as Record<string, unknown> };
}

/** "line N: message", from the position V8 names in a JSON.parse error (or the message alone). */
export function jsonErrorLine(text: string, error: Error): string {
  const at = /position (\d+)/.exec(error.message);
  const lineCol = /line (\d+)/.exec(error.message);
  const message = error.message.replace(/ in JSON at position \d+.*$/, '').replace(/\s*\(line \d+ column \d+\)$/, '');
  if (lineCol) return `line ${lineCol[1]}: ${message}`;
  if (!at) return message;
  const line = text.slice(0, Number(at[1])).split('\n').length;
  return `line ${line}: ${message}`;
}

/** One hook entry a host would run on an event, where it came from, and its command line. */
export interface HookEntry {
  /** The settings file (as shown to the person). */
  from: string;
  event: string;
  /** `command` (or Copilot's `bash`); undefined for a hook that is not a command (a prompt or agent hook). */
  command?: string;
  type: string;
}

/**
 * The hooks under exactly `hooks[event]`: the key the host reads, not the command anywhere in the
 * file (a `"Stop_"` key runs nothing). `groups`: Claude Code's matcher groups
 * `[{ matcher, hooks: [{ type, command }] }]`; `flat`: VS Code's and Copilot's `[{ type, command | bash }]`.
 */
export function hooksOn(settings: Record<string, unknown>, event: string, shape: 'groups' | 'flat', from: string): HookEntry[] {
  const hooks = settings.hooks;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) return [];
  const list = (hooks as Record<string, unknown>)[event];
  if (!Array.isArray(list)) return [];
  const entries = shape === 'groups' ? list.flatMap((group) => (isObject(group) && Array.isArray(group.hooks) ? (group.hooks as unknown[]) : [])) : list;
  return entries.filter(isObject).map((h) => {
    const command = typeof h.command === 'string' ? h.command : typeof h.bash === 'string' ? h.bash : undefined;
    return { from, event, type: typeof h.type === 'string' ? h.type : 'command', ...(command !== undefined ? { command } : {}) };
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Ideal State's gate, for this host (what `gate install` writes: `… gate --host ID …`). */
export function isGateCommand(command: string | undefined, hostId: string): command is string {
  if (command === undefined) return false;
  return (/\bideal-state\b.*\bgate\b|\bcli\.js\b.*\bgate\b/.test(command)) && new RegExp(`--host ${hostId}\\b`).test(command);
}

/**
 * Whether the person running the doctor (the same user the agent runs as, unless it is
 * sandboxed) can write the file, or create it: an agent with a shell can then do the same.
 */
export async function writableByThisUser(file: string): Promise<boolean> {
  let at = file;
  for (;;) {
    try {
      await fs.access(at, fs.constants.W_OK);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return false;
    }
    const up = path.dirname(at);
    if (up === at) return false;
    at = up;
  }
}
