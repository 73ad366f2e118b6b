import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { IscTableProtocol, RequestResult, ShownTable, TableDelta, TableSnapshot } from '../../../webviews/isc-table/protocol';
import type { TableRatings } from '../learning/table-rating';
import { WebviewPanelHost, WebviewRequestRefused } from '../webview';
import type { PanelHandlers } from '../webview/panel';
import { tableDeltas } from './snapshot';
import type { TableLocks } from './table-lock';
import type { TableSteering } from './table-steering';

export const ISC_TABLE_VIEW_TYPE = 'idealState.iscTable';

/** What the panel posted, for the editor's tests: the message kind and, for a delta, what it carried. */
export interface SentMessage {
  type: 'snapshot' | TableDelta['type'];
  rows: number;
}

/**
 * One run's ISC table. On every (re)load of the view it sends a snapshot; afterwards each
 * refresh sends only the deltas between what the view has and the run as it is now.
 */
export class IscTablePanel implements vscode.Disposable {
  private readonly host: WebviewPanelHost<IscTableProtocol>;
  readonly onDidDispose: vscode.Event<void>;
  private shownSnapshot: TableSnapshot | undefined;
  /** The rating the view shows (JSON), so it is sent only when it changed. */
  private shownRating: string | undefined;
  private refreshing: Promise<void> = Promise.resolve();
  private readonly handlers: PanelHandlers<IscTableProtocol>;
  readonly sent: SentMessage[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly runId: string,
    extensionUri: vscode.Uri,
    private readonly load: (runId: string) => Promise<TableSnapshot | undefined>,
    steering: TableSteering,
    private readonly log: Logger,
    private readonly ratings?: TableRatings,
    locks?: TableLocks,
  ) {
    const act = async <T>(action: () => Promise<T>): Promise<T> => {
      try {
        return await action();
      } finally {
        this.refresh();
      }
    };
    this.handlers = {
      reverify: ({ ids }) => act(() => steering.reverify(runId, ids)),
      editCriterion: ({ id, text }) => {
        if (typeof id !== 'string' || typeof text !== 'string') throw new WebviewRequestRefused('an edit needs a criterion id and its text', 'bad-request');
        return act(() => steering.edit(runId, id, text));
      },
      openLocation: (location) => steering.openLocation(runId, location),
      openPrd: () => steering.openPrd(runId),
      decide: ({ approvalId, answer }) => {
        if (typeof approvalId !== 'string') throw new WebviewRequestRefused('a decision needs the approval\'s id', 'bad-request');
        return act(() => steering.control.decide(runId, approvalId, answer));
      },
      showDiff: ({ approvalId }) => {
        if (typeof approvalId !== 'string') throw new WebviewRequestRefused('Show Diff needs the approval\'s id', 'bad-request');
        // Beside the table, not over it: the code's column when the table is beside it.
        return steering.control.showDiff(runId, approvalId, panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One);
      },
      control: ({ action }) =>
        act(() => {
          if (action === 'cancel') return steering.control.cancel(runId);
          if (action === 'resume') return steering.control.resume(runId);
          if (action === 'rate') return steering.rate(runId);
          throw new WebviewRequestRefused(`no action "${String(action)}"`, 'bad-request');
        }),
      rateRun: (params) => (ratings ? act(() => ratings.rate(runId, params)) : Promise.resolve({ ok: false, message: 'Rating is not available here.' })),
      // The criteria lock of the run's PRD: each asks in a modal (CriteriaLocks), then the badge is read again.
      lockCriteria: () => (locks ? act(() => locks.lock(runId)) : Promise.resolve({ ok: false, message: 'The criteria lock is not available here.' })),
      approveCriteria: () => (locks ? act(() => locks.approve(runId)) : Promise.resolve({ ok: false, message: 'The criteria lock is not available here.' })),
      acceptProposal: ({ id }) => {
        if (typeof id !== 'string') throw new WebviewRequestRefused('a proposal needs its id', 'bad-request');
        return locks ? act(() => locks.acceptProposal(runId, id)) : Promise.resolve({ ok: false, message: 'Criteria proposals are not available here.' });
      },
      revertCriterion: ({ id }) => {
        if (typeof id !== 'string') throw new WebviewRequestRefused('Revert needs a criterion id', 'bad-request');
        return locks ? act(() => locks.revert(runId, id)) : Promise.resolve({ ok: false, message: 'The criteria lock is not available here.' });
      },
    };
    this.host = new WebviewPanelHost<IscTableProtocol>(panel, extensionUri, { entry: 'isc-table', title: 'ISC table' }, this.handlers, log);
    this.onDidDispose = this.host.onDidDispose;
    this.host.own(
      // A (re)loaded view has nothing: it gets the whole table, then deltas.
      this.host.bridge.onDidBecomeReady(() => {
        this.shownSnapshot = undefined;
        this.shownRating = undefined;
        this.refresh();
      }),
    );
  }

  /** Brings the view up to date with as little as it needs; refreshes never overlap. */
  refresh(): void {
    this.refreshing = this.refreshing.then(() => this.update()).catch((error: unknown) => this.log.error(`refreshing the ISC table of ${this.runId} failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** Resolves when every refresh asked so far is done. */
  settled(): Promise<void> {
    return this.refreshing;
  }

  private async update(): Promise<void> {
    if (!this.host.ready) return;
    const next = await this.load(this.runId);
    if (!next) {
      this.panel.title = `ISC · ${this.runId} (deleted)`;
      return;
    }
    this.panel.title = `ISC · ${title(next.header.request)}`;
    if (!this.shownSnapshot) {
      this.host.bridge.post('snapshot', next);
      this.sent.push({ type: 'snapshot', rows: next.rows.length });
    } else {
      for (const delta of tableDeltas(this.shownSnapshot, next)) {
        this.host.bridge.post('delta', delta);
        this.sent.push({ type: delta.type, rows: delta.type === 'row' ? 1 : 0 });
      }
    }
    if (this.sent.length > 200) this.sent.splice(0, this.sent.length - 200);
    this.shownSnapshot = next;
    await this.updateRating();
  }

  /** "How did this go?" once the run has ended, sent when it changed (a rating here or in the sidebar). */
  private async updateRating(): Promise<void> {
    if (!this.ratings) return;
    const rating = await this.ratings.state(this.runId);
    const json = JSON.stringify(rating);
    if (json === this.shownRating) return;
    this.host.bridge.post('rating', rating);
    this.shownRating = json;
  }

  /** For the editor's tests: handles a request exactly as if the view had sent it (a button's click). */
  async requestAsView<M extends 'decide' | 'showDiff' | 'control' | 'reverify' | 'lockCriteria' | 'approveCriteria' | 'revertCriterion' | 'acceptProposal'>(method: M, params: Parameters<PanelHandlers<IscTableProtocol>[M]>[0]): Promise<RequestResult> {
    const handler = this.handlers[method] as (p: typeof params) => RequestResult | Promise<RequestResult>;
    return handler(params);
  }

  /** What the view shows, read back from its DOM. */
  probe(timeoutMs = 10_000): Promise<ShownTable> {
    return this.host.probe(`the ISC table of ${this.runId}`, timeoutMs);
  }

  get ready(): boolean {
    return this.host.ready;
  }

  dispose(): void {
    this.host.dispose();
  }
}

function title(request: string): string {
  return request.length > 40 ? `${request.slice(0, 39)}…` : request;
}
