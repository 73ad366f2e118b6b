import * as vscode from 'vscode';
import type { RatingsProtocol, RatingsSnapshot } from '../../../webviews/ratings/protocol';
import { WebviewBridge, WebviewRequestRefused, webviewHtml, webviewOptions } from '../webview';
import type { LearningHost } from './learning-host';
import { keptWhy, rateMessage } from './table-rating';

export const RATINGS_VIEW_ID = 'idealState.ratings';
const HISTORY_POINTS = 60;

/**
 * The sidebar's Ratings webview view. The view owns nothing: on every (re)load it says
 * `ready` and gets a full snapshot; after a rating, an import or a finished run it gets
 * a new one. No retained context: hiding the view costs nothing, state comes back.
 */
export class RatingsViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private bridge: WebviewBridge<RatingsProtocol> | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly extensionUri: vscode.Uri, private readonly host: LearningHost) {
    this.subscription = host.onDidChange(() => void this.push());
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    view.webview.options = webviewOptions(this.extensionUri);
    view.webview.html = webviewHtml(view.webview, this.extensionUri, { entry: 'ratings', title: 'Ideal State Ratings' });
    const bridge = new WebviewBridge<RatingsProtocol>(
      view.webview,
      {
        rate: async ({ runId, rating, comment }) => {
          if (typeof runId !== 'string' || (rating !== undefined && (!Number.isInteger(rating) || rating < 1 || rating > 10)) || typeof comment !== 'string') {
            throw new WebviewRequestRefused('A rating is a whole number from 1 to 10.', 'bad-request');
          }
          try {
            const result = await this.host.rate(runId, { ...(rating !== undefined ? { rating } : {}), text: comment });
            return { rated: result.rating !== undefined, message: rateMessage(result).message };
          } catch (error) {
            throw new WebviewRequestRefused(error instanceof Error ? error.message : 'The rating could not be saved.');
          }
        },
      },
      this.host.log,
    );
    this.bridge = bridge;
    const ready = bridge.onDidBecomeReady(() => void this.push());
    view.onDidDispose(() => {
      ready.dispose();
      bridge.dispose();
      if (this.bridge === bridge) this.bridge = undefined;
    });
  }

  /** What the view shows now: the run to rate, the figures, the history with effort levels. */
  async snapshot(): Promise<RatingsSnapshot> {
    const learning = await this.host.service();
    const run = learning.lastUnratedRun();
    const facts = run ? learning.facts(run.id) : undefined;
    const effortOf = new Map<string, string>();
    const ratings = learning.ratings().slice(-HISTORY_POINTS);
    for (const r of ratings) if (r.runId && !effortOf.has(r.runId)) effortOf.set(r.runId, learning.facts(r.runId)?.effort ?? 'imported');
    const figures = learning.figures();
    const modelAvailable = (await this.host.chosenModel()) !== undefined;
    const kept = learning.keptComments().map((k) => ({ ...k, request: learning.facts(k.runId)?.request ?? k.runId, why: keptWhy(modelAvailable) }));
    return {
      ...(run && facts
        ? {
            ask: {
              runId: run.id,
              request: run.request,
              effort: run.effort,
              state: run.state,
              finishedAt: facts.finishedAt,
              criteriaPassed: facts.criteria.filter((c) => c.outcome === 'PASS').length,
              criteriaCount: facts.criteria.length,
              ...(facts.comment ? { comment: facts.comment } : {}),
            },
          }
        : {}),
      figures: { count: figures.count, trend: figures.trend, ...(figures.rollingAverage !== undefined ? { rollingAverage: figures.rollingAverage } : {}) },
      history: ratings.map((r) => ({
        timestamp: r.timestamp,
        rating: r.rating,
        type: r.type,
        effort: (r.runId && effortOf.get(r.runId)) || 'imported',
        ...(r.runId ? { runId: r.runId } : {}),
        ...(r.comment ? { comment: r.comment } : {}),
      })),
      modelAvailable,
      ...(modelAvailable ? {} : { noModel: await this.host.noModelWhy() }),
      ...(kept.length > 0 ? { kept } : {}),
    };
  }

  private async push(): Promise<void> {
    const bridge = this.bridge;
    if (!bridge?.ready) return;
    try {
      bridge.post('snapshot', await this.snapshot());
    } catch (error) {
      this.host.log.error(`ratings view: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.bridge?.dispose();
  }
}
