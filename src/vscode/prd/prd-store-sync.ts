import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { Outcome } from '../../model';
import type { PrdStoreSync } from '../../prd';
import type { DefinitionsHost } from '../definitions-host';
import { engine } from '../engine';
import type { StoreHost } from '../store-host';
import { enginePrdWrites } from './engine-writes';
import type { SessionsHost } from '../runs/sessions-host';

/** Only a file that starts with frontmatter can be a PRD; anything else never loads the engine. */
export function mayBePrd(document: vscode.TextDocument): boolean {
  return document.languageId === 'markdown' && document.lineCount > 0 && /^\uFEFF?---[ \t]*$/.test(document.lineAt(0).text);
}

/** The key the store's PRD index uses for a file: workspace-relative with `/`. */
export function prdPath(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, false);
}

/**
 * Saving a PRD (anywhere in the workspace) brings its criteria into the store: a new
 * criteria version with an "edited in the PRD" decision when the user changed them.
 */
export class PrdStoreSyncOnSave implements vscode.Disposable {
  private readonly _onDidSync = new vscode.EventEmitter<{ uri: vscode.Uri; result: PrdStoreSync }>();
  readonly onDidSync = this._onDidSync.event;
  private readonly disposables: vscode.Disposable[] = [this._onDidSync];

  constructor(
    private readonly stores: StoreHost,
    private readonly definitions: DefinitionsHost,
    private readonly sessions: SessionsHost,
    private readonly log: Logger,
  ) {
    this.disposables.push(vscode.workspace.onDidSaveTextDocument((d) => void this.sync(d)));
  }

  async sync(document: vscode.TextDocument): Promise<PrdStoreSync | { kind: 'queued'; runId: string; restated: string[]; waiting: string[] } | undefined> {
    if (!mayBePrd(document) || !engine().isPrdDocument(engine().parsePrd(document.getText()))) return undefined;
    const path = prdPath(document.uri);
    // A run saving its own PRD is not the user editing it: the run's store commit already holds those criteria.
    if (enginePrdWrites.isRunsOwn(path, document.getText())) return undefined;
    try {
      const definitions = await this.definitions.get();
      // Through the runs' one writer: a run going in this window takes reworded criteria at its next step.
      const result = await this.sessions.get().syncPrd({ text: document.getText(), path, effortTable: definitions.effort.table });
      if (result.kind === 'queued') {
        this.log.info(`${path}: ${result.runId} is going; ${result.restated.length ? `${result.restated.join(', ')} go to it at its next step` : 'no reworded criteria'}${result.waiting.length ? `; ${result.waiting.join(', ')} added or removed: synced after the run` : ''}`);
        return result;
      }
      if (result.kind === 'skipped') this.log.warn(`${path} not synced with the store: ${result.reason}`);
      else if (result.kind === 'created') this.log.info(`${path}: run ${result.runId} created with criteria version ${result.version}`);
      else if (result.kind === 'edited') this.log.info(`${path}: criteria version ${result.version} of ${result.runId} (${result.changes.length} change${result.changes.length === 1 ? '' : 's'})`);
      this._onDidSync.fire({ uri: document.uri, result });
      return result;
    } catch (error) {
      this.log.error(`${path} could not be synced with the store: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /** The store's latest outcome per criterion of the run this PRD is linked to; empty when none. */
  async outcomes(document: vscode.TextDocument): Promise<Map<string, Outcome>> {
    const outcomes = new Map<string, Outcome>();
    const store = await this.stores.get();
    const runId = engine().parsePrd(document.getText()).meta.runId ?? store.prdIndex.where('path = ?', [prdPath(document.uri)])[0]?.runId;
    if (!runId) return outcomes;
    for (const c of store.criteria.list(runId)) if (c.outcome) outcomes.set(c.id, c.outcome);
    return outcomes;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
