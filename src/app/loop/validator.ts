import type { ModelRouter } from '../../llm/router';
import type { AnyCriterion, CriterionResult, EffortLevel } from '../../model';
import { describeError, isCancellation } from '../../model/errors';
import type { LoopFailure, ValidatorVerdict } from '../../model/loop';
import type { RoleFile } from '../../algorithm/roles';
import { VerifierJudge } from '../judge';
import { clip, hasModel, type ArtifactVerification } from './verify-artifact';

export interface ValidatorDecision {
  readonly verdict: ValidatorVerdict;
  /** Who decided, for the notice. */
  readonly by: string;
  readonly failures: readonly LoopFailure[];
}

const CANDIDATE_CHARS = 6000;

/**
 * The validator of the builder–validator pair: the `verifier` role, routed through the model
 * router (a different model from the builder's where routing names one), sees only the
 * auditor view of one artifact — each criterion, the candidate file as it is now, the sub-run's
 * summary and the mechanical results attached as evidence — and judges each criterion.
 * It approves only when it gives no FAIL or PARTIAL. With no model for the role, or one that
 * cannot answer, it is not consulted and says so, and the edit is not kept: never an approval
 * it did not give.
 */
export async function validateArtifact(input: {
  readonly file: string;
  readonly text: string | undefined;
  readonly runId: string;
  readonly summary: string;
  readonly criteria: readonly AnyCriterion[];
  readonly mechanical: ArtifactVerification;
  readonly models: ModelRouter;
  readonly role: RoleFile;
  readonly level: EffortLevel;
  readonly signal: AbortSignal;
}): Promise<ValidatorDecision> {
  const { models, level } = input;
  if (!hasModel(models, 'verifier', level)) return { verdict: 'not-consulted', by: 'no validator (no model for the verifier role; the validator was not consulted)', failures: [] };
  const judge = new VerifierJudge(models, input.role, level);
  const byId = new Map(input.mechanical.results.map((r) => [r.criterionId, r]));
  const candidate = {
    id: input.runId,
    summary: clip(input.summary, 400),
    evidence: [input.text === undefined ? `${input.file} does not exist` : `${input.file} as it is now:\n${clip(input.text, CANDIDATE_CHARS)}`],
  };
  const failures: LoopFailure[] = [];
  try {
    for (const criterion of input.criteria) {
      const earlier: CriterionResult[] = byId.has(criterion.id) ? [byId.get(criterion.id)!] : [];
      const v = await judge.judge({ criterion, criteriaVersion: 1, candidate, earlierResults: earlier }, input.signal);
      if (v.outcome === 'FAIL' || v.outcome === 'PARTIAL') failures.push({ criterionId: criterion.id, outcome: v.outcome, evidence: clip(v.evidence, 300), repairTarget: `${input.file}: ${criterion.text}` });
    }
  } catch (error) {
    if (isCancellation(error) || input.signal.aborted) throw error;
    return { verdict: 'not-consulted', by: `no validator (the validator ${judge.label} could not answer: ${describeError(error)})`, failures: [] };
  }
  return { verdict: failures.length === 0 ? 'approved' : 'rejected', by: `validator ${judge.label}`, failures };
}

/** The mechanical verification's non-PASS results as a notice's failures, each with its repair target. */
export function mechanicalFailures(file: string, criteria: readonly AnyCriterion[], v: ArtifactVerification): LoopFailure[] {
  return criteria
    .filter((c) => v.outcomes[c.id] !== 'PASS')
    .map((c) => {
      const r = v.results.find((x) => x.criterionId === c.id);
      return { criterionId: c.id, outcome: v.outcomes[c.id] ?? 'UNKNOWN', evidence: v.evidence[c.id] ?? '', repairTarget: r?.repairTarget ?? `${file}: ${c.text}` };
    });
}
