import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { bundlePage } from '../../app/html-page';

/** Where every webview bundle lives (esbuild: webviews/<entry>.ts → media/dist/<entry>.js and .css). */
export function webviewRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'media', 'dist');
}

/** Scripts on, and nothing readable but the built bundles. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [webviewRoot(extensionUri)] };
}

export interface WebviewPage {
  /** The bundle's name: `prd-editor` loads media/dist/prd-editor.js and media/dist/prd-editor.css. */
  entry: string;
  /** The document title, for screen readers. */
  title: string;
}

/**
 * The page of a webview: a strict CSP (`default-src 'none'`), styles and images only from
 * the webview's own origin, exactly one script — the bundle — allowed by a nonce made for
 * this render, and no inline script or style (src/app/html-page.ts writes it).
 */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const root = webviewRoot(extensionUri);
  return bundlePage({
    title: page.title,
    cspSource: webview.cspSource,
    nonce: randomBytes(18).toString('base64'),
    script: webview.asWebviewUri(vscode.Uri.joinPath(root, `${page.entry}.js`)).toString(),
    style: webview.asWebviewUri(vscode.Uri.joinPath(root, `${page.entry}.css`)).toString(),
  });
}
