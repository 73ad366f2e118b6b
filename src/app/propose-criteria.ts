import type { VerificationMethod } from '../model';
import { applyEdits, checkPrd, formatDiagnostic, parseVerifySpec, type PrdDiagnostic, type PrdEdit } from '../prd';
import type { ProposedCriterion } from './done-gate';

/** Criteria an agent proposed, ready to write: or why they cannot be, with nothing written. */
export type CriteriaProposal =
  | {
      ok: true;
      /** The PRD's whole text with the criteria, the new `criteria_version` and a LOG entry. */
      after: string;
      /** The new criteria's ids and their lines as they will be written (what the user confirms). */
      added: string[];
      lines: string[];
      /** The criteria version they make, and the one the PRD has now. */
      version: number;
      previousVersion: number;
    }
  | { ok: false; message: string };

/**
 * The one way an agent adds criteria to a PRD (ideal-state_propose_criteria, from the MCP
 * server and from the editor): as a new criteria version with a LOG entry saying `through`
 * what, refused with the reason when the PRD has errors, a Verify spec is wrong, or the
 * result would not parse.
 */
export function proposeCriteria(text: string, relative: string, criteria: readonly ProposedCriterion[], options: { today: string; through: string }): CriteriaProposal {
  const errorsOf = (diagnostics: readonly PrdDiagnostic[]) => diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(relative, d));
  const { document, diagnostics } = checkPrd(text);
  const errors = errorsOf(diagnostics);
  if (errors.length > 0) return { ok: false, message: [`${relative} has errors; fix them before adding criteria`, ...errors].join('\n') };
  if (criteria.length === 0) return { ok: false, message: 'no criteria to add' };
  const edits: PrdEdit[] = [];
  for (const [i, c] of criteria.entries()) {
    let verify: VerificationMethod | undefined;
    if (c.verify !== undefined && c.verify.trim() !== '') {
      const colon = c.verify.indexOf(':');
      const spec = parseVerifySpec(colon < 0 ? c.verify : c.verify.slice(0, colon), colon < 0 ? undefined : c.verify.slice(colon + 1).trim(), c.text);
      if (!spec.ok) return { ok: false, message: `criteria[${i}].verify: ${spec.message}` };
      verify = spec.method;
    }
    edits.push({ kind: 'addCriterion', anti: c.anti === true, criterion: { text: c.text, source: 'INFERRED', ...(c.priority ? { priority: c.priority } : {}), ...(verify ? { verify } : {}) } });
  }
  const previousVersion = document.meta.criteriaVersion ?? 1;
  const version = previousVersion + 1;
  const withCriteria = applyEdits(document, [...edits, { kind: 'setFrontmatter', key: 'criteria_version', value: version }]);
  const checked = checkPrd(withCriteria);
  const newErrors = errorsOf(checked.diagnostics);
  if (newErrors.length > 0) return { ok: false, message: ['these criteria would make the PRD invalid; nothing written', ...newErrors].join('\n') };
  const before = new Set(document.criteria.map((c) => c.id));
  const added = checked.document.criteria.filter((c) => !before.has(c.id));
  const after = applyEdits(withCriteria, [
    {
      kind: 'appendLog',
      entry: { iteration: document.meta.iteration ?? 0, date: options.today, phase: 'PLAN', criteria: `criteria version ${version}`, work: `Added ${added.map((c) => c.id).join(', ')} through ${options.through}, confirmed by the user`, failing: [] },
    },
  ]);
  return { ok: true, after, added: added.map((c) => c.id), lines: added.map((c) => checked.document.source.lines[c.line]!.text), version, previousVersion };
}
