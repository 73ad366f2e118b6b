import type { RateResult } from '../../learning';
import type { RequestResult, TableRating } from '../../../webviews/isc-table/protocol';
import type { LearningHost } from './learning-host';

/** Why a comment stayed a comment, in the words the views use. */
export function keptWhy(modelAvailable: boolean): string {
  return modelAvailable ? 'the model could not read a rating from it' : 'no model to read a rating from it';
}

/** What a rating came to, in one sentence for the table and the Ratings view. */
export function rateMessage(result: RateResult): RequestResult {
  if (!result.rating) return { ok: true, message: `Kept as a comment; ${result.commentOnly ?? 'no rating was read from it'}. You can still choose a number.` };
  const reflection = result.reflection ? (result.reflection.author === 'facts' ? ' Reflection written from the run’s facts (no model).' : ' The manager wrote a reflection.') : '';
  return { ok: true, message: `Rated ${result.rating.rating}/10${result.rating.type === 'implicit' ? ' (read from your comment)' : ''}.${reflection}` };
}

/**
 * The ISC table's "How did this go?": the same LearningHost path as the Ratings view, so a
 * rating given in one place shows in the other, in the ★ status bar and in the reflection.
 */
export class TableRatings {
  constructor(private readonly host: LearningHost) {}

  async state(runId: string): Promise<TableRating> {
    const learning = await this.host.service();
    const modelAvailable = (await this.host.chosenModel()) !== undefined;
    const noModel = modelAvailable ? {} : { noModel: await this.host.noModelWhy() };
    const run = learning.finishedRuns().find((r) => r.id === runId);
    if (!run) return { open: false, modelAvailable, ...noModel };
    const rating = learning.ratingOf(runId);
    const kept = rating ? undefined : learning.keptComment(runId);
    return {
      open: true,
      modelAvailable,
      ...noModel,
      ...(rating ? { rating: { value: rating.rating, type: rating.type, ...(rating.comment ? { comment: rating.comment } : {}) } } : {}),
      ...(kept ? { kept: { comment: kept.comment, why: keptWhy(modelAvailable) } } : {}),
    };
  }

  async rate(runId: string, params: { rating?: unknown; comment?: unknown }): Promise<RequestResult> {
    const { rating, comment } = params;
    if ((rating !== undefined && (typeof rating !== 'number' || !Number.isInteger(rating) || rating < 1 || rating > 10)) || typeof comment !== 'string') {
      return { ok: false, message: 'A rating is a whole number from 1 to 10, with an optional comment.' };
    }
    if (rating === undefined && !comment.trim()) return { ok: false, message: 'Choose a rating from 1 to 10, or write a comment.' };
    try {
      return rateMessage(await this.host.rate(runId, { ...(rating !== undefined ? { rating } : {}), text: comment }));
    } catch (error) {
      return { ok: false, message: error instanceof Error ? error.message : 'The rating could not be saved.' };
    }
  }
}
