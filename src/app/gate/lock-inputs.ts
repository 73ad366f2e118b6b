import * as crypto from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { AnyCriterion } from '../../model';
import { compileGlob, type GlobRule } from '../../verify/glob';
import { parseJsonc } from '../../verify/jsonc';
import { VERIFY_COMMANDS_FILE } from '../../verify/verify-commands-file';
import type { ApprovedIgnores } from '../../verify/types';
import { digestRegularFile, readRegularFile, readRegularText, readRegularTextOrAbsent, type SafeRead } from '../../verify/safe-read';
import { checkCommands, executedFiles, taskCommands, type TextReader } from './check-inputs';
import type { LockedInput, LockedPrd } from './lock-schema';

/**
 * What a criterion's verification depends on besides its own line, digested so the gate
 * sees it change: the Task definitions it names (a `.vscode/tasks.json` entry, a package.json
 * script; an agent set one to `true`), the verify-commands allow-list, the `.gitignore` files
 * that scope its searches (an agent ignored the offending file), and the files a PRD's
 * `protected:` globs name (the tests an agent would weaken), and what its commands execute (the
 * scripts, Makefiles, runner configuration and shims of check-inputs.ts). Files added later under a
 * protected glob are the agent's own work and are not held; changed or deleted ones are.
 */
export const DEFAULT_PROTECTED_GLOBS: readonly string[] = [
  // Test folders at any depth (a workspace package's test/, Maven's src/test/).
  '**/test/**',
  '**/tests/**',
  '**/spec/**',
  '**/__tests__/**',
  // node --test's own names (https://nodejs.org/api/test.html#running-tests-from-the-command-line),
  // jest's and vitest's, pytest's, go's, RSpec's, JUnit's.
  '**/*.test.*',
  '**/*.spec.*',
  '**/*-test.*',
  '**/*_test.*',
  '**/test-*.*',
  '**/test_*.*',
  '**/test.js',
  '**/test.mjs',
  '**/test.cjs',
  '**/*_spec.*',
  '**/*Test.java',
  '**/*Tests.java',
  '**/*Test.kt',
];

/** The walk that finds protected files and .gitignore files stops here: a lock must not take minutes. */
export const WALK_LIMIT = 20_000;
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

export function digestOf(text: string | Buffer): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/**
 * Why an input could not be read (a FIFO, a device, a file over the bound), by `kind\0name`:
 * its digest is then one no real content has, so it differs from the lock and is TAMPERED, and
 * the change says what the file is instead of reading it.
 */
export type InputProblems = Map<string, string>;

export function inputKey(i: Pick<LockedInput, 'kind' | 'name'>): string {
  return `${i.kind}\0${i.name}`;
}

/** The digest a file gets when it cannot be read: never the digest of any content. */
function unreadableDigest(message: string): string {
  return digestOf(`\0ideal-state: not read: ${message}`);
}

async function fileDigest(file: string, shown: string, onProblem: (message: string) => void): Promise<string | null> {
  const read = await digestRegularFile(file, { shown });
  if (read.ok) return read.digest;
  if (read.reason === 'absent') return null;
  onProblem(read.message);
  return unreadableDigest(read.message);
}

/**
 * The locked files a check runs that the current resolution no longer names (the file that named
 * them — tasks.json, a script — cannot be read now, or names others), digested where they are:
 * such a file is still compared with the lock, never taken for deleted while it is there.
 */
export async function unresolvedExecuted(workspace: string, locked: readonly LockedInput[], current: readonly LockedInput[], problems: InputProblems): Promise<LockedInput[]> {
  const now = new Set(current.map(inputKey));
  const out: LockedInput[] = [];
  for (const was of locked) {
    if (was.kind !== 'executes' || now.has(inputKey(was))) continue;
    const digest = await fileDigest(path.join(workspace, was.name), was.name, (message) => problems.set(inputKey(was), message));
    out.push({ ...was, digest });
  }
  return out;
}

/** The task names and package scripts a criterion's method runs. */
export function namedTasks(criteria: readonly AnyCriterion[]): string[] {
  const names = new Set<string>();
  for (const c of criteria) {
    const v = c.verify;
    if (!v) continue;
    if (v.type === 'TASK') names.add(v.task);
    if (v.type === 'TEST') names.add(v.test);
    const command = v.type === 'CLI' ? v.command : v.type === 'TEST' ? v.test : v.type === 'STATIC' ? v.command : undefined;
    for (const m of (command ?? '').matchAll(/\b(?:npm|pnpm|yarn)\s+(?:run(?:-script)?\s+|)([\w:.@/-]+)/g)) {
      const script = m[1] === 't' ? 'test' : m[1]!;
      if (!['install', 'ci', 'i', 'exec', 'x', 'dlx', 'add'].includes(script)) names.add(`npm: ${script}`);
    }
  }
  return [...names].sort();
}

