import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { verifySignature } from '../../../../src/app/notify/sign';
import { lockCriteria } from '../../../../src/app/gate/lock';
import { BUILT_CLI } from '../../support/cli-helpers';
import { claudeStop, decision, DEMO_PRD, demoWorkspace, edit, runGate } from '../../support/gate-lock-helpers';
import { REPO_ROOT } from '../../support/repo-root';

const FIXTURES = path.resolve(REPO_ROOT, 'test/unit/fixtures/gate');
const SECRET = 'gate-hook-secret-value';

const PRD = ['---', 'prd: true', 'id: PRD-20261129-notify', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# Notify fixture', '', '## Ideal State Criteria', '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md', '', '## LOG', ''].join('\n');

/**
 * The gate's notifications, end to end: a stop let through with a CRITICAL criterion failing
 * (`--max-blocks 0`) reaches the person's webhook as gate.released, signed, from a process of
 * its own: the gate has answered and exited while the receiver still holds the first delivery
 * open, and the 500 it then answers is retried.
 */
describe('the gate notifies from a detached process', function () {
  this.timeout(60_000);
  let root: string;
  let server: http.Server;
  const received: { body: string; signature: string | undefined; event: string | undefined }[] = [];
  let gateExited!: () => void;
  const exited = new Promise<void>((resolve) => (gateExited = resolve));

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-notify-gate-'));
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ body, signature: req.headers['x-ideal-state-signature-256'] as string | undefined, event: req.headers['x-ideal-state-event'] as string | undefined });
        // The first delivery is held until the gate has exited, then refused: it must be retried.
        if (received.length === 1) void exited.then(() => res.writeHead(500).end());
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(() => {
    server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('gate.released arrives signed and retried after the gate has answered', async () => {
    const ws = path.join(root, 'ws');
    fs.mkdirSync(path.join(ws, '.ideal-state', 'prds'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.ideal-state', 'prds', 'PRD-20261129-notify.md'), PRD);
    const config = path.join(root, 'config');
    fs.mkdirSync(path.join(config, 'ideal-state'), { recursive: true });
    const port = (server.address() as AddressInfo).port;
    fs.writeFileSync(path.join(config, 'ideal-state', 'notifications.yaml'), `webhooks:\n  - url: http://127.0.0.1:${port}/hook\n    events: [gate.released]\n    secretEnv: GATE_HOOK_SECRET\n`);
    const stop = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'claude-code-stop.json'), 'utf8')) as Record<string, unknown>;
    const { CLAUDE_PROJECT_DIR: _notOurs, ...env } = process.env;
    const answer = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const proc = spawn(process.execPath, [BUILT_CLI, 'gate', '--host', 'claude-code', '--no-store', '--max-blocks', '0', '--workspace', ws], {
        env: { ...env, IDEAL_STATE_STATE_DIR: path.join(root, 'state'), XDG_CONFIG_HOME: config, GATE_HOOK_SECRET: SECRET },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
      proc.on('close', (code) => resolve({ code, out }));
      proc.stdin.end(JSON.stringify({ ...stop, cwd: ws, stop_hook_active: true }));
    });
    gateExited();
    assert.equal(answer.code, 0);
    assert.doesNotMatch(answer.out, /"decision":\s*"block"/, 'the stop was let through');
    for (let i = 0; i < 300 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(received.length, 2, 'the refused delivery was retried');
    for (const r of received) {
      assert.equal(r.event, 'gate.released');
      assert.ok(verifySignature(r.body, SECRET, r.signature), 'signed with the secret');
      assert.equal(verifySignature(r.body, 'another-secret', r.signature), false);
    }
    const payload = JSON.parse(received[1]!.body) as { event: string; data: { host: string; why: string; prds: { prd: string; failing: { id: string }[] }[] } };
    assert.equal(payload.data.host, 'claude-code');
    assert.equal(payload.data.why, 'block-limit');
    assert.deepEqual(payload.data.prds[0]!.failing.map((f) => f.id), ['ISC-1']);
    // The queued payload is gone once sent.
    assert.deepEqual(fs.readdirSync(path.join(root, 'state', 'notify-queue')), []);
  });
});

/**
 * criteria.tampered end to end: a person locked a PRD's criteria, the agent re-labelled a
 * CRITICAL one NICE, and the gate, run as its host runs it, blocks the stop and tells the
 * person's webhook (the user-level notifications file) which criterion was changed, signed.
 */
describe('the gate notifies of a TAMPERED criterion', function () {
  this.timeout(60_000);
  let root: string;
  let server: http.Server;
  const received: { body: string; signature: string | undefined; event: string | undefined }[] = [];

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-notify-tampered-'));
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ body, signature: req.headers['x-ideal-state-signature-256'] as string | undefined, event: req.headers['x-ideal-state-event'] as string | undefined });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(() => {
    server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('criteria.tampered arrives signed, naming the changed criterion, while the stop is blocked', async () => {
    const ws = demoWorkspace();
    const state = path.join(root, 'state');
    fs.mkdirSync(state);
    await lockCriteria(ws, { by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    edit(ws, DEMO_PRD, (t) => t.replace('ISC-DEMO-004: A changelog', 'ISC-DEMO-004: [NICE] A changelog'));
    const config = path.join(root, 'config');
    fs.mkdirSync(path.join(config, 'ideal-state'), { recursive: true });
    const port = (server.address() as AddressInfo).port;
    fs.writeFileSync(path.join(config, 'ideal-state', 'notifications.yaml'), `webhooks:\n  - url: http://127.0.0.1:${port}/hook\n    events: [criteria.tampered]\n    secretEnv: GATE_HOOK_SECRET\n`);
    const run = await runGate(['--host', 'claude-code', '--no-store', '--workspace', ws], claudeStop(ws), { state, env: { XDG_CONFIG_HOME: config, GATE_HOOK_SECRET: SECRET } });
    const d = decision(run);
    assert.equal(d.blocked, true, run.err);
    assert.match(d.text, /ISC-DEMO-004 TAMPERED/);
    for (let i = 0; i < 300 && received.length < 1; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(received.length, 1, 'one delivery, for the one webhook listening to criteria.tampered');
    const r = received[0]!;
    assert.equal(r.event, 'criteria.tampered');
    assert.ok(verifySignature(r.body, SECRET, r.signature), 'signed with the secret');
    assert.equal(verifySignature(r.body.replace('ISC-DEMO-004', 'ISC-DEMO-005'), SECRET, r.signature), false, 'a changed body fails the signature');
    const payload = JSON.parse(r.body) as { event: string; data: { host: string; prd: string; changes: { id: string; summary: string }[] } };
    assert.equal(payload.event, 'criteria.tampered');
    assert.equal(payload.data.host, 'claude-code');
    assert.equal(payload.data.prd, DEMO_PRD);
    assert.deepEqual(payload.data.changes.map((c) => c.id), ['ISC-DEMO-004']);
    assert.match(payload.data.changes[0]!.summary, /ISC-DEMO-004 was changed \(priority CRITICAL → NICE\)/);
    assert.deepEqual(fs.readdirSync(path.join(state, 'notify-queue')), []);
  });
});
