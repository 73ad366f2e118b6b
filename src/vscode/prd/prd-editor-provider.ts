import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { Outcome } from '../../model';
import type { PrdEdit, PrdView } from '../../prd';
import type { PrdEditorEdit, PrdEditorProtocol } from '../../../webviews/prd-editor/protocol';
import { engine } from '../engine';
import { WebviewBridge, WebviewRequestRefused, webviewHtml, webviewOptions } from '../webview';
import { replaceDocumentText } from './document-edits';
import type { PrdStoreSyncOnSave } from './prd-store-sync';

const PRIORITIES = ['CRITICAL', 'IMPORTANT', 'NICE'];

/** Checks a request from the webview before it becomes an edit: the view is not trusted. */
function toPrdEdit(p: PrdEditorEdit): PrdEdit {
  if (typeof p === 'object' && p !== null && p.kind === 'addCriterion') {
    if (typeof p.text !== 'string' || p.text.trim() === '') throw new WebviewRequestRefused('a criterion needs text', 'bad-request');
    // No id: the edit takes the next free one after the criteria's last, as every other add does.
    return { kind: 'addCriterion', criterion: { text: p.text } };
  }
  const ok = typeof p === 'object' && p !== null && typeof p.id === 'string';
  if (ok && p.kind === 'setChecked' && typeof p.checked === 'boolean') return { kind: 'setChecked', id: p.id, checked: p.checked };
  if (ok && p.kind === 'setText' && typeof p.text === 'string') {
    if (p.text.trim() === '') throw new WebviewRequestRefused('a criterion needs text', 'bad-request');
    return { kind: 'setText', id: p.id, text: p.text };
  }
  if (ok && p.kind === 'setPriority' && PRIORITIES.includes(p.priority)) return { kind: 'setPriority', id: p.id, priority: p.priority };
  throw new WebviewRequestRefused('not an edit the PRD editor makes', 'bad-request');
}

/**
 * "Reopen With… → Ideal State PRD": the PRD as a table. The TextDocument is the model: every
 * edit the view asks for is a line-local WorkspaceEdit, and the view follows the document's
 * changes (its own, the text editor's, the engine's) as row deltas.
 */
export class PrdEditorProvider implements vscode.CustomTextEditorProvider {
  static readonly viewType = 'idealState.prdEditor';

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly storeSync: PrdStoreSyncOnSave,
    private readonly log: Logger,
  ) {}

  static register(extensionUri: vscode.Uri, storeSync: PrdStoreSyncOnSave, log: Logger): vscode.Disposable {
    return vscode.window.registerCustomEditorProvider(PrdEditorProvider.viewType, new PrdEditorProvider(extensionUri, storeSync, log));
  }

  resolveCustomTextEditor(document: vscode.TextDocument, panel: vscode.WebviewPanel): void {
    panel.webview.options = webviewOptions(this.extensionUri);
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, { entry: 'prd-editor', title: 'Ideal State PRD' });

    let shown: PrdView | undefined;
    let outcomes = new Map<string, Outcome>();
    const bridge = new WebviewBridge<PrdEditorProtocol>(
      panel.webview,
      {
        edit: async (params) => {
          const edit = toPrdEdit(params);
          let next: string;
          try {
            next = engine().applyEdits(document.getText(), [edit]);
          } catch (error) {
            throw new WebviewRequestRefused(error instanceof Error ? error.message : 'the edit could not be made', 'bad-request');
          }
          return { applied: await replaceDocumentText(document, next) };
        },
        reveal: async ({ id }) => {
          const c = engine().parsePrd(document.getText()).criteria.find((x) => x.id === id);
          const at = new vscode.Position(c?.line ?? 0, 0);
          await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, selection: new vscode.Range(at, at) });
          return null;
        },
      },
      this.log,
    );

    const render = (full: boolean) => {
      const view = engine().prdView(engine().parsePrd(document.getText()), outcomes);
      const change = full ? ({ kind: 'all', view } as const) : engine().diffPrdView(shown, view);
      shown = view;
      if (change.kind === 'all') bridge.post('view', change.view);
      else if (change.kind === 'rows') bridge.post('rows', { rows: change.rows, order: change.order });
    };
    const refreshOutcomes = () =>
      this.storeSync.outcomes(document).then(
        (found) => {
          outcomes = found;
          render(false);
        },
        (error: unknown) => this.log.warn(`no outcomes for ${vscode.workspace.asRelativePath(document.uri)}: ${error instanceof Error ? error.message : String(error)}`),
      );

    const subscriptions = [
      bridge,
      bridge.onDidBecomeReady(() => render(true)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === document && e.contentChanges.length > 0) render(false);
      }),
      this.storeSync.onDidSync(({ uri }) => {
        if (uri.toString() === document.uri.toString()) void refreshOutcomes();
      }),
    ];
    panel.onDidDispose(() => subscriptions.forEach((s) => s.dispose()));
    void refreshOutcomes();
  }
}

/** "Ideal State: Open PRD Editor": the active markdown file (or the one given) in the PRD editor. */
export function registerOpenPrdEditor(): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.openPrdEditor', async (target?: vscode.Uri) => {
    const uri = target instanceof vscode.Uri ? target : vscode.window.activeTextEditor?.document.uri;
    if (!uri || !/\.md$/i.test(uri.path)) {
      void vscode.window.showWarningMessage('Ideal State: open a PRD (a markdown file with "prd: true" frontmatter) first, then run Open PRD Editor.');
      return;
    }
    await vscode.commands.executeCommand('vscode.openWith', uri, PrdEditorProvider.viewType);
  });
}
