import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { NOTIFICATION_EVENTS } from '../../src/app/notify/config';
import { notify } from '../../src/app/notify/notifier';
import { verifySignature } from '../../src/app/notify/sign';
import type { RunResult } from '../../src/algorithm/engine';
import { WebhookReceiver, type Delivery } from '../unit/fixtures/webhook-receiver';
import type { LoopResult } from '../../src/vscode/loop/loop-service';
import { activateIdealState, EXTENSION_ID } from './ideal-state';
import { copyLoopFixture, FAILING, LOOP_GLOB, removeLoopFixture } from './loop-fixture';

/**
 * Webhooks at a local receiver (a plain Node http server), from the command line inside the
 * installed extension and from a run in the real editor: each delivery signed with the
 * person's secret (a wrong secret or a changed body fails the check, as it fails at a real
 * receiver), a 500 retried, evidence redacted.
 */
const SECRET_ENV = 'IDEAL_STATE_IT_HOOK_SECRET';
const SECRET = 'integration-hook-secret-42';

describe('notifications at a local webhook receiver', function () {
  this.timeout(180_000);
  let root: string;
  let receiver: WebhookReceiver;
  let config: string;
  let deliveries: Delivery[];

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-it-notify-'));
    receiver = await new WebhookReceiver().start();
    deliveries = receiver.deliveries;
    config = path.join(root, 'config', 'ideal-state', 'notifications.yaml');
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, `webhooks:\n  - url: ${receiver.url}\n    events: [${NOTIFICATION_EVENTS.join(', ')}]\n    secretEnv: ${SECRET_ENV}\n`);
    process.env[SECRET_ENV] = SECRET;
  });
  after(async () => {
    delete process.env[SECRET_ENV];
    await receiver.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    deliveries.length = 0;
    receiver.refuseNext = 0;
    receiver.refuseStatus = 500;
  });

  const cli = (args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
      const proc = spawn(process.execPath, [path.join(extension.extensionPath, 'dist', 'cli.js'), ...args], {
        // The extension host may be Electron's: as plain Node, with the person's config folder and secret.
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', XDG_CONFIG_HOME: path.join(root, 'config'), IDEAL_STATE_STATE_DIR: path.join(root, 'state'), [SECRET_ENV]: SECRET },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
      proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
      proc.on('close', (code) => resolve({ code, out, err }));
    });

  it('notify test: a signed delivery of each event; a 500 is retried; a bad signature is detectable', async () => {
    receiver.refuseNext = 1;
    for (const event of NOTIFICATION_EVENTS) {
      // A workspace beside the config folder, not around it: a config inside the workspace is refused.
      const sent = await cli(['notify', 'test', '--event', event, '--workspace', path.join(root, 'ws')]);
      assert.equal(sent.code, 0, sent.err);
      assert.match(sent.out, new RegExp(`sent ${event.replace('.', '\\.')} to http://127\\.0\\.0\\.1:\\d+/…: HTTP 204`));
    }
    // The first delivery was refused with a 500 and sent again.
    assert.equal(deliveries.length, NOTIFICATION_EVENTS.length + 1);
    assert.equal(deliveries[0]!.body, deliveries[1]!.body, 'the retry sends the same body');
    assert.deepEqual([...new Set(deliveries.map((d) => d.event))], [...NOTIFICATION_EVENTS]);
    for (const d of deliveries) {
      assert.ok(verifySignature(d.body, SECRET, d.signature), `${d.event} is signed with the secret`);
      const payload = JSON.parse(d.body) as { schema: string; event: string; test: boolean };
      assert.equal(payload.schema, 'ideal-state.notification/v1');
      assert.equal(payload.event, d.event);
      assert.equal(payload.test, true);
      // What a receiver checks fails on a forged one: another secret, or a body changed on the way.
      assert.equal(verifySignature(d.body, 'not-the-secret', d.signature), false);
      assert.equal(verifySignature(d.body.replace('"test":true', '"test":false'), SECRET, d.signature), false);
    }
  });

  it('evidence in a payload is redacted as in reports', async () => {
    const token = `ghp_${'Z'.repeat(36)}`;
    process.env.IDEAL_STATE_IT_DEPLOY_TOKEN = 'deploy-value-987654321';
    try {
      await notify('run.finished', { runId: 'run-it', state: 'FAILED', passing: 0, total: 1, failing: [{ id: 'ISC-1', outcome: 'FAIL', evidence: `push refused for ${token}; DEPLOY deploy-value-987654321` }] }, {}, { env: { ...process.env, XDG_CONFIG_HOME: path.join(root, 'config') } });
    } finally {
      delete process.env.IDEAL_STATE_IT_DEPLOY_TOKEN;
    }
    assert.equal(deliveries.length, 1);
    assert.ok(verifySignature(deliveries[0]!.body, SECRET, deliveries[0]!.signature));
    const evidence = (JSON.parse(deliveries[0]!.body) as { data: { failing: { evidence: string }[] } }).data.failing[0]!.evidence;
    assert.equal(evidence, 'push refused for [redacted]; DEPLOY [redacted]');
  });

  it('a run in the editor: approval.waiting for each question and run.finished at its end, from the user setting idealState.notifications.file', async () => {
    const api = await activateIdealState();
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const greet = path.join(folder, 'src', 'greet.js');
    const original = fs.readFileSync(greet);
    const prdsDir = path.join(folder, '.ideal-state', 'prds');
    const prdsBefore = fs.readdirSync(prdsDir);
    await vscode.workspace.getConfiguration().update('idealState.notifications.file', config, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('idealState.models').update('configFile', '.ideal-state/demo/models.yaml', vscode.ConfigurationTarget.Workspace);
    api.runs.answerApprovalsWith(() => 'approve');
    try {
      const result = await vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name', effort: 'STANDARD' });
      assert.ok(result);
      for (let i = 0; i < 100 && !deliveries.some((d) => d.event === 'run.finished'); i++) await new Promise((r) => setTimeout(r, 100));
      const events = deliveries.map((d) => d.event);
      assert.deepEqual(events.filter((e) => e === 'approval.waiting').length, 2, events.join(', '));
      const finished = deliveries.find((d) => d.event === 'run.finished');
      assert.ok(finished, events.join(', '));
      assert.ok(verifySignature(finished.body, SECRET, finished.signature));
      const data = (JSON.parse(finished.body) as { data: { runId: string; state: string; total: number } }).data;
      assert.equal(data.runId, result.run.id);
      assert.equal(data.state, result.state);
      assert.equal(data.total, result.criteria.length);
      const approval = JSON.parse(deliveries.find((d) => d.event === 'approval.waiting')!.body) as { data: { runId: string; kind: string; subject: string } };
      assert.deepEqual(approval.data, { runId: result.run.id, kind: 'edit', subject: 'Edit src/greet.js' });
    } finally {
      api.runs.answerApprovalsWith(undefined);
      await vscode.workspace.getConfiguration().update('idealState.notifications.file', undefined, vscode.ConfigurationTarget.Global);
      await vscode.workspace.getConfiguration('idealState.models').update('configFile', undefined, vscode.ConfigurationTarget.Workspace);
      fs.writeFileSync(greet, original);
      for (const name of fs.readdirSync(prdsDir).filter((n) => !prdsBefore.includes(n))) fs.rmSync(path.join(prdsDir, name));
    }
  });

  it('a loop in the editor: loop.finished at its end, signed, with its state and the artifacts unmet', async () => {
    const api = await activateIdealState();
    await copyLoopFixture(api);
    await vscode.workspace.getConfiguration().update('idealState.notifications.file', config, vscode.ConfigurationTarget.Global);
    // Restricted Mode: the loop verifies only, no model needed (three of the twelve pages fail).
    api.loops.service.simulateTrust(false);
    try {
      const result = await vscode.commands.executeCommand<LoopResult | undefined>('idealState.runLoop', { glob: LOOP_GLOB, isc: 'loop.docs', effort: 'STANDARD', agents: 4 });
      assert.ok(result, 'the loop ran');
      for (let i = 0; i < 100 && !deliveries.some((d) => d.event === 'loop.finished'); i++) await new Promise((r) => setTimeout(r, 100));
      const finished = deliveries.find((d) => d.event === 'loop.finished');
      assert.ok(finished, deliveries.map((d) => d.event).join(', '));
      assert.ok(verifySignature(finished.body, SECRET, finished.signature));
      const data = (JSON.parse(finished.body) as { data: { loopId: string; state: string; passing: number; total: number; unmet: string[] } }).data;
      assert.deepEqual([data.loopId, data.state, data.passing, data.total], [result.loopId, 'FAILED', 9, 12]);
      assert.deepEqual([...data.unmet].sort(), [...FAILING].sort());
    } finally {
      api.loops.service.simulateTrust(undefined);
      await vscode.workspace.getConfiguration().update('idealState.notifications.file', undefined, vscode.ConfigurationTarget.Global);
      await removeLoopFixture();
    }
  });

  it('a delivery the receiver refuses, from the editor: said in the log and shown to the person as a warning with Show Log', async () => {
    const api = await activateIdealState();
    await copyLoopFixture(api);
    await vscode.workspace.getConfiguration().update('idealState.notifications.file', config, vscode.ConfigurationTarget.Global);
    api.loops.service.simulateTrust(false);
    // A 400 is the receiver refusing the body: the sender gives up at once (no retry to wait for).
    receiver.refuseStatus = 400;
    receiver.refuseNext = 1;
    const window = vscode.window as { showWarningMessage: (...args: unknown[]) => Thenable<unknown> };
    const original = window.showWarningMessage;
    const warnings: unknown[][] = [];
    window.showWarningMessage = (...args: unknown[]) => {
      warnings.push(args);
      return Promise.resolve(undefined);
    };
    try {
      const result = await vscode.commands.executeCommand<LoopResult | undefined>('idealState.runLoop', { glob: LOOP_GLOB, isc: 'loop.docs', effort: 'STANDARD', agents: 4 });
      assert.ok(result, 'the loop ran');
      const failed = () => warnings.find((w) => typeof w[0] === 'string' && w[0].includes('loop.finished notification'));
      for (let i = 0; i < 100 && !failed(); i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(deliveries.filter((d) => d.event === 'loop.finished').length, 1, 'one attempt: a 400 is not retried');
      const shown = failed();
      assert.ok(shown, `no warning shown: ${JSON.stringify(warnings)}`);
      // The URL without its path (a path may hold a token), the status, and where the log is.
      assert.match(String(shown[0]), /^Ideal State: the loop\.finished notification to http:\/\/127\.0\.0\.1:\d+\/… failed: HTTP 400 \(after 1 attempt; .*notifications\.log\)$/);
      assert.deepEqual(shown.slice(1), ['Show Log']);
    } finally {
      window.showWarningMessage = original;
      api.loops.service.simulateTrust(undefined);
      await vscode.workspace.getConfiguration().update('idealState.notifications.file', undefined, vscode.ConfigurationTarget.Global);
      await removeLoopFixture();
    }
  });
});
