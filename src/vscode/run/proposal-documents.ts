import * as vscode from 'vscode';

export const PROPOSAL_SCHEME = 'ideal-state-proposal';

/**
 * Read-only virtual documents for what a run proposes (an edit's whole new text, or its
 * summary when only that is known), so "Show Diff" can open `vscode.diff` beside the file
 * without writing anything. A text provider's documents cannot be edited or saved, and a
 * proposal lives only until the approval it belongs to is answered.
 */
export class ProposalDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly _onDidChange = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this._onDidChange.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, this);

  /** A URI whose document holds `text`, kept under `key` (an approval's id); `name` keeps the file name and so its language. */
  add(key: string, name: string, text: string): vscode.Uri {
    this.texts.set(key, text);
    const uri = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${name}`, query: key });
    // A document already open under this URI shows the text as it is now.
    this._onDidChange.fire(uri);
    return uri;
  }

  /** Forgets every proposal kept under keys starting with `prefix` (an approval's id). */
  release(prefix: string): void {
    for (const key of [...this.texts.keys()]) if (key === prefix || key.startsWith(`${prefix}:`)) this.texts.delete(key);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? '(this proposal was answered and is no longer kept)';
  }

  dispose(): void {
    this.registration.dispose();
    this._onDidChange.dispose();
    this.texts.clear();
  }
}
