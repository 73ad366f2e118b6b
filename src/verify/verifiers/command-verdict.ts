import type { RunCommandResult } from '../run-command';
import { redactEvidence } from '../secret-env';
import { fail, pass, quoted, unknown, type Verdict } from '../verdict';

/**
 * A finished command as a verdict: exit 0 passes; any other exit fails; a timeout or a
 * crash fails as an execution error; a command that could not start is UNKNOWN. The
 * evidence is a one-line summary, then the tail of the output, redacted before it is cut (a
 * credential cut in half has lost the shape that finds it), and without the partial token
 * where the tail begins.
 * Cancellation is not a verdict: the engine reports it as the set's CancelledError.
 */
export function commandVerdict(what: string, result: Exclude<RunCommandResult, { kind: 'cancelled' }>, repairTarget: string): Verdict {
  const seconds = (result.durationMs / 1000).toFixed(1);
  const kept = redactEvidence(result.droppedBytes > 0 ? withoutCutToken(result.output) : result.output);
  const output = kept.text.trim() === '' ? '' : `\n${result.droppedBytes > 0 ? `… (${result.droppedBytes} earlier bytes of output not kept)\n` : ''}${kept.text.trimEnd()}`;
  const last = lastLine(kept.text);
  const redactions = kept.count > 0 ? { redactions: kept.count } : {};
  switch (result.kind) {
    case 'exited':
      return result.exitCode === 0
        ? pass(`${what} exited 0 in ${seconds} s${last ? `: ${last}` : ''}${output}`, { actual: 'exit 0', threshold: 'exit 0', ...redactions })
        : fail('REQUIREMENT_COVERAGE', `${what} exited ${result.exitCode} in ${seconds} s${last ? `: ${last}` : ''}${output}`, repairTarget, { actual: `exit ${result.exitCode}`, threshold: 'exit 0', ...redactions });
    case 'signalled':
      return fail('EXECUTION_ERROR', `${what} was killed by ${result.signal} after ${seconds} s${output}`, repairTarget, { actual: result.signal, threshold: 'exit 0', ...redactions });
    case 'timeout':
      return fail('EXECUTION_ERROR', `${what} did not finish within ${(result.timeoutMs / 1000).toFixed(1)} s and was stopped with every process it started${output}`, `${repairTarget}, within ${(result.timeoutMs / 1000).toFixed(0)} s`, {
        actual: 'timeout',
        threshold: `exit 0 within ${result.timeoutMs} ms`,
        ...redactions,
      });
    case 'spawn-failed':
      return unknown('EXECUTION_ERROR', `${what} could not be started: ${result.reason}`, `${repairTarget} (it must be able to start here)`);
  }
}

function lastLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const l = lines.at(-1) ?? '';
  return l.length > 160 ? `${l.slice(0, 160)}…` : l;
}

/**
 * A tail's first characters up to the first one no token holds (blank, NUL, quote, comma,
 * semicolon): the rest of a credential whose beginning was not kept, which no shape finds.
 */
export function withoutCutToken(tail: string): string {
  const at = tail.search(/[\s\0"',;]/);
  return at < 0 ? '' : tail.slice(at);
}

export function commandRepair(command: string, where: string): string {
  return `${quoted(command)} exits 0 in ${where}`;
}
