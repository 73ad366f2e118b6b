import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Whether a hook's launcher (the words before ` gate --host …`) runs a program the agent can
 * replace: one found through the workspace. `npx ideal-state` (and pnpm/yarn/npm exec, bunx)
 * runs the workspace's node_modules/.bin/ideal-state whenever there is one, and an agent can put
 * one there at any time; a path into the workspace is its to rewrite; a bare name is looked up on
 * a PATH that may name a workspace folder (node_modules/.bin). Measured with Claude Code 2.1.332
 * (test/hosts/attacks.test.mjs): the agent replaced node_modules/.bin/ideal-state with a script
 * that answered `{}`, and the hook let the stop through. `gate install` therefore writes no such
 * launcher, and `gate doctor` names it as the cause.
 */
export interface WorkspaceLauncher {
  /** Why the launcher runs what the workspace holds, in a person's words. */
  why: string;
  /** The program it runs there, when it is there now. */
  file?: string;
}

/** The package runners that prefer the project's node_modules/.bin over anything else. */
const RUNNERS = /^(npx|pnpx|bunx)$/;
const RUNNER_SUBCOMMANDS = /^(pnpm|yarn|npm|bun)$/;

export function launcherInWorkspace(words: readonly string[], workspace: string, pathVar = ''): WorkspaceLauncher | undefined {
  const first = words[0] ?? '';
  const base = path.basename(first);
  if (RUNNERS.test(base) || (RUNNER_SUBCOMMANDS.test(base) && /^(exec|dlx|x)$/.test(words[1] ?? ''))) {
    const name = words.slice(1).find((w) => !w.startsWith('-') && !/^(exec|dlx|x)$/.test(w)) ?? 'ideal-state';
    const bin = nearestBin(workspace, name);
    return {
      why: `\`${words.slice(0, 2).join(' ')}\` runs the workspace's node_modules/.bin/${name} whenever there is one${bin ? ` (there is: ${bin})` : ''}, which the agent can put there or replace`,
      ...(bin ? { file: bin } : {}),
    };
  }
  for (const word of words.slice(0, 2)) {
    if ((word.includes('/') || word.includes(path.sep)) && within(path.resolve(workspace, word), workspace)) return { why: `${word} is inside the workspace ${workspace}, where the agent can replace it`, file: path.resolve(workspace, word) };
  }
  if (!first.includes('/') && !first.includes(path.sep)) {
    const found = onPath(first, pathVar, workspace);
    if (found && within(found, workspace)) return { why: `\`${first}\` is found on PATH at ${found}, inside the workspace, where the agent can replace it`, file: found };
  }
  return undefined;
}

/** The workspace's node_modules/.bin/NAME, where npx looks first, when it is there now. */
function nearestBin(workspace: string, name: string): string | undefined {
  const file = path.join(path.resolve(workspace), 'node_modules', '.bin', name);
  return fs.existsSync(file) ? file : undefined;
}

function onPath(program: string, pathVar: string, workspace: string): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    // A relative PATH entry is looked up from where the hook runs: the workspace.
    const file = path.resolve(workspace, dir, program);
    try {
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

function within(file: string, folder: string): boolean {
  const r = path.relative(path.resolve(folder), path.resolve(file));
  if (r === '' || (!r.startsWith('..') && !path.isAbsolute(r))) return true;
  // A symlink elsewhere into the workspace is the workspace too.
  try {
    const real = path.relative(fs.realpathSync(folder), fs.realpathSync(file));
    return real === '' || (!real.startsWith('..') && !path.isAbsolute(real));
  } catch {
    return false;
  }
}
