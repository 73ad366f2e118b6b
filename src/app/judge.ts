import { Verdict } from '../algorithm/outputs';
import type { EventDraft } from '../algorithm/context';
import { verifierMessages } from '../algorithm/prompts';
import type { RoleFile } from '../algorithm/roles';
import type { AuditorView } from '../algorithm/views';
import type { EffortLevel, Outcome } from '../model';
import { demoText } from '../llm/check-model-text';
import type { ModelRouter } from '../llm/router';
import { cacheFieldsOf, usageToRunEvent, type UsageRecord } from '../llm/usage';
import type { CriterionJudge } from '../verify/types';

/**
 * The one judge of CUSTOM criteria: the verifier role (shipped, or the workspace's
 * `roles/verifier.yaml` when trusted) asked through the model router, its answer a zod
 * `Verdict`, its spending counted. VERIFY, Verify Criteria, the Testing view and re-verify
 * all judge with it. Its prompt is built from the auditor view alone (prompts.ts
 * `verifierMessages`), so the decisions log and other candidates cannot reach it.
 */
export class VerifierJudge implements CriterionJudge {
  readonly label: string;
  /** A scripted demo as the verifier answers its one request only: it is never asked for a verdict. */
  readonly declines?: string;

  constructor(
    private readonly models: Pick<ModelRouter, 'generateObject' | 'route'>,
    private readonly role: RoleFile,
    private readonly level: EffortLevel,
    private readonly onUsage?: (usage: UsageRecord) => void,
  ) {
    const model = models.route('verifier', level);
    this.label = `verifier (${model.displayName})`;
    if (model.demo !== undefined) this.declines = `the verifier is ${model.displayName}, a ${demoText(model.demo)}; to judge Custom criteria, choose a real model ("Ideal State: Select Model", or a models file)`;
  }

  async judge(view: AuditorView, signal: AbortSignal): Promise<{ outcome: Outcome; evidence: string; confidence?: number }> {
    // The verifier reads `declines` first; a caller that does not is still never given a script's wrong step as a verdict.
    if (this.declines !== undefined) return { outcome: 'UNKNOWN', evidence: `no model judges this criterion: ${this.declines}` };
    const result = await this.models.generateObject('verifier', this.level, {
      name: 'verdict',
      schema: Verdict,
      messages: verifierMessages(this.role, view),
      phase: 'VERIFY',
      signal,
      maxOutputTokens: this.role.policy.maxOutputTokens,
    });
    for (const u of result.usage) this.onUsage?.(u);
    return { outcome: result.value.outcome, evidence: result.value.evidence, ...(result.value.confidence !== undefined ? { confidence: result.value.confidence } : {}) };
  }
}

/** What one verdict cost, as a run event of the VERIFY node (tokens, money, time). */
export function judgeUsageEvent(usage: UsageRecord): EventDraft {
  const e = usageToRunEvent(usage, { runId: '', seq: 0, at: '', role: 'verifier', purpose: 'VERIFY: verdict' });
  return { kind: 'model', message: e.message, role: 'verifier', model: e.model, inputTokens: e.inputTokens, outputTokens: e.outputTokens, ...cacheFieldsOf(e), costUsd: e.costUsd, durationMs: e.durationMs };
}
