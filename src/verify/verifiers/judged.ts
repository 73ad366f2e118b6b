import { redact } from '../../llm/errors';
import type { CriterionResult, FailureLabel, Outcome } from '../../model';
import type { AuditorView } from '../types';
import { fail, pass, unknown, type MethodOf, type VerifierContext, type Verdict } from '../verdict';
import { cancelled } from './cancelled';

/** What the verifier may show a judge beyond the criterion (never the manager's decisions). */
export interface AuditorContext {
  criteriaVersion: number;
  candidate?: AuditorView['candidate'];
  earlierResults: CriterionResult[];
}

/**
 * CUSTOM: a model judge with the auditor view only. No judge configured: UNKNOWN saying so.
 * A judge's FAIL or PARTIAL is REQUIREMENT_COVERAGE (CONSTRAINT_VIOLATION for an
 * anti-criterion); its UNKNOWN stays UNKNOWN.
 */
export async function verifyCustom(_method: MethodOf<'CUSTOM'>, ctx: VerifierContext, auditor: AuditorContext): Promise<Verdict> {
  const judge = ctx.host.judge;
  const state = stateOf(ctx);
  if (!judge) return unknown('UNSUPPORTED_CLAIM', 'no model configured to judge this criterion (Custom needs one: Select Model, or a models file)', state);
  if (judge.declines !== undefined) return unknown('UNSUPPORTED_CLAIM', `no model judges this criterion: ${judge.declines}`, state);
  const view: AuditorView = {
    criterion: ctx.criterion,
    criteriaVersion: auditor.criteriaVersion,
    ...(auditor.candidate ? { candidate: auditor.candidate } : {}),
    earlierResults: auditor.earlierResults.filter((r) => r.criterionId === ctx.criterion.id),
  };
  let answer;
  try {
    answer = await judge.judge(view, ctx.signal);
  } catch (error) {
    if (ctx.signal.aborted) throw cancelled();
    return unknown('EXECUTION_ERROR', `the judge (${judge.label}) could not answer: ${redact(error instanceof Error ? error.message : String(error))}`, state);
  }
  if (ctx.signal.aborted) throw cancelled();
  return judged(`${judge.label}: ${answer.evidence}`, answer.outcome, ctx);
}

/** BROWSER: runs only where a browser runner is configured; otherwise UNKNOWN. */
export async function verifyBrowser(method: MethodOf<'BROWSER'>, ctx: VerifierContext): Promise<Verdict> {
  const browser = ctx.host.browser;
  if (!browser) return unknown('UNSUPPORTED_CLAIM', 'no browser runner is configured, so this scenario cannot be run here', stateOf(ctx));
  let answer;
  try {
    answer = await browser.run(method.scenario, { signal: ctx.signal, timeoutMs: ctx.timeoutMs });
  } catch (error) {
    if (ctx.signal.aborted) throw cancelled();
    return unknown('EXECUTION_ERROR', `the browser runner failed: ${redact(error instanceof Error ? error.message : String(error))}`, stateOf(ctx));
  }
  if (ctx.signal.aborted) throw cancelled();
  return judged(answer.evidence, answer.outcome, ctx);
}

function judged(evidence: string, outcome: Outcome, ctx: VerifierContext): Verdict {
  const anti = ctx.criterion.kind === 'anti-criterion';
  const label: FailureLabel = anti ? 'CONSTRAINT_VIOLATION' : 'REQUIREMENT_COVERAGE';
  switch (outcome) {
    case 'PASS':
      return pass(evidence);
    case 'UNKNOWN':
      return unknown('UNSUPPORTED_CLAIM', evidence, stateOf(ctx));
    case 'PARTIAL':
      return { ...fail(label, evidence, stateOf(ctx)), outcome: 'PARTIAL' };
    case 'FAIL':
      return fail(label, evidence, stateOf(ctx));
  }
}

/** The state that must become true is the criterion's own statement. */
function stateOf(ctx: VerifierContext): string {
  return ctx.criterion.text;
}
