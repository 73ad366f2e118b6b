import type { TaskRunResult } from '../types';
import { fail, pass, quoted, unknown, type MethodOf, type VerifierContext, type Verdict } from '../verdict';
import { WorkspaceTaskRunner } from '../workspace-tasks';
import { cancelled } from './cancelled';
import { notApproved, runShell } from './cli';

/**
 * TASK: a workspace task passes when its process exits 0. In the editor the host's
 * TaskRunner runs it (vscode.tasks); outside, WorkspaceTaskRunner runs shell, process and
 * npm tasks and package.json scripts, and reports the rest as UNKNOWN.
 */
export async function verifyTask(method: MethodOf<'TASK'>, ctx: VerifierContext): Promise<Verdict> {
  if (!ctx.commandsApproved.approved) return notApproved(`task: ${method.task}`, ctx.commandsApproved.reason);
  const runner = ctx.host.tasks ?? new WorkspaceTaskRunner(ctx.host.workspaceRoot, ctx.host.processes, ctx.host.linkedRoot ? [ctx.host.linkedRoot] : []);
  const timeoutMs = method.timeoutMs ?? ctx.timeoutMs;
  return taskVerdict(method.task, await runner.run(method.task, { signal: ctx.signal, timeoutMs }), timeoutMs);
}

/**
 * TEST: a task name or a test command. A name the task runner knows runs as a task;
 * anything else runs as a shell command in the workspace folder.
 */
export async function verifyTest(method: MethodOf<'TEST'>, ctx: VerifierContext): Promise<Verdict> {
  if (!ctx.commandsApproved.approved) return notApproved(method.test, ctx.commandsApproved.reason);
  const timeoutMs = method.timeoutMs ?? ctx.timeoutMs;
  if (ctx.host.tasks) {
    const result = await ctx.host.tasks.run(method.test, { signal: ctx.signal, timeoutMs });
    if (result.kind !== 'not-found') return taskVerdict(method.test, result, timeoutMs);
  } else {
    const runner = new WorkspaceTaskRunner(ctx.host.workspaceRoot, ctx.host.processes, ctx.host.linkedRoot ? [ctx.host.linkedRoot] : []);
    if (await runner.has(method.test)) return taskVerdict(method.test, await runner.run(method.test, { signal: ctx.signal, timeoutMs }), timeoutMs);
  }
  return runShell(method.test, undefined, timeoutMs, ctx);
}

function taskVerdict(name: string, result: TaskRunResult, timeoutMs: number): Verdict {
  const what = `task "${name}"`;
  const repair = `Task "${name}" exits 0`;
  const output = 'output' in result && result.output?.trim() ? `\n${result.output.trimEnd()}` : '';
  switch (result.kind) {
    case 'exited':
      return result.exitCode === 0
        ? pass(`${what} exited 0${output}`, { actual: 'exit 0', threshold: 'exit 0' })
        : fail('REQUIREMENT_COVERAGE', `${what} exited ${result.exitCode}${output}`, repair, { actual: `exit ${result.exitCode}`, threshold: 'exit 0' });
    case 'not-found':
      return fail('REQUIREMENT_COVERAGE', `there is no task ${quoted(name)}; tasks here: ${result.available.length > 0 ? result.available.join(', ') : 'none'}`, `A workspace task named "${name}" exists and exits 0`);
    case 'cannot-run':
      return unknown('UNSUPPORTED_CLAIM', `${what} cannot run here: ${result.reason}`, `${repair} where it can run (e.g. in VS Code)`);
    case 'timeout':
      return fail('EXECUTION_ERROR', `${what} did not finish within ${(timeoutMs / 1000).toFixed(1)} s and was stopped${output}`, `${repair} within ${(timeoutMs / 1000).toFixed(0)} s`, { actual: 'timeout', threshold: `exit 0 within ${timeoutMs} ms` });
    case 'signalled':
      return fail('EXECUTION_ERROR', `${what} was killed by ${result.signal}${output}`, repair, { actual: result.signal, threshold: 'exit 0' });
    case 'cancelled':
      throw cancelled();
  }
}
