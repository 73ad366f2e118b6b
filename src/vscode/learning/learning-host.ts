import * as vscode from 'vscode';
import { describeError } from '../../model/errors';
import type { LearningService, RateResult } from '../../learning';
import type { Logger } from '../../model/log';
import type { Settings } from '../../model/settings';
import type { LanguageModel } from '../../llm/types';
import { engine } from '../engine';
import type { ModelsHost } from '../models/models-host';
import { VscodeLmModel } from '../models/vscode-lm-model';
import type { StoreHost } from '../store-host';

/**
 * The LEARN side of the editor: one LearningService over the workspace store, the model
 * the user chose (for implied ratings and the manager's reflection), and one change event
 * that the Ratings view, the Reflections tree and the status bar follow.
 */
export class LearningHost implements vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChange = this._onDidChange.event;
  private runActive = false;

  constructor(
    private readonly stores: StoreHost,
    private readonly models: ModelsHost,
    private readonly settings: Settings,
    readonly log: Logger,
    private readonly version: string,
  ) {}

  async service(): Promise<LearningService> {
    const store = await this.stores.get();
    return new (engine().LearningService)(store, { version: this.version });
  }

  /** True while a run is going; the status bar then leaves the place to the run's phase. */
  get isRunActive(): boolean {
    return this.runActive;
  }

  /** For the engine: a run started (true) or ended (false). */
  setRunActive(active: boolean): void {
    this.runActive = active;
    this._onDidChange.fire();
  }

  /** Ratings or reflections changed (a rating, an import, a mining, a run's reflection). */
  changed(): void {
    this._onDidChange.fire();
  }

  /**
   * The model chosen in "Select Model" (`idealState.models.default`), if it can be used
   * now; undefined otherwise, and then comments stay comments and reflections are fact-based.
   */
  async chosenModel(): Promise<LanguageModel | undefined> {
    const id = this.settings.get('defaultModel');
    if (!id) return undefined;
    try {
      if (id.startsWith('vscode-lm:')) {
        const [chat] = await vscode.lm.selectChatModels({ id: id.slice('vscode-lm:'.length) });
        return chat ? new VscodeLmModel({ id, providerId: 'vscode-lm', modelClass: 'frontier', selector: chat.id }, chat) : undefined;
      }
      const slot = (await this.models.load()).slots.get(id);
      return slot?.ok ? slot.model : undefined;
    } catch (error) {
      this.log.warn(`the chosen model could not be loaded: ${describeError(error)}`);
      return undefined;
    }
  }

  /**
   * Why no model reads a rating from a comment, for the rating forms: the model selected is a
   * scripted demo (it reads no comments), or no model is chosen.
   */
  async noModelWhy(): Promise<string> {
    const selected = await this.models.selected().catch(() => undefined);
    return engine().noCommentReader(selected?.ok ? selected : undefined);
  }

  /** Rates a finished run, writes its reflection, and tells every view. */
  async rate(runId: string, input: { rating?: number; text?: string }, signal?: AbortSignal): Promise<RateResult> {
    const learning = await this.service();
    const result = await learning.rateRun(runId, input, await this.chosenModel(), signal);
    this.log.info(
      `${runId}: ${result.rating ? `rated ${result.rating.rating}/10 (${result.rating.type})` : `comment kept without a rating: ${result.commentOnly}`}` +
        `${result.reflection ? `; reflection by ${result.reflection.author ?? 'manager'}${result.reflectionFallback ? ` (${result.reflectionFallback})` : ''}` : ''}`,
    );
    this.changed();
    return result;
  }

  dispose(): void {
    this._onDidChange.dispose();
  }
}
