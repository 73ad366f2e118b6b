import * as vscode from 'vscode';

/** The core takes an AbortSignal; this one follows a CancellationToken (dispose when done). */
export function signalFrom(token: vscode.CancellationToken): { signal: AbortSignal } & vscode.Disposable {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  const listener = token.onCancellationRequested(() => controller.abort());
  return { signal: controller.signal, dispose: () => listener.dispose() };
}