/** A task's definition as the runner would find it: the tasks.json entry with its label, and the package script of that name. */
export async function taskDigest(workspace: string, name: string, read: FileReader = diskReader(workspace)): Promise<string | null> {
  const tasksText = await read('.vscode/tasks.json');
  let entry: unknown = null;
  if (tasksText !== undefined) {
    const parsed = parseJsonc(tasksText);
    const tasks = parsed.ok && isObject(parsed.value) && Array.isArray(parsed.value.tasks) ? parsed.value.tasks : [];
    entry = tasks.find((t) => isObject(t) && (t.label === name || t.taskName === name)) ?? null;
  }
  const script = name.startsWith('npm: ') ? name.slice(5).trim() : name;
  let scriptText: unknown = null;
  const manifest = await read('package.json');
  if (manifest !== undefined) {
    try {
      const m: unknown = JSON.parse(manifest);
      if (isObject(m) && isObject(m.scripts)) scriptText = m.scripts[script] ?? null;
    } catch {
      scriptText = `unreadable package.json ${digestOf(manifest)}`;
    }
  }
  if (entry === null && scriptText === null) return null;
  return digestOf(JSON.stringify({ entry, script: scriptText }));
}

/** A workspace file's text by its workspace-relative path; undefined when absent (the disk, or a git revision). */
export type FileReader = (relative: string) => Promise<string | undefined>;

/** The workspace on disk; a file that is there but not a regular one (or too large) is told to `onProblem` and reads as absent. */
export function diskReader(workspace: string, onProblem?: (relative: string, message: string) => void): FileReader {
  return async (relative) => {
    const read = await readRegularText(path.join(workspace, relative), { shown: relative });
    if (read.ok) return read.text;
    if (read.reason !== 'absent') onProblem?.(relative, read.message);
    return undefined;
  };
}

interface Walked {
  gitignores: string[];
  protectedFiles: string[];
  truncated: boolean;
}

/** Workspace files, bounded: .gitignore files and those the protected globs match (FIFOs and devices too, never read). Symlinks are not followed. */
async function walk(workspace: string, globs: readonly GlobRule[]): Promise<Walked> {
  const out: Walked = { gitignores: [], protectedFiles: [], truncated: false };
  let seen = 0;
  const queue = [''];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    const entries = await fs.readdir(path.join(workspace, dir), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (++seen > WALK_LIMIT) {
        out.truncated = true;
        return out;
      }
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && relative !== '.ideal-state') queue.push(relative);
      } else if (entry.isFile() || entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()) {
        // A FIFO or device where a .gitignore or a test file was is named, so its change says what it is (it is never read).
        if (entry.name === '.gitignore') out.gitignores.push(relative);
        else if (globs.some((g) => g.regex.test(relative))) out.protectedFiles.push(relative);
      }
    }
  }
  return out;
}

export interface InputSnapshot {
  inputs: LockedInput[];
  truncated: boolean;
  /** Inputs that are there but were not read (not regular files, too large), by inputKey. */
  problems: InputProblems;
}

/** The inputs of these criteria, as they are now. */
export async function snapshotInputs(workspace: string, criteria: readonly AnyCriterion[], protectedGlobs: readonly string[], options: { searches?: boolean } = {}): Promise<InputSnapshot> {
  const inputs: LockedInput[] = [];
  const problems: InputProblems = new Map();
  for (const name of namedTasks(criteria)) {
    const unread: string[] = [];
    const digest = await taskDigest(workspace, name, diskReader(workspace, (_relative, message) => unread.push(message)));
    if (unread.length > 0) problems.set(inputKey({ kind: 'task', name }), unread.join('; '));
    inputs.push({ kind: 'task', name, digest: unread.length > 0 ? unreadableDigest(unread.join('; ')) : digest });
  }
  for (const name of await executedInputs(workspace, criteria)) {
    inputs.push({ kind: 'executes', name, digest: await fileDigest(path.join(workspace, name), name, (m) => problems.set(inputKey({ kind: 'executes', name }), m)) });
  }
  inputs.push({ kind: 'allow-list', name: VERIFY_COMMANDS_FILE, digest: await fileDigest(path.join(workspace, VERIFY_COMMANDS_FILE), VERIFY_COMMANDS_FILE, (m) => problems.set(inputKey({ kind: 'allow-list', name: VERIFY_COMMANDS_FILE }), m)) });
  const rules = protectedGlobs.map((g) => compileGlob(g)).filter((r): r is GlobRule => r !== undefined);
  const walked = await walk(workspace, rules);
  const searches = options.searches ?? criteria.some((c) => c.verify?.type === 'GREP');
  if (searches) {
    // The root's is always named (null when absent), so the lock knows its searches are scoped by .gitignore files.
    const names = walked.gitignores.includes('.gitignore') ? walked.gitignores : ['.gitignore', ...walked.gitignores];
    for (const f of names) inputs.push(await gitignoreInput(workspace, f, (m) => problems.set(inputKey({ kind: 'gitignore', name: f }), m)));
  }
  for (const f of walked.protectedFiles) inputs.push({ kind: 'protected', name: f, digest: await fileDigest(path.join(workspace, f), f, (m) => problems.set(inputKey({ kind: 'protected', name: f }), m)) });
  return { inputs, truncated: walked.truncated, problems };
}

