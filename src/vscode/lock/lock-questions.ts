import type { LockedPrd } from '../../app/gate';
import { candidateSummary, type LockCandidate } from '../../app/gate/lock-choice';
import { undecidableLines, type Undecidable } from '../../app/gate/undecidable';
import type { LockQuestion } from './lock-dialogs';

export const LOCK_CHOICE = 'Lock';

/** Which PRD to lock, when none is in view: one choice, newest first, each with its criteria count and state. */
export function pickQuestion(candidates: readonly LockCandidate[]): LockQuestion {
  return {
    kind: 'pick',
    message: 'Which PRD do you lock? An agent under the done gate is then held to its criteria.',
    detail: '',
    choices: candidates.map((c) => c.relative),
    items: candidates.map((c) => ({
      relative: c.relative,
      label: `${c.finished ? '$(pass) ' : ''}${c.relative.split('/').pop() ?? c.relative}`,
      description: candidateSummary(c),
      detail: c.finished ? `${c.relative} — finished: the gate holds it only if you lock it` : c.relative,
    })),
  };
}

/**
 * The modal for one PRD: only its criteria, its protected inputs, and the CRITICAL criteria the
 * done gate cannot decide. `describe` is the gate's own description of a lock (describeLock),
 * the one the terminal shows too.
 */
export function lockQuestion(p: LockedPrd, describe: (p: LockedPrd) => string, notes: { undecidable: readonly Undecidable[]; warnings: readonly string[] }): LockQuestion {
  const count = p.criteria.length;
  const message = `Lock ${count} criteri${count === 1 ? 'on' : 'a'} of ${p.path}? An agent under the done gate is then held to them as they are now; only you can approve a change.`;
  const undecidable = undecidableLines(notes.undecidable);
  const detail = [describe(p), ...(undecidable.length > 0 ? [undecidable.join('\n')] : []), ...notes.warnings.map((w) => `warning: ${w}`)].join('\n\n');
  return { kind: 'lock', message, detail, choices: [LOCK_CHOICE] };
}
