// The loop fixture (test/fixtures/loop-docs) copied into the workspace for the loop suites (not a suite).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LoopChange } from '../../src/vscode/loop/loop-service';
import { EXTENSION_ID, type IdealStateApi } from './ideal-state';
import { folder, inWorkspace, until } from './scripted-runs';

export const LOOP_DIR = 'loop-docs';
export const LOOP_GLOB = `${LOOP_DIR}/**/*.md`;
export const LOOP_TEMPLATE = '.ideal-state/isc/loop.docs.yaml';
export const FAILING = ['loop-docs/page-03.md', 'loop-docs/page-07.md', 'loop-docs/page-11.md'];
export const COLUMNS = ['ISC-LD-001', 'ISC-LD-002', 'ISC-A-LD-001'];

function fixture(): string {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed in this extension host`);
  return path.join(extension.extensionPath, 'test', 'fixtures', 'loop-docs');
}

/** Copies the twelve pages to loop-docs/ and the template to the workspace's ISC folder; waits until the template is loaded. */
export async function copyLoopFixture(api: IdealStateApi): Promise<void> {
  fs.rmSync(inWorkspace(LOOP_DIR), { recursive: true, force: true });
  fs.cpSync(path.join(fixture(), 'pages'), inWorkspace(LOOP_DIR), { recursive: true });
  // Through the editor's file system, so the definitions' file watcher hears of it whatever earlier suites did to the folder.
  await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder(), LOOP_TEMPLATE), fs.readFileSync(path.join(fixture(), 'loop.docs.yaml')));
  await until(async () => ((await api.definitions()).isc.get('loop.docs') ? true : undefined), 'the loop.docs template to load', 30_000);
}

export async function removeLoopFixture(): Promise<void> {
  fs.rmSync(inWorkspace(LOOP_DIR), { recursive: true, force: true });
  await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder(), LOOP_TEMPLATE), { useTrash: false }).then(undefined, () => undefined);
}

/** Every page's text, by workspace-relative path. */
export function pages(): Map<string, string> {
  return new Map(fs.readdirSync(inWorkspace(LOOP_DIR)).map((name) => [`${LOOP_DIR}/${name}`, fs.readFileSync(inWorkspace(`${LOOP_DIR}/${name}`), 'utf8')]));
}

/** Calls `act` once, on the first change of a going loop that `when` accepts; the subscription ends with it. */
export function onceLoop(api: IdealStateApi, act: (change: LoopChange) => void, when: (change: LoopChange) => boolean = () => true): vscode.Disposable {
  let done = false;
  return api.loops.service.onDidChange((change) => {
    if (done || !change.active || !when(change)) return;
    done = true;
    act(change);
  });
}
