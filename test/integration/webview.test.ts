import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { webviewHtml, webviewOptions } from '../../src/vscode/webview';
import { EXTENSION_ID } from './ideal-state';

describe('the shared webview page', () => {
  it('has a strict CSP, one nonce’d bundled script per render, and reads only media/dist', () => {
    const extensionUri = vscode.extensions.getExtension(EXTENSION_ID)!.extensionUri;
    const panel = vscode.window.createWebviewPanel('idealState.test', 'CSP test', vscode.ViewColumn.One, webviewOptions(extensionUri));
    try {
      const options = panel.webview.options;
      assert.equal(options.enableScripts, true);
      assert.deepEqual(options.localResourceRoots?.map((u) => u.path), [vscode.Uri.joinPath(extensionUri, 'media', 'dist').path]);

      const first = webviewHtml(panel.webview, extensionUri, { entry: 'prd-editor', title: 'A <title> & more' });
      const second = webviewHtml(panel.webview, extensionUri, { entry: 'prd-editor', title: 'x' });
      const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(first)![1]!;
      const directives = csp.split(';').map((d) => d.trim());
      assert.equal(directives[0], "default-src 'none'");
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
      assert.ok(directives.every((d) => !d.includes('unsafe-inline') && !d.includes('unsafe-eval')), csp);
      assert.ok(directives.includes(`style-src ${panel.webview.cspSource}`), csp);
      const scripts = [...first.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      assert.equal(scripts.length, 1);
      assert.ok(scripts[0]!.includes(`nonce="${nonce}"`) && scripts[0]!.includes('/media/dist/prd-editor.js'), scripts[0]);
      assert.notEqual(/nonce-([^']+)/.exec(second)![1], nonce, 'a new nonce for every render');
      assert.ok(first.includes('<title>A &#60;title&#62; &#38; more</title>'), 'the title is escaped');
    } finally {
      panel.dispose();
    }
  });
});
