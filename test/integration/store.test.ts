import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateIdealState, EXTENSION_ID, handoffFile } from './ideal-state';

interface StoreInfo {
  path: string;
  schemaVersion: number;
  runs: number;
  readOnly: boolean;
}

describe('the store in workspace storage', () => {
  it('keeps its database under this workspace\'s storage folder, writable', async () => {
    const store = await (await activateIdealState()).store();
    assert.ok(fs.existsSync(path.dirname(store.location)), `no folder for ${store.location}`);
    const parts = store.location.split(path.sep);
    assert.ok(parts.includes('workspaceStorage') && parts.includes(EXTENSION_ID), `${store.location} is not in workspace storage`);
    assert.equal(store.readOnly, false);
  });

  it('answers "Show Store Info" with its path, schema version and run count', async () => {
    const store = await (await activateIdealState()).store();
    const info = await vscode.commands.executeCommand<StoreInfo>('idealState.showStoreInfo');
    assert.equal(info.path, store.location);
    assert.ok(Number.isInteger(info.schemaVersion) && info.schemaVersion >= 1, `schema version ${info.schemaVersion}`);
    assert.equal(info.runs, (await store.runs.list()).length);
    assert.equal(info.readOnly, false);
  });

  it('saves a run that it can read back, before the window reloads', async () => {
    const api = await activateIdealState();
    const store = await api.store();
    const run = await api.newRun('Reload check: the run outlives the window', 'FAST');
    await store.runs.save(run);
    assert.deepEqual(await store.runs.get(run.id), run);
    fs.writeFileSync(handoffFile('saved-run.json'), JSON.stringify({ run, location: store.location }));
  });

  it('has written its database file to disk from the first open', async () => {
    const store = await (await activateIdealState()).store();
    assert.ok(fs.existsSync(store.location), `no database file at ${store.location}`);
    assert.ok(fs.statSync(store.location).size > 0);
  });
});
