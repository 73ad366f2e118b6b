import * as path from 'node:path';
import { confinePath } from './confine';
import { parseJsonc } from './jsonc';
import type { ProcessRunner } from './process-runner';
import { runCommand, type RunCommandOptions } from './run-command';
import { isSecretVariable } from './secret-env';
import { readRegularText } from './safe-read';
import type { TaskRunner, TaskRunResult } from './types';

/**
 * Workspace tasks outside VS Code (the command line, CI): `shell` and `process` tasks of
 * `.vscode/tasks.json` by label, `npm` tasks there, and the root package.json's scripts as
 * `npm: <script>` or by bare name, each run through runCommand. What only VS Code can run
 * (other task types, `dependsOn`, variables like `${file}` or `${input:…}`) is
 * `cannot-run` with the reason, which the verifier reports as UNKNOWN.
 */
export class WorkspaceTaskRunner implements TaskRunner {
  constructor(
    private readonly workspaceRoot: string,
    private readonly processes?: ProcessRunner,
    /** Other folders of the workspace (the live one a snapshot links to): PATH entries inside them are left out too. */
    private readonly otherRoots: readonly string[] = [],
  ) {}

  async run(name: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<TaskRunResult> {
    const found = await this.resolve(name);
    if (found.kind !== 'task') return found;
    const cwd = await confinePath(this.workspaceRoot, found.cwd ?? '.');
    if (!cwd.ok) return { kind: 'cannot-run', reason: `its folder is not inside the workspace: ${cwd.reason}` };
    const run: RunCommandOptions = { command: found.command, ...(found.args ? { args: found.args } : {}), cwd: cwd.absolute, timeoutMs: options.timeoutMs, signal: options.signal, ...(found.env ? { extraEnv: found.env } : {}), pathOutside: [this.workspaceRoot, ...this.otherRoots] };
    const result = await (this.processes ? this.processes.runCommand(run) : runCommand(run));
    switch (result.kind) {
      case 'exited':
        return { kind: 'exited', exitCode: result.exitCode, output: result.output };
      case 'timeout':
        return { kind: 'timeout', timeoutMs: result.timeoutMs, output: result.output };
      case 'signalled':
        return { kind: 'signalled', signal: result.signal, output: result.output };
      case 'cancelled':
        return { kind: 'cancelled' };
      case 'spawn-failed':
        return { kind: 'cannot-run', reason: `it could not be started: ${result.reason}` };
    }
  }

  /** Whether `name` names a task here (tasks.json label, `npm: x`, or a package.json script). */
  async has(name: string): Promise<boolean> {
    const found = await this.resolve(name);
    return found.kind !== 'not-found';
  }

  /** The command a task name stands for, without running it. */
  async resolve(name: string): Promise<ResolvedTask | Extract<TaskRunResult, { kind: 'not-found' | 'cannot-run' }>> {
    const [tasks, scripts] = await Promise.all([this.tasksJson(), this.npmScripts()]);
    const task = tasks.ok ? tasks.tasks.find((t) => labelOf(t) === name) : undefined;
    if (task) return this.fromTasksJson(task, name);
    const script = name.startsWith('npm: ') ? name.slice(5).trim() : name;
    if (scripts.includes(script)) return { kind: 'task', command: `npm run ${shellQuote(script)}` };
    if (!tasks.ok) return { kind: 'cannot-run', reason: `.vscode/tasks.json cannot be read (${tasks.reason}), and no package.json script is named "${script}"` };
    const available = [...tasks.tasks.map(labelOf).filter((l): l is string => !!l), ...scripts.map((s) => `npm: ${s}`)];
    return { kind: 'not-found', available };
  }

  private fromTasksJson(raw: RawTask, name: string): ResolvedTask | Extract<TaskRunResult, { kind: 'cannot-run' }> {
    const platformKey = process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'osx' : 'linux';
    const task: RawTask = { ...raw, ...(isObject(raw[platformKey]) ? (raw[platformKey] as RawTask) : {}) };
    const cannot = (reason: string) => ({ kind: 'cannot-run' as const, reason: `task "${name}" ${reason}; run it in VS Code` });
    if (task.dependsOn !== undefined) return cannot('runs other tasks first (dependsOn), which only VS Code schedules');
    const options = isObject(task.options) ? task.options : {};
    const env: Record<string, string> = {};
    if (isObject(options.env)) {
      for (const [k, v] of Object.entries(options.env)) if (typeof v === 'string') env[k] = v;
    }
    const type = typeof task.type === 'string' ? task.type : 'process';
    let command: string;
    let args: string[] | undefined;
    if (type === 'npm') {
      if (typeof task.script !== 'string') return cannot('is an npm task without a script');
      command = `npm run ${shellQuote(task.script)}`;
      if (typeof task.path === 'string' && options.cwd === undefined) options.cwd = task.path;
    } else if (type === 'shell' || type === 'process') {
      if (typeof task.command !== 'string') return cannot('has no command');
      const taskArgs = Array.isArray(task.args) ? task.args.map((a) => (typeof a === 'string' ? a : isObject(a) && typeof a.value === 'string' ? a.value : undefined)) : [];
      if (taskArgs.some((a) => a === undefined)) return cannot('has arguments in a form only VS Code reads');
      if (type === 'shell') command = [task.command, ...(taskArgs as string[]).map(shellQuote)].join(' ');
      else {
        command = task.command;
        args = taskArgs as string[];
      }
    } else return cannot(`is of type "${type}", which only VS Code can run`);
    const unknownVariable = [command, ...(args ?? []), ...(typeof options.cwd === 'string' ? [options.cwd] : []), ...Object.values(env)].map((v) => this.unknownVariable(v)).find(Boolean);
    if (unknownVariable) return cannot(`uses \${${unknownVariable}}, which only VS Code knows`);
    const sub = (v: string) => this.substitute(v);
    const cwd = typeof options.cwd === 'string' ? sub(options.cwd) : undefined;
    const finalEnv = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, sub(v)]));
    return { kind: 'task', command: sub(command), ...(args ? { args: args.map(sub) } : {}), ...(cwd ? { cwd } : {}), ...(Object.keys(finalEnv).length ? { env: finalEnv } : {}) };
  }

  private variables(): Record<string, string> {
    const root = this.workspaceRoot;
    return { workspaceFolder: root, workspaceRoot: root, workspaceFolderBasename: path.basename(root), cwd: root, pathSeparator: path.sep, '/': path.sep };
  }

  /** The first `${…}` in `value` that cannot be filled in outside VS Code. */
  private unknownVariable(value: string): string | undefined {
    const known = this.variables();
    for (const m of value.matchAll(/\$\{([^}]+)\}/g)) {
      const variable = m[1]!;
      const env = /^env:(.+)$/.exec(variable);
      if (!(variable in known) && !(env && !isSecretVariable(env[1]!, process.env[env[1]!]))) return variable;
    }
    return undefined;
  }

  private substitute(value: string): string {
    const known = this.variables();
    return value.replace(/\$\{([^}]+)\}/g, (whole, variable: string) => {
      if (variable in known) return known[variable]!;
      const env = /^env:(.+)$/.exec(variable);
      return env ? (process.env[env[1]!] ?? '') : whole;
    });
  }

  private async tasksJson(): Promise<{ ok: true; tasks: RawTask[] } | { ok: false; reason: string }> {
    let text: string;
    try {
      // Only a regular file is read: a FIFO in its place would hang the check.
      const read = await readRegularText(path.join(this.workspaceRoot, '.vscode', 'tasks.json'), { shown: '.vscode/tasks.json' });
      if (!read.ok) return read.reason === 'absent' ? { ok: true, tasks: [] } : { ok: false, reason: read.message };
      text = read.text;
    } catch {
      return { ok: true, tasks: [] };
    }
    const parsed = parseJsonc(text);
    if (!parsed.ok) return { ok: false, reason: parsed.reason };
    const tasks = isObject(parsed.value) && Array.isArray(parsed.value.tasks) ? parsed.value.tasks.filter(isObject) : [];
    return { ok: true, tasks };
  }

  private async npmScripts(): Promise<string[]> {
    try {
      const read = await readRegularText(path.join(this.workspaceRoot, 'package.json'));
      if (!read.ok) return [];
      const manifest: unknown = JSON.parse(read.text);
      return isObject(manifest) && isObject(manifest.scripts) ? Object.keys(manifest.scripts) : [];
    } catch {
      return [];
    }
  }
}

export interface ResolvedTask {
  kind: 'task';
  command: string;
  /** With args: a program run without a shell (a `process` task). */
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
}

type RawTask = Record<string, unknown> & { options?: Record<string, unknown> };

function labelOf(task: RawTask): string | undefined {
  return typeof task.label === 'string' ? task.label : typeof task.taskName === 'string' ? task.taskName : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
