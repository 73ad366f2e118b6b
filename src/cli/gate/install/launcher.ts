import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { checkLauncherRuns, mcpLauncherFor } from '../../../app/gate/hook-command';
import { shellWord } from '../../../app/gate/held';
import { launcherInWorkspace } from '../../../app/gate/launcher-reach';
import type { CliIo } from '../../shared/io';

/**
 * The launcher, checked to start this command line before anything is written (`LAUNCHER
 * --version`, through a shell, as the host will run it), and said. The default launcher that
 * does not start is refused; one the person gave (--command) is theirs, for a machine or
 * container other than this one, and is written with a warning that it does not start here.
 * The MCP entry uses `ideal-state` only when that name on PATH is this command line.
 */
export async function sayLauncher(launcher: string, given: string | undefined, workspace: string, runtime: InstallRuntime, io: Pick<CliIo, 'err'>): Promise<{ ok: true; mcpLauncher: string; lines: string[] } | { ok: false }> {
  const lines: string[] = [];
  const runs = await checkLauncherRuns(launcher, { cwd: workspace, env: process.env, timeoutMs: LAUNCHER_CHECK_MS });
  if (!runs.ok && given === undefined) {
    io.err(`ideal-state gate install: the hook would run \`${launcher}\`, which does not start here: ${runs.line}. Nothing written.`);
    return { ok: false };
  }
  if (!runs.ok) io.err(`warning: --command \`${launcher}\` does not start Ideal State here (${runs.line}); written as given, the hook lets every stop through wherever it does not start`);
  else lines.push(`the hook starts Ideal State ${runs.version} as \`${launcher}\` (${given !== undefined ? 'your --command' : 'the Node and command line that ran this install, by absolute path'}; checked: it starts)`);
  if (given !== undefined) return { ok: true, mcpLauncher: given, lines };
  const mcp = mcpLauncherFor(launcher, runtime.cli);
  lines.push(`the MCP server starts as \`${mcp.launcher} mcp\` (${mcp.why})`);
  return { ok: true, mcpLauncher: mcp.launcher, lines };
}

/** How long `LAUNCHER --version` may take: a cold start of Node and the lean command line is well under a second. */
const LAUNCHER_CHECK_MS = 30_000;

/** The Node running this install and the command line file it was started as (process.argv[1]). */
export interface InstallRuntime {
  node: string;
  cli: string | undefined;
  /** The environment the user and managed settings folders are found from (HOME, CLAUDE_CONFIG_DIR); default: this process's. */
  env?: NodeJS.ProcessEnv;
}

/**
 * How the hook starts Ideal State. By default the absolute paths of the Node that runs this
 * install and of the command line file (dist/cli.js), each checked to be a regular file: a
 * hook that says `ideal-state` or `node` is looked up on the PATH the host gives it at every
 * stop, and an agent that put a program of that name first (`env.PATH` in its host's settings)
 * answered instead of the gate. `--command` stays the person's choice, with a warning where it
 * is looked up on PATH or lies inside the workspace (node_modules/.bin, which the agent can
 * replace).
 */
export async function hookLauncher(given: string | undefined, workspace: string, runtime: InstallRuntime): Promise<{ launcher: string; warnings: string[] } | { refused: string }> {
  const warnings: string[] = [];
  const own = await ownLauncher(runtime);
  if (given === undefined) {
    if (own) {
      for (const f of own.files) if (inside(f, workspace)) warnings.push(`${f} is inside the workspace ${workspace}: an agent working there can replace it, and the hook would run what it put there; install Ideal State outside the workspace (npm install -g ideal-state) and install the gate again`);
      return { launcher: own.launcher, warnings };
    }
    warnings.push(`the command line file this install was started from (${runtime.cli ?? 'unknown'}) is not Ideal State's dist/cli.js, so the hook runs \`ideal-state\`, looked up on PATH at every stop: an agent that puts a program of that name first on the PATH its host gives the hook (an \`env\` in the host's settings) answers instead of the gate. Run \`ideal-state gate install\` from the installed command line to write absolute paths`);
    return { launcher: 'ideal-state', warnings };
  }
  const words = splitLauncher(given);
  const first = words[0] ?? '';
  // A launcher that runs what the workspace holds is the agent's to replace: never written.
  const reach = launcherInWorkspace(words, workspace, (runtime.env ?? process.env).PATH ?? '');
  if (reach) {
    const outside = own && !own.files.some((f) => inside(f, workspace));
    if (!outside) return { refused: `--command \`${given}\` is not written: ${reach.why}, and the hook would run what it put there. Install Ideal State outside the workspace (npm install -g ideal-state) and run \`ideal-state gate install\` from it, which writes the absolute paths of its Node and command line, or give --command with absolute paths outside the workspace. Nothing written.` };
    warnings.push(`--command \`${given}\` is not written as given: ${reach.why}. The hook runs \`${own.launcher}\` instead: the absolute paths of the Node and command line running this install, outside the workspace`);
    return { launcher: own.launcher, warnings };
  }
  if (!path.isAbsolute(first)) warnings.push(`--command: "${first}" is looked up on PATH at every stop: an agent that puts a program of that name first on the PATH its host gives the hook (an \`env\` in the host's settings) answers instead of the gate. An absolute path (e.g. ${process.execPath} /path/to/ideal-state/dist/cli.js) is not`);
  return { launcher: given, warnings };
}

/** The Node running this install and its dist/cli.js, by real path, each a regular file; undefined when this is not Ideal State's command line. */
async function ownLauncher(runtime: InstallRuntime): Promise<{ launcher: string; files: string[] } | undefined> {
  const node = await regularFile(runtime.node);
  const cli = runtime.cli ? await regularFile(runtime.cli) : undefined;
  if (!node || !cli || path.basename(cli) !== 'cli.js') return undefined;
  return { launcher: `${shellWord(node)} ${shellWord(cli)}`, files: [node, cli] };
}

/** The real path of a regular file, or undefined. */
async function regularFile(file: string): Promise<string | undefined> {
  if (!path.isAbsolute(file)) return undefined;
  const real = await fs.realpath(file).catch(() => undefined);
  if (!real) return undefined;
  return (await fs.stat(real).then((s) => s.isFile(), () => false)) ? real : undefined;
}

function inside(file: string, workspace: string): boolean {
  const r = path.relative(workspace, file);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
}

/** The words of a launcher as a shell would split it, quotes removed. */
export function splitLauncher(launcher: string): string[] {
  return (launcher.match(/"[^"]*"|'[^']*'|\S+/g) ?? ['ideal-state']).map((s) => s.replace(/^["']|["']$/g, ''));
}
