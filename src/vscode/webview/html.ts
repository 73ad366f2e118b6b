import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

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
 * this render, and no inline script or style. The page has no content of its own: the
 * bundle renders everything as text.
 */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const nonce = randomBytes(18).toString('base64');
  const root = webviewRoot(extensionUri);
  const script = webview.asWebviewUri(vscode.Uri.joinPath(root, `${page.entry}.js`));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(root, `${page.entry}.css`));
  const csp = [`default-src 'none'`, `style-src ${webview.cspSource}`, `img-src ${webview.cspSource}`, `font-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="UTF-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1.0">',
    `<link rel="stylesheet" href="${style.toString()}">`,
    `<title>${escapeAttribute(page.title)}</title>`,
    '</head>',
    '<body>',
    `<script nonce="${nonce}" src="${script.toString()}"></script>`,
    '</body>',
    '</html>',
  ].join('\n');
}

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
