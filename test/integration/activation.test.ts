import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateIdealState, EXTENSION_ID, waitForLogLine } from './ideal-state';

describe('activation in the real extension host', () => {
  before(async () => {
    await activateIdealState();
  });

  it('is active in a workspace with a .ideal-state folder', () => {
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.isActive, true);
  });

  it('logs that it activated, and no errors, in its own log', async () => {
    const log = await waitForLogLine(/activated/);
    const errors = log.split('\n').filter((line) => /\[error\]/i.test(line));
    assert.deepEqual(errors, []);
  });

  it('registers every command it contributes', async () => {
    const contributed: { command: string }[] = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON.contributes.commands ?? [];
    assert.ok(contributed.length > 0, 'package.json contributes no commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.map((c) => c.command).filter((id) => !registered.has(id));
    assert.deepEqual(missing, []);
  });
});
