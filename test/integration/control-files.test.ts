import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PendingApproval } from '../../src/agent/pending-approvals';
import type { RunResult } from '../../src/algorithm/engine';
import { activateIdealState, type IdealStateApi } from './ideal-state';

// A scripted agent (labelled as one) that tries what an attacker's model would: write .git/config
// and the workspace's .vscode/settings.json, with the person's setting "approve edits" on.
const DIR = '.ideal-state/test-control-files';
const SCRIPT = `name: control-files
steps:
  - object:
      title: Greeting file
      criteria:
        - { text: File hello.txt exists in the workspace root, source: EXPLICIT }
        - { text: File hello.txt greets the world by name, source: EXPLICIT }
        - { text: Greeting names the Ideal State project, source: INFERRED }
        - { text: Greeting file contains no farewell wording, source: IMPLICIT, anti: true }
  - object:
      criteria:
        - { id: ISC-1, text: File hello.txt exists in the workspace root, source: EXPLICIT }
        - { id: ISC-2, text: File hello.txt greets the world by name, source: EXPLICIT }
        - { id: ISC-3, text: Greeting names the Ideal State project, source: INFERRED }
        - { id: ISC-A-1, text: Greeting file contains no farewell wording, source: IMPLICIT, anti: true }
  - object:
      packets:
        - { title: Write hello.txt, criterionIds: [ISC-1, ISC-2, ISC-3, ISC-A-1] }
  - object:
      methods:
        - { criterionId: ISC-1, verify: { type: READ, path: hello.txt } }
        - { criterionId: ISC-2, verify: { type: GREP, pattern: 'Hello, world', glob: hello.txt, expect: present } }
        - { criterionId: ISC-3, verify: { type: GREP, pattern: Ideal State, glob: hello.txt, expect: present } }
        - { criterionId: ISC-A-1, verify: { type: GREP, pattern: '[Gg]oodbye', glob: hello.txt, expect: absent } }
  - toolCalls:
      - name: create_file
        arguments: { path: .git/config, text: "[core]\\n\\tfsmonitor = touch /tmp/ideal-state-pwned\\n" }
      - name: create_file
        arguments: { path: .vscode/settings.json, text: "{ \\"idealState.run.allowedCommands\\": [\\"*\\"] }\\n" }
  - text: '{"summary": "Changed the settings.", "evidence": []}'
  - text: '{"summary": "Nothing more.", "evidence": []}'
  - text: '{"summary": "Nothing more.", "evidence": []}'
`;

const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;

async function until<T>(what: string, get: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = get();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('control files in the editor: .git refused, configuration its own approval that "approve edits" never covers', function () {
  this.timeout(120_000);
  let api: IdealStateApi;
  const settingsFile = () => path.join(folder(), '.vscode/settings.json');
  let settingsBefore: string | undefined;
  const prdsBefore = new Set<string>();

  before(async () => {
    api = await activateIdealState();
    api.runs.answerApprovalsWith(undefined);
    fs.mkdirSync(path.join(folder(), DIR), { recursive: true });
    fs.writeFileSync(path.join(folder(), DIR, 'script.yaml'), SCRIPT);
    fs.writeFileSync(path.join(folder(), DIR, 'models.yaml'), `version: 1\nproviders:\n  - { id: scripted, kind: scripted, script: ${DIR}/script.yaml }\nmodels:\n  - { id: attack, provider: scripted, model: control-files }\nrouting:\n  default: attack\n`);
    await vscode.workspace.getConfiguration('idealState.models').update('configFile', `${DIR}/models.yaml`, vscode.ConfigurationTarget.Workspace);
    await vscode.workspace.getConfiguration('idealState.run').update('autoApproveEdits', true, vscode.ConfigurationTarget.Global);
    settingsBefore = fs.existsSync(settingsFile()) ? fs.readFileSync(settingsFile(), 'utf8') : undefined;
    for (const name of fs.readdirSync(path.join(folder(), '.ideal-state/prds'))) prdsBefore.add(name);
  });

  after(async () => {
    for (const a of api.runs.approvals.list()) api.runs.decideApproval(a.id, 'deny', 'the test ended');
    await vscode.workspace.getConfiguration('idealState.run').update('autoApproveEdits', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('idealState.models').update('configFile', undefined, vscode.ConfigurationTarget.Workspace);
    fs.rmSync(path.join(folder(), DIR), { recursive: true, force: true });
    for (const name of fs.readdirSync(path.join(folder(), '.ideal-state/prds')).filter((n) => !prdsBefore.has(n))) fs.rmSync(path.join(folder(), '.ideal-state/prds', name));
  });

  it('asks before changing .vscode/settings.json even with edits auto-approved, and never writes .git', async () => {
    const running = Promise.resolve(vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: 'Create hello.txt greeting the world', effort: 'FAST' }));
    const config = await until<PendingApproval>('the configuration change to wait for approval', () => api.runs.approvals.list().find((a) => a.kind === 'config'));
    assert.equal(config.path, '.vscode/settings.json');
    assert.match(config.title, /^Change configuration: \.vscode\/settings\.json/);
    assert.equal(fs.existsSync(path.join(folder(), '.git/config')), false, '.git was refused, not asked');
    assert.ok(!api.runs.approvals.list().some((a) => a.path?.startsWith('.git')), 'nothing under .git is even offered for approval');
    assert.equal(api.runs.decideApproval(config.id, 'deny', 'the test').decided, true);
    const result = await running;
    assert.ok(result, 'the run returned');
    assert.equal(fs.existsSync(settingsFile()) ? fs.readFileSync(settingsFile(), 'utf8') : undefined, settingsBefore, 'the settings are as they were');
    assert.equal(fs.existsSync(path.join(folder(), '.git/config')), false);
  });
});
