import * as vscode from 'vscode';
import { engine } from '../engine';

const PROBE_TIMEOUT_MS = 5_000;

/**
 * Why this window could not keep an API key across a reload, when that can be known before
 * the key is typed; undefined on the desktop (the OS keychain, whose failures surface when
 * storing) or when the answer does not tell.
 *
 * In a browser workbench VS Code seals secrets with a key its server mints; a server
 * without that route (VS Code's own `server-main` answers 405) leaves the browser keeping
 * them in memory only, while `SecretStorage.store` still resolves and `get` still returns
 * the key, so reading it back cannot see the loss. The same POST the browser makes, made
 * from here, can.
 */
export async function browserSecretsProblem(): Promise<string | undefined> {
  if (vscode.env.uiKind !== vscode.UIKind.Web) return undefined;
  const { mintKeyUrl, sealRefusal } = engine();
  let url: string | undefined;
  try {
    // The workbench's own address, as it hands out callbacks for this extension.
    const callback = await vscode.env.asExternalUri(vscode.Uri.parse(`${vscode.env.uriScheme}://ideal-state.ideal-state/secret-storage-check`));
    url = mintKeyUrl(callback.toString(true));
  } catch {
    return undefined;
  }
  if (!url) return undefined;
  try {
    const response = await fetch(url, { method: 'POST', redirect: 'manual', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return sealRefusal(response.status);
  } catch {
    // Not reachable from the extension host (a proxy in between): no way to tell.
    return undefined;
  }
}
