// The extension as the integration suites see it: its public API (what activate returns)
// and where the harness put things. Shared by the suites; not itself a suite.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { IdealStateApi } from '../../src/vscode/api';

export type { IdealStateApi };

export const EXTENSION_ID = 'ideal-state.ideal-state';

/** The extension's pure layers, as loaded by the extension itself (same module, same error classes). */
export type Engine = typeof import('../../src/engine');

export function extensionEngine(): Engine {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed in this extension host`);
  const bundle = path.join(extension.extensionPath, 'dist', 'engine.js');
  return require(bundle) as Engine;
}

export async function activateIdealState(): Promise<IdealStateApi> {
  const extension = vscode.extensions.getExtension<IdealStateApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed in this extension host`);
  return extension.activate();
}

/** A folder the runner keeps across both launches, for facts one launch leaves the next. */
export function handoffFile(name: string): string {
  const dir = process.env.IDEAL_STATE_TEST_HANDOFF;
  assert.ok(dir, 'IDEAL_STATE_TEST_HANDOFF is not set; run the suites through test/harness/integration.mjs');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

/** The extension's "Ideal State" log file under the user-data logs folder of this window. */
export function extensionLogFile(): string {
  const userData = process.env.IDEAL_STATE_TEST_USER_DATA;
  assert.ok(userData, 'IDEAL_STATE_TEST_USER_DATA is not set; run the suites through test/harness/integration.mjs');
  const candidates: string[] = [];
  const logsRoot = path.join(userData, 'logs');
  for (const session of fs.existsSync(logsRoot) ? fs.readdirSync(logsRoot) : []) {
    for (const host of fs.readdirSync(path.join(logsRoot, session)).filter((n) => n.startsWith('exthost'))) {
      const file = path.join(logsRoot, session, host, EXTENSION_ID, 'Ideal State.log');
      if (fs.existsSync(file)) candidates.push(file);
    }
  }
  assert.ok(candidates.length > 0, `no Ideal State log under ${logsRoot}`);
  return candidates.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
}

/** Log lines are flushed asynchronously; wait until one matches. */
export async function waitForLogLine(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let text = '';
    try {
      text = fs.readFileSync(extensionLogFile(), 'utf8');
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) assert.fail(`no line matching ${pattern} in the Ideal State log:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
