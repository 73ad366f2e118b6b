import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateIdealState, EXTENSION_ID, waitForLogLine } from './ideal-state';

describe('activation in the real extension host', () => {
  before(async () => {
    await activateIdealState();
  });

  it('is active in a workspace with PRDs', () => {
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.isActive, true);
  });

  it('logs that it activated, and no errors, in its own log', async () => {
    const log = await waitForLogLine(/activated/);
    const errors = log.split('\n').filter((line) => /\[error\]/i.test(line));
    assert.deepEqual(errors, []);
  });

  it('activates without loading the engine bundle (zod, yaml, sql.js wait for first use)', async () => {
    const log = await waitForLogLine(/activated in [\d.]+ ms/);
    const lines = log.split('\n').filter((line) => /activated in [\d.]+ ms/.test(line));
    assert.ok(lines.length > 0);
    for (const line of lines) assert.match(line, /engine bundle not loaded/, line);
  });

  it('loads a bundle that requires vscode once and carries neither zod nor yaml (the engine bundle does)', () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    const bundle = fs.readFileSync(path.join(extension.extensionPath, 'dist', 'extension.js'), 'utf8');
    // One copy of the API, not one per importing file (see vscodeOnce in esbuild.mjs).
    assert.equal(bundle.match(/require\(["']vscode["']\)/g)?.length, 1);
    assert.deepEqual(['ZodError', 'YAMLParseError'].filter((name) => bundle.includes(name)), []);
  });

  it('activates for PRDs (the default PRD folder, files named like a PRD), its webview and its own contributions: never for every Markdown file', () => {
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as { activationEvents: string[]; contributes: { configuration: { properties: Record<string, { default?: unknown }> } } };
    const events = manifest.activationEvents;
    assert.deepEqual(events.filter((e) => e === '*' || e === 'onStartupFinished' || e.startsWith('onLanguage:')), []);
    const prdFolder = manifest.contributes.configuration.properties['idealState.prd.folder']?.default;
    assert.ok(events.includes(`workspaceContains:${String(prdFolder)}/**/*.md`), `no activation on the default PRD folder ${String(prdFolder)}: ${events.join(', ')}`);
    assert.ok(events.includes('workspaceContains:**/PRD-*.md'), events.join(', '));
    assert.ok(events.includes('onWebviewPanel:idealState.iscTable'), 'an ISC table restored after a reload needs the extension');
  });

  it('registers every command it contributes', async () => {
    const contributed: { command: string }[] = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON.contributes.commands ?? [];
    assert.ok(contributed.length > 0, 'package.json contributes no commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.map((c) => c.command).filter((id) => !registered.has(id));
    assert.deepEqual(missing, []);
  });
});
