import * as path from 'node:path';
import type { AnyCriterion } from '../../model';
import { parseJsonc } from '../../verify/jsonc';

/**
 * What a check executes besides its own command line, so a lock can hold it: an agent that
 * cannot weaken a locked criterion weakens what it runs instead (a Makefile recipe set to
 * `true`, a check script gutted to `process.exit(0)`, `.npmrc`'s `script-shell=/bin/true` or
 * `node-options=--require …`, a `node_modules/.bin` shim). Resolved from the files, not from a
 * fixed list, per command kind:
 * - a package runner (`npm`, `pnpm`, `yarn`, `npx`, `bun`): its configuration files, the
 *   manifest scripts it runs (with their `pre`/`post` scripts), and, since a runner puts
 *   `node_modules/.bin` first on the PATH, the shim each command word of those scripts would
 *   find there (recorded absent too: a shim the agent adds is a change);
 * - `make`: the Makefile and the files it includes;
 * - any word that names a file of the workspace (`node scripts/check.mjs`, `bash ci/test.sh`,
 *   `pytest tests/test_x.py`): that file.
 * Only names are resolved here; the lock digests them.
 */

/** Reads a workspace file's text by its workspace-relative path; undefined when absent. */
export type TextReader = (relative: string) => Promise<string | undefined>;

/** The runners' own configuration: each can swap the shell, preload code or redirect the binaries. */
const RUNNER_CONFIGS = ['.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', 'bunfig.toml'];
const RUNNERS = new Set(['npm', 'pnpm', 'yarn', 'npx', 'bun', 'bunx', 'pnpx']);
const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];
/** Scripts a runner resolves from a command line; words it never treats as a script name. */
const RUNNER_VERBS = new Set(['install', 'ci', 'i', 'exec', 'x', 'dlx', 'add', 'run', 'run-script', 'rum', 'urn', '-s', '--silent', '--if-present', '-w', '--workspace']);
/** Bounds: a lock must not take minutes or follow a script that names itself. */
const LIMITS = { commands: 200, files: 500 };

/** The command lines a criterion's check runs (a CLI, a Test, a Static command). */
export function checkCommands(criteria: readonly AnyCriterion[]): string[] {
  const out: string[] = [];
  for (const c of criteria) {
    const v = c.verify;
    if (!v) continue;
    if (v.type === 'CLI') out.push(v.command);
    else if (v.type === 'TEST') out.push(v.test);
    else if (v.type === 'STATIC' && v.command) out.push(v.command);
  }
  return out;
}

/**
 * The command lines of the tasks the criteria name (a `.vscode/tasks.json` entry's command and
 * arguments; an `npm: x` task as `npm run x`), so what a task runs is resolved like a CLI's.
 */
export async function taskCommands(criteria: readonly AnyCriterion[], read: TextReader): Promise<string[]> {
  const names = new Set<string>();
  for (const c of criteria) {
    if (c.verify?.type === 'TASK') names.add(c.verify.task);
  }
  if (names.size === 0) return [];
  const parsed = parseJsonc((await read('.vscode/tasks.json')) ?? '{}');
  const tasks = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null && Array.isArray((parsed.value as Record<string, unknown>).tasks) ? ((parsed.value as Record<string, unknown>).tasks as unknown[]) : [];
  const out: string[] = [];
  for (const name of names) {
    const entry = tasks.find((t): t is Record<string, unknown> => typeof t === 'object' && t !== null && ((t as Record<string, unknown>).label === name || (t as Record<string, unknown>).taskName === name));
    if (entry && typeof entry.command === 'string') {
      const args = Array.isArray(entry.args) ? entry.args.filter((a): a is string => typeof a === 'string') : [];
      out.push([entry.command, ...args].join(' '));
    } else if (name.startsWith('npm: ')) out.push(`npm run ${name.slice(5).trim()}`);
  }
  return out;
}

