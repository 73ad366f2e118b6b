import type { RunLearning } from './ports';
import type { EffortLevel } from '../model';
import type { LanguageModel } from '../llm/types';
import { metered, type UsageRecord } from '../llm/usage';
import { answerOffers, type ChooseLearned } from '../learning/memory';
import type { LearningService } from '../learning/service';

/** What the run waits for while the learned-criteria pick is open ("waiting for your answer: …"). */
export const LEARNED_QUESTION = 'your answer: keep learned criteria?';

/** PAI mines its reflections after every tenth run. */
export const MINE_EVERY_RUNS = 10;

export interface RunLearningOptions {
  /** The manager's model at a level, for the reflection; undefined or throwing: a labelled fact-based one. */
  readonly managerModel?: (level: EffortLevel) => LanguageModel | undefined;
  /** Told after a reflection or mining changed what the views show. */
  readonly onChange?: () => void;
  /** Asks the person which learned criteria to keep (the editor's quick pick); unset: all are kept. */
  readonly chooseLearned?: ChooseLearned;
}

/** The engine's learning port over the LearningService (the command line and the editor both use it). */
export function runLearning(service: LearningService, options: RunLearningOptions = {}): RunLearning {
  return {
    memoryFor: async (request, signal, asking) => {
      signal.throwIfAborted();
      const choose = options.chooseLearned;
      // The person's reading time is waiting, never the run's budget.
      const timed: ChooseLearned | undefined = choose && (async (offers, s) => {
        const answered = asking?.begin(LEARNED_QUESTION);
        try {
          return await choose(offers, s);
        } finally {
          answered?.();
        }
      });
      return answerOffers(service.memoryFor(request), timed, signal);
    },
    afterRun: async (run, signal, onModelCall) => {
      const done: string[] = [];
      let model: LanguageModel | undefined;
      try {
        model = options.managerModel?.(run.effort);
      } catch {
        model = undefined;
      }
      // The reflection is a model call of the run like any other: its tokens and dollars are the run's.
      if (model && onModelCall) model = meteredModel(model, onModelCall);
      const reflected = await service.reflectAfterRun(run.id, model, signal);
      if (reflected) {
        const r = reflected.reflection;
        done.push(`reflection ${r.id} written by ${r.author === 'facts' ? `the run's facts${reflected.fallbackReason ? ` (${reflected.fallbackReason})` : ''}` : 'the manager'}`);
      } else {
        done.push(`no reflection below STANDARD (this run was ${run.effort})`);
      }
      const finished = service.finishedRuns().length;
      if (finished > 0 && finished % MINE_EVERY_RUNS === 0) {
        const themes = service.mine();
        done.push(`mined ${themes.length} theme(s) from the reflections after ${finished} finished runs`);
      }
      if (reflected || done.length > 1) options.onChange?.();
      return done;
    },
  };
}

/** The model with each call's usage record handed to `onCall`. */
function meteredModel(model: LanguageModel, onCall: (usage: UsageRecord) => void): LanguageModel {
  return Object.assign(Object.create(model) as LanguageModel, {
    chat: async (request: Parameters<LanguageModel['chat']>[0]) => {
      const { result, usage } = await metered(model, () => model.chat(request));
      onCall(usage);
      return result;
    },
  });
}
