import { methodCommand, type VerificationMethod } from '../model';
import { applyEdits, checkPrd, formatDiagnostic, parseVerifySpec, type NewCriterion, type PrdDiagnostic, type PrdEdit } from '../prd';
import type { ProposedCriterion } from './done-gate';

/** At most this many criteria in one proposal (an agent that needs more asks again). */
export const MAX_PROPOSED_CRITERIA = 50;
/** A criterion is 8–12 words; these bound what one field may hold. */
export const MAX_PROPOSED_TEXT = 500;
export const MAX_PROPOSED_VERIFY = 1000;

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
      /** The commands the new criteria would run (as the approval prompt names them), by criterion id. */
      commands: { id: string; command: string }[];
    }
  | { ok: false; message: string };

/**
 * Why a free-text field cannot go into a PRD line, or undefined when it can: a line break
 * (CR, LF, NEL, U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR) would start a line the
 * preview never showed, and other control characters hide what is written.
 */
export function freeTextProblem(field: string, value: string): string | undefined {
  const m = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.exec(value);
  if (!m) return undefined;
  const code = `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const what = /[\n\r\u0085\u2028\u2029]/.test(m[0]) ? 'a line or paragraph break' : 'a control character';
  return `${field} holds ${what} (${code}) at character ${m.index + 1}; a criterion is one line of plain text: remove it`;
}

/** Every problem of a proposal (at most MAX_PROPOSED_CRITERIA a call, as the MCP tool takes), each naming its field; empty when it can be proposed. */
export function proposalProblems(criteria: readonly ProposedCriterion[]): string[] {
  const count = criteria.length > MAX_PROPOSED_CRITERIA ? [`criteria: ${criteria.length} criteria in one proposal, over the ${MAX_PROPOSED_CRITERIA} one call may add; propose fewer at a time`] : [];
  return [...count, ...fieldProblems(criteria.slice(0, MAX_PROPOSED_CRITERIA))];
}

/** Each field that cannot be one line of a PRD, naming it (criteria[2].verify …). */
export function fieldProblems(criteria: readonly ProposedCriterion[]): string[] {
  const problems: string[] = [];
  if (criteria.length === 0) problems.push('criteria: no criteria to add');
  for (const [i, c] of criteria.entries()) {
    if (c.text.length > MAX_PROPOSED_TEXT) problems.push(`criteria[${i}].text: ${c.text.length} characters, over ${MAX_PROPOSED_TEXT}; a criterion is one short checkable statement`);
    if (c.verify !== undefined && c.verify.length > MAX_PROPOSED_VERIFY) problems.push(`criteria[${i}].verify: ${c.verify.length} characters, over ${MAX_PROPOSED_VERIFY}`);
    for (const [field, value] of [
      ['text', c.text],
      ['verify', c.verify],
    ] as const) {
      const problem = value === undefined ? undefined : freeTextProblem(`criteria[${i}].${field}`, value);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}

/**
 * The one way an agent adds criteria to a PRD (ideal-state_propose_criteria, from the MCP
 * server and from the editor): as a new criteria version with a LOG entry saying `through`
 * what and `accepted` how (who agreed: a person on a terminal, the client's dialog, the
 * editor's modal), refused with the reason when a field is not one line of plain text, the
 * PRD has errors, a Verify spec is wrong, or the result would not parse. All criteria go in
 * as one edit per section, so the cost grows with the PRD and the proposal, not their product.
 */
export function proposeCriteria(text: string, relative: string, criteria: readonly ProposedCriterion[], options: { today: string; through: string; accepted?: string }): CriteriaProposal {
  const refused = fieldProblems(criteria);
  if (refused.length > 0) return { ok: false, message: refused.join('\n') };
  const errorsOf = (diagnostics: readonly PrdDiagnostic[]) => diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(relative, d));
  const { document, diagnostics } = checkPrd(text);
  const errors = errorsOf(diagnostics);
  if (errors.length > 0) return { ok: false, message: [`${relative} has errors; fix them before adding criteria`, ...errors].join('\n') };
  const plain: NewCriterion[] = [];
  const anti: NewCriterion[] = [];
  for (const [i, c] of criteria.entries()) {
    let verify: VerificationMethod | undefined;
    if (c.verify !== undefined && c.verify.trim() !== '') {
      const colon = c.verify.indexOf(':');
      const spec = parseVerifySpec(colon < 0 ? c.verify : c.verify.slice(0, colon), colon < 0 ? undefined : c.verify.slice(colon + 1).trim(), c.text);
      if (!spec.ok) return { ok: false, message: `criteria[${i}].verify: ${spec.message}` };
      verify = spec.method;
    }
    (c.anti === true ? anti : plain).push({ text: c.text, source: 'INFERRED', ...(c.priority ? { priority: c.priority } : {}), ...(verify ? { verify } : {}) });
  }
  const edits: PrdEdit[] = [];
  if (plain.length > 0) edits.push({ kind: 'addCriteria', criteria: plain });
  if (anti.length > 0) edits.push({ kind: 'addCriteria', criteria: anti, anti: true });
  const previousVersion = document.meta.criteriaVersion ?? 1;
  const version = previousVersion + 1;
  const withCriteria = applyEdits(document, [...edits, { kind: 'setFrontmatter', key: 'criteria_version', value: version }]);
  const checked = checkPrd(withCriteria);
  const newErrors = errorsOf(checked.diagnostics);
  if (newErrors.length > 0) return { ok: false, message: ['these criteria would make the PRD invalid; nothing written', ...newErrors].join('\n') };
  const before = new Set(document.criteria.map((c) => c.id));
  const added = checked.document.criteria.filter((c) => !before.has(c.id));
  if (added.length !== criteria.length) return { ok: false, message: `these criteria would add ${added.length} criteria to ${relative}, not the ${criteria.length} proposed; nothing written` };
  const after = applyEdits(withCriteria, [
    {
      kind: 'appendLog',
      entry: { iteration: document.meta.iteration ?? 0, date: options.today, phase: 'PLAN', criteria: `criteria version ${version}`, work: `Added ${added.map((c) => c.id).join(', ')} through ${options.through}, ${options.accepted ?? 'confirmed by the user'}`, failing: [] },
    },
  ]);
  const commands = added.flatMap((c) => {
    const command = c.verify ? methodCommand(c.verify) : undefined;
    return command === undefined ? [] : [{ id: c.id, command }];
  });
  return { ok: true, after, added: added.map((c) => c.id), lines: added.map((c) => checked.document.source.lines[c.line]!.text), version, previousVersion, commands };
}
