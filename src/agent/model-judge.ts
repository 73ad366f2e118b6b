import { Verdict } from '../core/algorithm/outputs';
import { verifierMessages } from '../core/algorithm/prompts';
import type { RoleFile } from '../core/algorithm/roles';
import type { AuditorView } from '../core/algorithm/views';
import type { EffortLevel, Outcome } from '../core/model';
import type { ModelRouter } from '../llm/router';
import type { UsageRecord } from '../llm/usage';

/**
 * The verifier role as the verification engine's judge for CUSTOM criteria. Its prompt is
 * built from the auditor view alone (prompts.ts `verifierMessages`): the judge is handed
 * nothing else, so the decisions log and other candidates cannot reach it.
 */
export class ModelJudge {
  readonly label: string;

  constructor(
    private readonly models: Pick<ModelRouter, 'generateObject' | 'route'>,
    private readonly role: RoleFile,
    private readonly level: EffortLevel,
    private readonly onUsage?: (usage: UsageRecord) => void,
  ) {
    this.label = `verifier (${models.route('verifier', level).displayName})`;
  }

  async judge(view: AuditorView, signal: AbortSignal): Promise<{ outcome: Outcome; evidence: string; confidence?: number }> {
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
