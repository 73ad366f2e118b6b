import type { VerificationMethod } from '../../model';
import { engine } from '../engine';
import type { ProposedCriterion } from '../../app/done-gate';
import { ToolInputError } from './tool-text';

export interface ProposedEdit {
  /** The PRD's whole text with the criteria, the new criteria_version and a LOG entry. */
  readonly after: string;
  readonly added: readonly string[];
  /** The criteria lines as they will be written. */
  readonly lines: readonly string[];
  readonly version: number;
}

/**
 * The criteria added to a PRD as a new criteria version, or a refusal that says why and
 * writes nothing (the PRD has errors, a Verify spec is wrong, the result would not parse).
 * Pure apart from the engine bundle: prepareInvocation shows it, invoke writes it.
 */
export function proposeEdit(text: string, relative: string, criteria: readonly ProposedCriterion[], today: string): ProposedEdit {
  const e = engine();
  const problems = (diagnostics: readonly { severity: string; line: number; message: string }[]) => diagnostics.filter((d) => d.severity === 'error').map((d) => `${relative}:${d.line + 1}: ${d.message}`);
  const { document, diagnostics } = e.checkPrd(text);
  const errors = problems(diagnostics);
  if (errors.length > 0) throw new ToolInputError([`${relative} has errors; fix them before adding criteria`, ...errors].join('\n'));
  const edits: Parameters<typeof e.applyEdits>[1][number][] = [];
  for (const [i, c] of criteria.entries()) {
    let verify: VerificationMethod | undefined;
    if (c.verify !== undefined && c.verify.trim() !== '') {
      const colon = c.verify.indexOf(':');
      const spec = e.parseVerifySpec(colon < 0 ? c.verify : c.verify.slice(0, colon), colon < 0 ? undefined : c.verify.slice(colon + 1).trim(), c.text);
      if (!spec.ok) throw new ToolInputError(`criteria[${i}].verify: ${spec.message}`);
      verify = spec.method;
    }
    edits.push({ kind: 'addCriterion', anti: c.anti === true, criterion: { text: c.text, source: 'INFERRED', ...(c.priority ? { priority: c.priority } : {}), ...(verify ? { verify } : {}) } });
  }
  const version = (document.meta.criteriaVersion ?? 1) + 1;
  const withCriteria = e.applyEdits(document, [...edits, { kind: 'setFrontmatter', key: 'criteria_version', value: version }]);
  const checked = e.checkPrd(withCriteria);
  const newErrors = problems(checked.diagnostics);
  if (newErrors.length > 0) throw new ToolInputError(['these criteria would make the PRD invalid; nothing written', ...newErrors].join('\n'));
  const before = new Set(document.criteria.map((c) => c.id));
  const added = checked.document.criteria.filter((c) => !before.has(c.id));
  const after = e.applyEdits(withCriteria, [
    {
      kind: 'appendLog',
      entry: { iteration: document.meta.iteration ?? 0, date: today, phase: 'PLAN', criteria: `criteria version ${version}`, work: `Added ${added.map((c) => c.id).join(', ')} through the ideal-state_propose_criteria tool, confirmed by the user`, failing: [] },
    },
  ]);
  return { after, added: added.map((c) => c.id), lines: added.map((c) => checked.document.source.lines[c.line]!.text), version };
}