/** The workspace files a set of command lines executes or is configured by, sorted (see above). */
export async function executedFiles(commands: readonly string[], read: TextReader, exists: (relative: string) => Promise<boolean>): Promise<string[]> {
  const files = new Set<string>();
  const queue = [...commands];
  const seen = new Set<string>();
  let scripts: Record<string, string> | undefined;
  const manifestScripts = async () => (scripts ??= scriptsOf(await read('package.json')));
  while (queue.length > 0 && seen.size < LIMITS.commands && files.size < LIMITS.files) {
    const command = queue.shift()!;
    if (seen.has(command)) continue;
    seen.add(command);
    for (const segment of segments(command)) {
      const words = segment.filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
      const first = words[0];
      if (first === undefined) continue;
      const program = path.posix.basename(first);
      for (const word of words) {
        const named = workspacePath(word.includes('=') ? word.slice(word.indexOf('=') + 1) : word);
        if (named && (await exists(named))) files.add(named);
      }
      if (RUNNERS.has(program)) {
        for (const config of RUNNER_CONFIGS) files.add(config);
        files.add('package.json');
        const all = await manifestScripts();
        for (const name of runnerScripts(program, words.slice(1), all)) {
          for (const hook of [`pre${name}`, name, `post${name}`]) {
            const text = all[hook];
            if (text === undefined) continue;
            queue.push(text);
            // The runner puts node_modules/.bin first on the PATH of what its scripts run.
            for (const s of segments(text)) {
              const word = s.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
              if (word && !word.includes('/')) files.add(`node_modules/.bin/${word}`);
            }
          }
        }
        const bin = binaryOf(program, words.slice(1));
        if (bin) files.add(`node_modules/.bin/${bin}`);
      }
      if (program === 'make' || program === 'gmake') {
        for (const makefile of MAKEFILES) {
          const text = await read(makefile);
          if (text === undefined) continue;
          files.add(makefile);
          for (const included of includesOf(text)) files.add(included);
        }
      }
    }
  }
  return [...files].sort();
}

/** Each simple command of a shell line, as words (quotes removed; no expansion). */
export function segments(command: string): string[][] {
  const out: string[][] = [[]];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(&&|\|\||[;|&()\n])|([^\s"';|&()]+)/g;
  for (const m of command.matchAll(re)) {
    if (m[3] !== undefined) {
      if (out[out.length - 1]!.length > 0) out.push([]);
    } else out[out.length - 1]!.push(m[1] ?? m[2] ?? m[4] ?? '');
  }
  return out.filter((s) => s.length > 0);
}

/** A word as a workspace-relative path, when it can be one (not an option, a URL or outside the workspace). */
function workspacePath(word: string): string | undefined {
  if (word === '' || word.startsWith('-') || /^[a-z]+:\/\//i.test(word) || path.posix.isAbsolute(word) || word.includes('$')) return undefined;
  const normal = path.posix.normalize(word.replace(/\\/g, '/'));
  if (normal === '.' || normal.startsWith('..')) return undefined;
  return normal.replace(/^\.\//, '');
}

/** The manifest scripts a runner's words run: `npm test`, `npm run check`, `yarn check`, `pnpm lint`. */
function runnerScripts(program: string, args: readonly string[], scripts: Record<string, string>): string[] {
  if (program === 'npx' || program === 'bunx' || program === 'pnpx') return [];
  const words = args.filter((w) => !w.startsWith('-'));
  const verb = words[0];
  if (verb === undefined) return [];
  if (verb === 't' || verb === 'test' || verb === 'tst') return ['test'];
  if (['start', 'stop', 'restart'].includes(verb)) return [verb];
  if (verb === 'run' || verb === 'run-script' || verb === 'rum' || verb === 'urn') return words[1] ? [words[1]] : [];
  // yarn, pnpm and bun run a script named as their first word.
  if (program !== 'npm' && !RUNNER_VERBS.has(verb) && verb in scripts) return [verb];
  return [];
}

/** The package binary `npx X`, `pnpm exec X`, `yarn X` (not a script), `bunx X` runs. */
function binaryOf(program: string, args: readonly string[]): string | undefined {
  const words = args.filter((w) => !w.startsWith('-'));
  if (program === 'npx' || program === 'bunx' || program === 'pnpx') return safeName(words[0]);
  if ((program === 'pnpm' || program === 'npm' || program === 'yarn') && (words[0] === 'exec' || words[0] === 'x' || words[0] === 'dlx')) return safeName(words[1]);
  return undefined;
}

function safeName(word: string | undefined): string | undefined {
  if (!word) return undefined;
  const name = word.replace(/@[^/@]*$/, '').split('/').pop();
  return name && /^[\w.-]+$/.test(name) ? name : undefined;
}

function scriptsOf(manifest: string | undefined): Record<string, string> {
  if (manifest === undefined) return {};
  const parsed = parseJsonc(manifest);
  const scripts = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null ? (parsed.value as Record<string, unknown>).scripts : undefined;
  if (typeof scripts !== 'object' || scripts === null) return {};
  return Object.fromEntries(Object.entries(scripts).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** `include a.mk b.mk`, `-include c.mk`, `sinclude d.mk` lines of a Makefile (no variables expanded). */
function includesOf(makefile: string): string[] {
  const out: string[] = [];
  for (const line of makefile.split('\n')) {
    const m = /^\s*-?s?include\s+(.+)$/.exec(line);
    if (!m) continue;
    for (const word of m[1]!.split(/\s+/)) {
      const named = workspacePath(word);
      if (named && !named.includes('(')) out.push(named);
    }
  }
  return out;
}
