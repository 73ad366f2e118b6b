// Pure (no editor imports): the words VS Code's Testing view and Test Results show for a
// criterion's result, unit-tested in plain Node.
import type { CriterionResult } from '../../model';
import { outcomeLabel, verdictLabel } from '../../model/labels';
import type { TestItemState } from '../../model/verdict';

/** Where a message line is wrapped: Test Results shows a message in a narrow column and breaks a long line mid-word. */
const LINE = 72;
/**
 * Where an output line is wrapped: Test Results shows a test's output in a terminal, which breaks
 * a line at its width, mid-word ("verif / ier"); the panel beside the results tree is about 45
 * columns wide by default.
 */
const OUTPUT_LINE = 40;

/**
 * A not-passing criterion's message: the verdict in the product's words on the first line (the
 * line Test Results shows in its tree, so short), then the evidence and what must become true,
 * wrapped at spaces. Never a raw code (UNKNOWN, UNSUPPORTED_CLAIM): the codes stay in files.
 */
export function testMessageText(result: Pick<CriterionResult, 'outcome' | 'evidence' | 'repairTarget' | 'failureLabel'>, state: TestItemState): string {
  const lines = [`${capital(verdictLabel(result.outcome, result.failureLabel))}`, ...wrap(result.evidence)];
  if (result.repairTarget) lines.push(...wrap(`Must become true: ${result.repairTarget}`));
  // A CRITICAL criterion with no verdict stops the PRD passing: say why it is red, not skipped.
  if (state === 'errored') lines.push(...wrap(`A critical criterion must pass: ${outcomeLabel(result.outcome)} is not a pass.`));
  return lines.join('\n');
}

/** The output of a criterion shown as skipped (no verdict, not CRITICAL): "ISC-3 — no verdict: the check could not run: …", in short lines. */
export function skippedOutputText(criterionId: string, result: Pick<CriterionResult, 'outcome' | 'evidence' | 'failureLabel'>): string {
  return wrap(`${criterionId} — ${verdictLabel(result.outcome, result.failureLabel)}: ${result.evidence}`, OUTPUT_LINE).join('\n');
}

/** A verification that could not run at all, for every criterion it left without a result. */
export function verifyFailedText(reason: string): string {
  return ['Not verified', ...wrap(reason)].join('\n');
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Lines of at most `width` characters, broken at spaces (a longer word stays whole on its own line). */
export function wrap(text: string, width = LINE): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) {
        out.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    if (line) out.push(line);
  }
  return out;
}
