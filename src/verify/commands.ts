import type { AnyCriterion } from '../model/criterion';
import { methodCommand } from '../model/verification-method';
import { parseStaticCheck } from './verifiers/static';
import type { VerifyHost } from './types';

/**
 * Every command a criterion set would run, as the user sees it in the approval prompt:
 * CLI commands, TEST arguments (a task name or a command), `task: <name>` for TASK, and
 * a STATIC criterion's command when the diagnostics cannot answer. In set order, once each.
 */
export function commandsOf(criteria: readonly AnyCriterion[], host: Pick<VerifyHost, 'diagnostics'>): string[] {
  const out: string[] = [];
  for (const c of criteria) {
    const command = commandOf(c, host);
    if (command !== undefined && !out.includes(command)) out.push(command);
  }
  return out;
}

export function commandOf(criterion: AnyCriterion, host: Pick<VerifyHost, 'diagnostics'>): string | undefined {
  const m = criterion.verify;
  if (m?.type === 'STATIC' && host.diagnostics && parseStaticCheck(m.check)) return undefined;
  return m ? methodCommand(m) : undefined;
}
