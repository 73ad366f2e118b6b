import { redact } from '../../llm/errors';
import type { RunCommandResult } from '../run-command';
import { fail, pass, quoted, unknown, type Verdict } from '../verdict';

/**
 * A finished command as a verdict: exit 0 passes; any other exit fails; a timeout or a
 * crash fails as an execution error; a command that could not start is UNKNOWN. The
 * evidence is a one-line summary, then the tail of the output (key-shaped strings redacted).
 * Cancellation is not a verdict: the engine reports it as the set's CancelledError.
 */
export function commandVerdict(what: string, result: Exclude<RunCommandResult, { kind: 'cancelled' }>, repairTarget: string): Verdict {
  const seconds = (result.durationMs / 1000).toFixed(1);
  const output = result.output.trim() === '' ? '' : `\n${result.droppedBytes > 0 ? `… (${result.droppedBytes} earlier bytes of output not kept)\n` : ''}${redact(result.output.trimEnd())}`;
  const last = lastLine(result.output);
  switch (result.kind) {
    case 'exited':
      return result.exitCode === 0
        ? pass(`${what} exited 0 in ${seconds} s${last ? `: ${last}` : ''}${output}`, { actual: 'exit 0', threshold: 'exit 0' })
        : fail('REQUIREMENT_COVERAGE', `${what} exited ${result.exitCode} in ${seconds} s${last ? `: ${last}` : ''}${output}`, repairTarget, { actual: `exit ${result.exitCode}`, threshold: 'exit 0' });
    case 'signalled':
      return fail('EXECUTION_ERROR', `${what} was killed by ${result.signal} after ${seconds} s${output}`, repairTarget, { actual: result.signal, threshold: 'exit 0' });
    case 'timeout':
      return fail('EXECUTION_ERROR', `${what} did not finish within ${(result.timeoutMs / 1000).toFixed(1)} s and was stopped with every process it started${output}`, `${repairTarget}, within ${(result.timeoutMs / 1000).toFixed(0)} s`, {
        actual: 'timeout',
        threshold: `exit 0 within ${result.timeoutMs} ms`,
      });
    case 'spawn-failed':
      return unknown('EXECUTION_ERROR', `${what} could not be started: ${result.reason}`, `${repairTarget} (it must be able to start here)`);
  }
}

function lastLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const l = lines.at(-1) ?? '';
  return redact(l.length > 160 ? `${l.slice(0, 160)}…` : l);
}

export function commandRepair(command: string, where: string): string {
  return `${quoted(command)} exits 0 in ${where}`;
}
