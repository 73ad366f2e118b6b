import type { Outcome } from '../model';
import { applyEdits, type PrdEdit } from './edit';
import type { PrdDocument } from './model';
import { parsePrd } from './parse';

export interface OutcomeWriteOptions {
  /** The LOG entry's date, `YYYY-MM-DD`. */
  date: string;
  /** Where the verification ran, for the LOG entry's Work line (e.g. "ideal-state verify", "VS Code"). */
  by?: string;
}

/**
 * Writes verification outcomes back into a PRD, as both the editor command and
 * `ideal-state verify --write` do: each verified criterion's checkbox becomes checked on
 * PASS and unchecked otherwise, and one LOG entry records the counts and the ids that did
 * not pass. Only those lines change (applyEdits is line-local); results for ids the PRD
 * does not have are left out.
 */
export function writeOutcomes(prd: PrdDocument | string, results: readonly { criterionId: string; outcome: Outcome }[], options: OutcomeWriteOptions): string {
  const doc = typeof prd === 'string' ? parsePrd(prd) : prd;
  const ids = new Set(doc.criteria.map((c) => c.id));
  const known = results.filter((r) => ids.has(r.criterionId));
  const edits: PrdEdit[] = known.map((r) => ({ kind: 'setChecked', id: r.criterionId, checked: r.outcome === 'PASS' }));
  const count = (o: Outcome) => known.filter((r) => r.outcome === o).length;
  const parts = (['PASS', 'FAIL', 'PARTIAL', 'UNKNOWN'] as const).filter((o) => count(o) > 0).map((o) => `${count(o)} ${o}`);
  edits.push({
    kind: 'appendLog',
    entry: {
      iteration: doc.meta.iteration ?? 0,
      date: options.date,
      phase: 'VERIFY',
      criteria: `${count('PASS')}/${known.length} passing`,
      work: `Verified ${known.length} criteria${options.by ? ` with ${options.by}` : ''}: ${parts.join(', ') || 'none'}`,
      failing: known.filter((r) => r.outcome === 'FAIL' || r.outcome === 'PARTIAL').map((r) => r.criterionId),
      unknown: known.filter((r) => r.outcome === 'UNKNOWN').map((r) => r.criterionId),
    },
  });
  return applyEdits(doc, edits);
}
