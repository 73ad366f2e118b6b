import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { launcherInWorkspace } from '../launcher-reach';

/**
 * What the doctor found in one host's configuration, as the host would read it: whether the host
 * would run the gate at all, with which command and environment, and each way around it on this
 * machine. The dry stop runs only when `neverRuns` is empty: a gate the host never starts cannot
 * be said to block.
 */
export interface HostFindings {
  /** The gate's command line as the host would run it on a stop (undefined: none does). */
  command?: string;
  /** The file it was found in, as shown. */
  installedIn?: string;
  /** Why the host would not run the gate on a stop; each one alone lets the agent stop. */
  neverRuns: string[];
  /** The environment the host would give the hook (its own, with the settings' `env`). */
  env: NodeJS.ProcessEnv;
  /** Files the host may refuse, and other hooks on the stop event. */
  notes: string[];
  /** Each way the installed gate can be bypassed on this machine. */
  bypasses: string[];
}

/** The command line's words, as a POSIX shell splits a simple command (quotes, backslashes). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? '') + command.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? command.length : end;
    } else if (c === '"') {
      let j = i + 1;
      let s = '';
      while (j < command.length && command[j] !== '"') {
        if (command[j] === '\\' && j + 1 < command.length) j++;
        s += command[j];
        j++;
      }
      word = (word ?? '') + s;
      i = j;
    } else if (c === '\\' && i + 1 < command.length) {
      word = (word ?? '') + command[++i];
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * How the hook's program is found: an absolute path to a regular file outside the workspace is
 * out of the agent's reach; a bare name is looked up through PATH (which the agent's shell or an
 * `env` in the settings can set), and a file in the workspace is the agent's to replace.
 */
export async function programBypasses(command: string, workspace: string, pathFrom: string | undefined, pathVar = ''): Promise<string[]> {
  const words = shellWords(command);
  const out: string[] = [];
  const first = words[0] ?? '';
  const reach = launcherInWorkspace(launcherWords(words), workspace, pathVar);
  if (!path.isAbsolute(first)) {
    out.push(`the hook's program \`${first}\` is looked up through PATH${pathFrom ? ` (which ${pathFrom} sets)` : ''}: a \`${path.basename(first)}\` earlier on it answers instead of the gate; \`gate install\` writes absolute paths`);
  } else {
    const stat = await fs.stat(first).catch(() => undefined);
    if (!stat?.isFile()) out.push(`the hook's program ${first} is not a regular file here`);
  }
  if (reach) out.push(`the installed command resolves inside the workspace: ${reach.why}; \`ideal-state gate install\` (without --command) writes absolute paths outside it`);
  return out;
}

/** The launcher's words: those before `gate` (what `gate install` wrote before ` gate --host …`). */
export function launcherWords(words: readonly string[]): string[] {
  const at = words.indexOf('gate');
  return at > 0 ? words.slice(0, at) : [...words];
}

/**
 * A code-loading NODE_OPTIONS (or LD_PRELOAD, DYLD_INSERT_LIBRARIES) in the environment the host
 * itself starts with reaches every hook: Node applies it to the gate before the gate can drop it
 * (the gate then only says so), so the doctor names it as a way around the gate.
 */
export function inheritedLoaders(env: NodeJS.ProcessEnv, hostName: string): string[] {
  const out: string[] = [];
  if (/(^|\s)(-r|--require|--import|--loader|--experimental-loader)(\s|=|$)/.test(env.NODE_OPTIONS ?? '')) out.push(`NODE_OPTIONS in the environment ${hostName} starts with ("${env.NODE_OPTIONS}") loads code into the gate's own Node before the gate can drop it; unset it where ${hostName} is started`);
  for (const name of ['LD_PRELOAD', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES']) if (env[name]) out.push(`${name} in the environment ${hostName} starts with loads a library into the gate's Node before the gate starts`);
  return out;
}
