import type { EffortSpec } from '../model';
import type { GateName } from './phase-graph';
import type { AlgorithmState } from '../model/algorithm-state';

export type GateResult = { ok: true } | { ok: false; problems: string[] };

const VAGUE = /\b(should|maybe|might|possibly|properly|appropriately|nice|good|better|etc|various|some|user-friendly|as needed|if possible)\b/i;

/**
 * The gate of each phase: what the node's output must satisfy before the
 * run moves on. A refusal lists every problem, so the role can be told exactly what to fix.
 */
export function checkGate(gate: GateName, state: AlgorithmState, level: EffortSpec): GateResult {
  const problems = GATE_CHECKS[gate](state, level);
  return problems.length === 0 ? { ok: true } : { ok: false, problems };
}

/** Why a criterion's text is not one testable binary statement (THINK's gate); empty when it is. */
export function untestable(text: string): string[] {
  const words = text.trim().split(/\s+/).length;
  const out: string[] = [];
  if (words < 3 || words > 20) out.push(`has ${words} words; a criterion is one binary statement of 3–20 words`);
  if (text.includes('?')) out.push('is a question, not a testable statement');
  if (VAGUE.test(text)) out.push(`uses a vague word ("${VAGUE.exec(text)![0]}"); say what is observably true`);
  return out;
}

const GATE_CHECKS: Record<GateName, (state: AlgorithmState, level: EffortSpec) => string[]> = {
  'min-criteria': ({ criteria }, level) => {
    // Anti-criteria count: they are criteria the verifier must prove too.
    const count = criteria.length;
    // A run with nothing to verify can never be proven complete, whatever the level allows.
    const min = Math.max(1, level.minCriteria);
    if (count < min) return [`${count} criteria; this effort level needs at least ${min}`];
    if (count > level.maxCriteria) return [`${count} criteria; this effort level allows at most ${level.maxCriteria}`];
    return [];
  },
  testable: ({ criteria }) => criteria.flatMap((c) => untestable(c.text).map((p) => `${c.id} ${p}`)),
  covered: ({ criteria, packets, memo }) => {
    const known = new Set(criteria.map((c) => c.id));
    const out: string[] = [];
    for (const p of packets) for (const id of p.criterionIds) if (!known.has(id)) out.push(`packet "${p.title}" owns ${id}, which is not a criterion`);
    for (const c of criteria) if (!(memo.coverage[c.id]?.length)) out.push(`${c.id} is owned by no packet and not waived`);
    return out;
  },
  specific: ({ criteria }) =>
    criteria.flatMap((c) => {
      const v = c.verify;
      if (!v) return [`${c.id} has no verification method`];
      if (v.type === 'GREP') {
        try {
          new RegExp(v.pattern);
        } catch {
          return [`${c.id}: GREP pattern "${v.pattern}" is not a valid regular expression`];
        }
      }
      if (v.type === 'READ' && (/^([\\/]|[A-Za-z]:)/.test(v.path) || v.path.split(/[\\/]/).includes('..'))) return [`${c.id}: READ path "${v.path}" must be inside the workspace`];
      if (v.type === 'CUSTOM' && v.description.trim().split(/\s+/).length < 3) return [`${c.id}: a CUSTOM check needs a description a judge can apply`];
      return [];
    }),
  'final-status': ({ criteria }) => criteria.filter((c) => !['DONE', 'BLOCKED', 'ADJUSTED'].includes(c.status) || c.claim).map((c) => `${c.id} is ${c.status}${c.claim ? `, claimed by ${c.claim.by}` : ''}`),
  report: ({ criteria, report, run }) => {
    if (!report || report.iteration !== run.iteration) return ['no verification report for this iteration'];
    const have = new Set(report.results.map((r) => r.criterionId));
    return criteria.filter((c) => !have.has(c.id)).map((c) => `${c.id} has no result in the report`);
  },
  none: () => [],
};

/**
 * The criteria a gate that just passed vouches for, which the PRD may then show:
 * all of them when it is the review gate (`testable`, THINK's); in a phase graph without that
 * gate, those whose text passes its check. Undefined: this gate does not review criteria.
 */
export function reviewedBy(gate: GateName, state: AlgorithmState, graphReviews: boolean): string[] | undefined {
  if (gate === 'testable') return state.criteria.map((c) => c.id);
  if (graphReviews) return undefined;
  return state.criteria.filter((c) => untestable(c.text).length === 0).map((c) => c.id);
}
