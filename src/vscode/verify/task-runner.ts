import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { TaskRunner, TaskRunResult } from '../../verify/types';

/**
 * TASK and TEST criteria through `vscode.tasks`: tasks.json tasks and auto-detected ones
 * (npm scripts, …), found by name ("build") or as the Run Task list shows them
 * ("npm: build"). Passes on the task process's exit code. A task that runs twice at once
 * makes VS Code ask the user, so runs of one task wait for each other.
 */
export class EditorTaskRunner implements TaskRunner {
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(private readonly log: Logger) {}

  async run(name: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<TaskRunResult> {
    const tasks = await vscode.tasks.fetchTasks();
    const task = findTask(tasks, name);
    if (!task) return { kind: 'not-found', available: [...new Set(tasks.map(label))].sort() };
    const key = label(task);
    const previous = this.running.get(key) ?? Promise.resolve();
    const mine = previous.then(() => this.execute(task, options));
    const settled = mine.catch(() => undefined);
    this.running.set(key, settled);
    void settled.then(() => {
      if (this.running.get(key) === settled) this.running.delete(key);
    });
    return mine;
  }

  private async execute(task: vscode.Task, { signal, timeoutMs }: { signal: AbortSignal; timeoutMs: number }): Promise<TaskRunResult> {
    if (signal.aborted) return { kind: 'cancelled' };
    const name = label(task);
    // Listen before starting: a quick task can end before executeTask resolves.
    const ended: { execution: vscode.TaskExecution; exitCode: number | undefined }[] = [];
    const endedTasks: vscode.TaskExecution[] = [];
    let wake: () => void = () => undefined;
    const disposables = [
      vscode.tasks.onDidEndTaskProcess((e) => {
        ended.push({ execution: e.execution, exitCode: e.exitCode });
        wake();
      }),
      vscode.tasks.onDidEndTask((e) => {
        endedTasks.push(e.execution);
        wake();
      }),
    ];
    let execution: vscode.TaskExecution | undefined;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => wake();
    signal.addEventListener('abort', onAbort);
    try {
      execution = await vscode.tasks.executeTask(task);
      this.log.info(`task "${name}" started`);
      let timedOut = false;
      timer = setTimeout(() => {
        timedOut = true;
        wake();
      }, timeoutMs);
      for (;;) {
        const processEnd = ended.find((e) => e.execution === execution);
        if (processEnd) {
          if (processEnd.exitCode === undefined) return { kind: 'cannot-run', reason: `task "${name}" ended without an exit code` };
          this.log.info(`task "${name}" exited with ${processEnd.exitCode}`);
          return { kind: 'exited', exitCode: processEnd.exitCode };
        }
        if (endedTasks.includes(execution)) {
          // The task ended but no process end arrived (yet): give the event a moment, then say why.
          await new Promise((r) => setTimeout(r, 250));
          const late = ended.find((e) => e.execution === execution);
          if (late?.exitCode !== undefined) return { kind: 'exited', exitCode: late.exitCode };
          return { kind: 'cannot-run', reason: `task "${name}" ended without a process exit code (a custom or background task?)` };
        }
        if (signal.aborted) {
          execution.terminate();
          this.log.info(`task "${name}" stopped: verification cancelled`);
          return { kind: 'cancelled' };
        }
        if (timedOut) {
          execution.terminate();
          this.log.info(`task "${name}" stopped after ${timeoutMs} ms`);
          return { kind: 'timeout', timeoutMs };
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } catch (error) {
      if (execution) throw error;
      return { kind: 'cannot-run', reason: `task "${name}" could not start: ${error instanceof Error ? error.message : String(error)}` };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      for (const d of disposables) d.dispose();
    }
  }
}

/** How the Run Task list shows a task: "npm: build" for detected ones, the bare label for tasks.json ones. */
function label(task: vscode.Task): string {
  return isWorkspaceTask(task) ? task.name : `${task.source}: ${task.name}`;
}

function isWorkspaceTask(task: vscode.Task): boolean {
  return task.source === 'Workspace' || task.source === 'workspace';
}

/** An exact label wins, then a tasks.json task by name, then a detected task by name. */
function findTask(tasks: readonly vscode.Task[], name: string): vscode.Task | undefined {
  const wanted = name.trim();
  return (
    tasks.find((t) => label(t) === wanted) ??
    tasks.find((t) => isWorkspaceTask(t) && t.name === wanted) ??
    tasks.find((t) => t.name === wanted) ??
    tasks.find((t) => label(t).toLowerCase() === wanted.toLowerCase())
  );
}
