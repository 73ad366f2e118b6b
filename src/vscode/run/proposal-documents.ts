import * as vscode from 'vscode';

export const PROPOSAL_SCHEME = 'ideal-state-proposal';

/**
 * Read-only virtual documents for what a run proposes (an edit's new text, or its diff
 * when only that is known), so "Show Diff" can open `vscode.diff` without touching disk.
 * Each proposal lives until the approval it belongs to is answered.
 */
export class ProposalDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private next = 0;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, this);

  /** A URI whose document holds `text`; `name` keeps the file name (and so its language). */
  add(name: string, text: string): vscode.Uri {
    const key = `${++this.next}`;
    this.texts.set(key, text);
    return vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${name}`, query: key });
  }

  remove(uri: vscode.Uri): void {
    this.texts.delete(uri.query);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? '(this proposal was answered and is no longer kept)';
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