/** The largest `.gitignore` whose text a lock keeps (its digest is kept whatever its size). */
export const GITIGNORE_TEXT_LIMIT = 64 * 1024;

async function gitignoreInput(workspace: string, relative: string, onProblem: (message: string) => void): Promise<LockedInput> {
  const read: SafeRead = await readRegularFile(path.join(workspace, relative), { shown: relative });
  if (!read.ok && read.reason === 'absent') return { kind: 'gitignore', name: relative, digest: null };
  if (!read.ok) {
    onProblem(read.message);
    return { kind: 'gitignore', name: relative, digest: unreadableDigest(read.message) };
  }
  const bytes = read.bytes;
  return { kind: 'gitignore', name: relative, digest: digestOf(bytes), ...(bytes.length <= GITIGNORE_TEXT_LIMIT ? { text: bytes.toString('utf8') } : {}) };
}

/**
 * The ignore rules a person approved, for the held PRDs' searches: each `.gitignore` as locked
 * (or baselined), so one the agent adds, edits or deletes neither hides nor adds matches.
 * Undefined where they are not fully known (no Grep when it was locked, a walk cut at its bound,
 * a file too long to keep, texts not kept by an older lock): the files are then searched as they
 * are, and a changed `.gitignore` is TAMPERED instead.
 */
export function approvedIgnoresOf(prds: readonly LockedPrd[], source: string): ApprovedIgnores | undefined {
  const files = new Map<string, string | null>();
  for (const prd of prds) {
    const ignores = prd.inputs.filter((i) => i.kind === 'gitignore');
    if (ignores.length === 0 || prd.walkTruncated || !textsKept(ignores)) return undefined;
    for (const i of ignores) files.set(i.name, i.digest === null ? null : i.text!);
  }
  return files.size > 0 ? { files, source } : undefined;
}

/** Whether every `.gitignore` of a lock is known by its text (or known absent). */
export function textsKept(ignores: readonly LockedInput[]): boolean {
  return ignores.every((i) => i.kind !== 'gitignore' || i.digest === null || i.text !== undefined);
}

/** The files the criteria's checks run or are configured by (check-inputs.ts), read as the checks would find them. */
export async function executedInputs(workspace: string, criteria: readonly AnyCriterion[], read: TextReader = (relative) => readRegularTextOrAbsent(path.join(workspace, relative))): Promise<string[]> {
  const commands = [...checkCommands(criteria), ...(await taskCommands(criteria, read))];
  if (commands.length === 0) return [];
  const exists = async (relative: string) => (await fs.stat(path.join(workspace, relative)).catch(() => undefined))?.isFile() === true;
  return executedFiles(commands, read, exists);
}

/** The `protected:` globs of a PRD's frontmatter (a list of strings, or one string); the default when absent. */
export function protectedGlobsOf(frontmatter: Record<string, unknown> | undefined): { globs: string[]; problem?: string } {
  const value = frontmatter?.protected;
  if (value === undefined || value === null) return { globs: [...DEFAULT_PROTECTED_GLOBS] };
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  if (!list || !list.every((g): g is string => typeof g === 'string' && g.trim() !== '')) {
    return { globs: [...DEFAULT_PROTECTED_GLOBS], problem: 'frontmatter "protected" must be a list of globs, e.g. protected: [test/**, "**/*.test.ts"]; the default is used' };
  }
  return { globs: list.map((g) => g.trim()) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
