import * as vscode from 'vscode';
import type { Logger } from '../../core/log';
import type { Outcome } from '../../core/model';
import type { Settings } from '../../core/settings';
import type { LanguageModel } from '../../llm/types';
import type { AuditorView, CriterionJudge } from '../../verify/types';
import type { ModelsHost } from '../models/models-host';
import { VscodeLmModel } from '../models/vscode-lm-model';

/** Where the CUSTOM judge comes from: the model chosen with "Select Model", if it can be used now. */
export interface JudgeSource {
  judge(): Promise<CriterionJudge | undefined>;
}

const OUTCOMES: readonly Outcome[] = ['PASS', 'FAIL', 'PARTIAL', 'UNKNOWN'];

/**
 * CUSTOM criteria are judged by the model set in `idealState.models.default`. With none
 * set (or one that cannot be used now) there is no judge, and the engine answers UNKNOWN
 * saying so: no model is ever picked behind the user's back.
 */
export class ModelJudgeSource implements JudgeSource {
  constructor(
    private readonly models: ModelsHost,
    private readonly settings: Settings,
    private readonly log: Logger,
  ) {}

  async judge(): Promise<CriterionJudge | undefined> {
    const chosen = this.settings.get('defaultModel').trim();
    if (!chosen) return undefined;
    let model: LanguageModel | undefined;
    if (chosen.startsWith('vscode-lm:')) {
      const id = chosen.slice('vscode-lm:'.length);
      const [chat] = await vscode.lm.selectChatModels({ id });
      if (chat) model = new VscodeLmModel({ id: chosen, providerId: 'vscode-lm', modelClass: 'frontier', selector: id }, chat);
    } else {
      const slot = (await this.models.load()).slots.get(chosen);
      if (slot?.ok) model = slot.model;
      else if (slot) this.log.info(`model ${chosen} cannot judge CUSTOM criteria now: ${slot.reason}`);
    }
    return model ? new ModelJudge(model) : undefined;
  }
}

/** Asks the model for a verdict on one criterion from the auditor view only (DESIGN §5). */
export class ModelJudge implements CriterionJudge {
  constructor(private readonly model: LanguageModel) {}

  get label(): string {
    return this.model.displayName;
  }

  async judge(view: AuditorView, signal: AbortSignal): Promise<{ outcome: Outcome; evidence: string; confidence?: number }> {
    const response = await this.model.chat({
      signal,
      temperature: 0,
      maxOutputTokens: 400,
      messages: [
        {
          role: 'system',
          content:
            'You are a verifier. Judge whether the criterion holds, using only what you are shown. Never propose fixes. ' +
            'Answer with one JSON object and nothing else: {"outcome": "PASS" | "FAIL" | "PARTIAL" | "UNKNOWN", "evidence": "<one or two sentences>", "confidence": <0..1>}. ' +
            'Say UNKNOWN when what you are shown cannot decide it.',
        },
        { role: 'user', content: JSON.stringify({ criterion: view.criterion, criteriaVersion: view.criteriaVersion, candidate: view.candidate, earlierResults: view.earlierResults }) },
      ],
    });
    return parseVerdict(response.text);
  }
}

/** A reply that is not a verdict is UNKNOWN with what was wrong, never a pass. */
export function parseVerdict(text: string): { outcome: Outcome; evidence: string; confidence?: number } {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  try {
    const value = JSON.parse(json ?? '') as { outcome?: unknown; evidence?: unknown; confidence?: unknown };
    const outcome = typeof value.outcome === 'string' ? (value.outcome.toUpperCase() as Outcome) : undefined;
    if (!outcome || !OUTCOMES.includes(outcome)) return { outcome: 'UNKNOWN', evidence: 'the model gave no outcome of PASS, FAIL, PARTIAL or UNKNOWN' };
    const evidence = typeof value.evidence === 'string' ? value.evidence.trim() : '';
    if (!evidence) return { outcome: 'UNKNOWN', evidence: `the model said ${outcome} without evidence` };
    const confidence = typeof value.confidence === 'number' && value.confidence >= 0 && value.confidence <= 1 ? value.confidence : undefined;
    return { outcome, evidence, ...(confidence !== undefined ? { confidence } : {}) };
  } catch {
    return { outcome: 'UNKNOWN', evidence: 'the model did not answer with a JSON verdict' };
  }
}
