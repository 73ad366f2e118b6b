import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadNotifications, userConfigFolder } from '../../../../src/app/notify/config';
import { deliver, signedRequest, type DeliveryLimits, type DeliveryPorts } from '../../../../src/app/notify/deliver';
import { gateEvents } from '../../../../src/app/notify/gate-events';
import { sendPayload } from '../../../../src/app/notify/notifier';
import { buildPayload, NotificationPayload, PAYLOAD_SCHEMA, slackBody } from '../../../../src/app/notify/payload';
import { signBody, verifySignature } from '../../../../src/app/notify/sign';
import type { PrdCheck } from '../../../../src/app/gate/verdict';
import { runCli } from '../../support/cli-helpers';

const temp = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};
const HOOK = 'webhooks:\n  - url: https://hooks.example.com/ideal-state\n    events: [run.finished, gate.released]\n    secretEnv: IDEAL_STATE_HOOK_SECRET\n';

/** A clock that only moves when the delivery sleeps or a post takes time: waits are counted, never slept. */
function fakePorts(answers: (number | Error)[], postMs = 0): DeliveryPorts & { slept: number[]; posts: number } {
  let now = 0;
  const ports = {
    slept: [] as number[],
    posts: 0,
    now: () => now,
    sleep: async (ms: number) => {
      ports.slept.push(ms);
      now += ms;
    },
    post: async () => {
      ports.posts++;
      now += postMs;
      const a = answers.shift() ?? 204;
      if (a instanceof Error) throw a;
      return { status: a };
    },
  };
  return ports;
}
const LIMITS: DeliveryLimits = { attempts: 5, firstBackoffMs: 1_000, totalMs: 30_000, attemptMs: 10_000 };

describe('notifications: the user file', () => {
  let root: string;
  beforeEach(() => (root = temp('ideal-state-notify-')));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('is read from $XDG_CONFIG_HOME/ideal-state/notifications.yaml, and the OS folders otherwise', async () => {
    const env = { XDG_CONFIG_HOME: path.join(root, 'config') };
    write(path.join(root, 'config', 'ideal-state', 'notifications.yaml'), HOOK);
    const loaded = await loadNotifications({ env, platform: 'linux' });
    assert.deepEqual(loaded.problems, []);
    assert.deepEqual(loaded.webhooks, [{ url: 'https://hooks.example.com/ideal-state', events: ['run.finished', 'gate.released'], secretEnv: 'IDEAL_STATE_HOOK_SECRET', format: 'json' }]);
    assert.equal(userConfigFolder({}, 'linux'), path.join(os.homedir(), '.config', 'ideal-state'));
    assert.equal(userConfigFolder({}, 'darwin'), path.join(os.homedir(), 'Library', 'Application Support', 'ideal-state'));
    assert.equal(userConfigFolder({ APPDATA: 'C:\\Users\\p\\AppData\\Roaming' }, 'win32'), path.join('C:\\Users\\p\\AppData\\Roaming', 'ideal-state'));
  });

  it('bad input is a problem with the file and line, and no webhook is used', async () => {
    const env = { XDG_CONFIG_HOME: path.join(root, 'config') };
    const file = path.join(root, 'config', 'ideal-state', 'notifications.yaml');
    write(file, 'webhooks:\n  - url: https://hooks.example.com/x\n    events: [run.finished, run.exploded]\n    secretEnv: X_SECRET\n  - url: http://example.com/plain\n    events: [loop.finished]\n    secretEnv: "sk-this-is-the-secret-itself"\n');
    const loaded = await loadNotifications({ env, platform: 'linux' });
    assert.deepEqual(loaded.webhooks, []);
    assert.ok(loaded.problems.some((p) => p.startsWith(`${file}:3:`) && /webhooks\.0\.events\.1/.test(p)), loaded.problems.join('\n'));
    assert.ok(loaded.problems.some((p) => p.startsWith(`${file}:5:`) && /https \(http only to this machine/.test(p)), loaded.problems.join('\n'));
    assert.ok(loaded.problems.some((p) => p.startsWith(`${file}:7:`) && /name of an environment variable/.test(p)), loaded.problems.join('\n'));
  });

  it('a FIFO, a folder or an oversized file is a problem, never a hang', async () => {
    const env = { XDG_CONFIG_HOME: path.join(root, 'config') };
    const file = path.join(root, 'config', 'ideal-state', 'notifications.yaml');
    fs.mkdirSync(file, { recursive: true });
    assert.match((await loadNotifications({ env, platform: 'linux' })).problems.join('\n'), /not a regular file/);
    fs.rmdirSync(file);
    spawnSync('mkfifo', [file]);
    assert.match((await loadNotifications({ env, platform: 'linux' })).problems.join('\n'), /not a regular file/);
    fs.rmSync(file);
    write(file, `webhooks: []\n#${'x'.repeat(300 * 1024)}\n`);
    assert.match((await loadNotifications({ env, platform: 'linux' })).problems.join('\n'), /larger than 256 KB/);
  });

  it('a workspace can never add a webhook: its notifications.yaml, a setting file or XDG_CONFIG_HOME inside it are ignored, and said so', async () => {
    const workspace = path.join(root, 'ws');
    write(path.join(workspace, '.ideal-state', 'notifications.yaml'), HOOK);
    write(path.join(workspace, 'notifications.yaml'), HOOK);
    write(path.join(workspace, 'cfg', 'ideal-state', 'notifications.yaml'), HOOK);
    const loaded = await loadNotifications({ env: { XDG_CONFIG_HOME: path.join(workspace, 'cfg'), HOME: path.join(root, 'home') }, platform: 'linux', workspace, settingFile: path.join(workspace, 'notifications.yaml') });
    assert.deepEqual(loaded.webhooks, []);
    assert.equal(loaded.ignored.length, 4, loaded.ignored.join('\n'));
    assert.ok(loaded.ignored.some((l) => l.includes('from the setting idealState.notifications.file') && l.includes('inside the workspace')));
    assert.ok(loaded.ignored.some((l) => l.includes('from XDG_CONFIG_HOME') && l.includes('inside the workspace')));
    assert.ok(loaded.ignored.some((l) => l.startsWith(path.join(workspace, '.ideal-state', 'notifications.yaml')) && l.includes('cannot add a webhook')));
    // A symlink from outside into the workspace is inside too.
    const link = path.join(root, 'linked');
    fs.symlinkSync(path.join(workspace, 'cfg'), link);
    const linked = await loadNotifications({ env: { XDG_CONFIG_HOME: link }, platform: 'linux', workspace });
    assert.deepEqual(linked.webhooks, []);
    assert.ok(linked.ignored.some((l) => l.includes('from XDG_CONFIG_HOME')));
  });
});

describe('notifications: signing', () => {
  it('signs as GitHub does: its documented test vector', () => {
    // https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
    assert.equal(signBody('Hello, World!', "It's a Secret to Everybody"), 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17');
    assert.equal(verifySignature('Hello, World!', "It's a Secret to Everybody", 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17'), true);
    assert.equal(verifySignature('Hello, World?', "It's a Secret to Everybody", 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17'), false);
    assert.equal(verifySignature('Hello, World!', 'another secret', signBody('Hello, World!', "It's a Secret to Everybody")), false);
    assert.equal(verifySignature('Hello, World!', 'x', undefined), false);
  });

  it('a delivery is signed over its exact body, and never sent without its secret', () => {
    const payload = buildPayload('run.finished', { runId: 'r1', state: 'COMPLETE', passing: 1, total: 1, failing: [] });
    const hook = { url: 'https://hooks.example.com/x', events: ['run.finished' as const], secretEnv: 'HOOK_SECRET', format: 'json' as const };
    const signed = signedRequest(hook, payload, { HOOK_SECRET: 'abc123secret' });
    assert.ok(signed.ok);
    assert.equal(signed.headers['x-ideal-state-signature-256'], signBody(signed.body, 'abc123secret'));
    assert.deepEqual(NotificationPayload.parse(JSON.parse(signed.body)), payload);
    const unsigned = signedRequest(hook, payload, {});
    assert.equal(unsigned.ok, false);
    assert.match(unsigned.ok ? '' : unsigned.error, /HOOK_SECRET .* is not set: nothing was sent unsigned/);
  });

  it('format: slack sends Slack\'s { text }, escaped', () => {
    const payload = buildPayload('loop.finished', { loopId: 'loop-1', state: 'FAILED', passing: 3, total: 4, unmet: ['a<b>.md'] }, { workspace: '/home/p/site', startedBy: { who: 'schedule', schedule: 'weekly' } });
    assert.deepEqual(slackBody(payload), { text: 'Loop loop-1 finished FAILED in site: 3/4 artifacts passing (schedule weekly)' });
    const signed = signedRequest({ url: 'https://hooks.slack.com/services/x', events: ['loop.finished'], secretEnv: 'S', format: 'slack' }, payload, { S: 'secret-value' });
    assert.ok(signed.ok);
    assert.deepEqual(Object.keys(JSON.parse(signed.body)), ['text']);
    // Slack reads <…> as a mention or link and & as an entity: the event's words are text.
    const failed = buildPayload('schedule.failed', { schedule: 'weekly', state: 'FAILED', reason: '<!channel> & <https://evil.example|click>' });
    assert.equal(slackBody(failed).text, 'Schedule weekly failed: FAILED: &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;');
  });
});

describe('notifications: delivery', () => {
  it('retries a 500 with doubling waits, then stops at the first 2xx', async () => {
    const ports = fakePorts([500, 503, 204]);
    const result = await deliver('https://x', '{}', {}, ports, LIMITS);
    assert.deepEqual(result, { ok: true, attempts: 3, status: 204 });
    assert.deepEqual(ports.slept, [1_000, 2_000]);
  });

  it('retries a network error and a 429, never a 4xx refusal', async () => {
    const flaky = fakePorts([new Error('ECONNREFUSED'), 429, 200]);
    assert.equal((await deliver('https://x', '{}', {}, flaky, LIMITS)).ok, true);
    assert.equal(flaky.posts, 3);
    const refused = fakePorts([400, 204]);
    assert.deepEqual(await deliver('https://x', '{}', {}, refused, LIMITS), { ok: false, attempts: 1, status: 400, error: 'HTTP 400' });
    assert.equal(refused.posts, 1);
  });

  it('gives up after its attempts, and within its total time', async () => {
    const down = fakePorts([500, 500, 500, 500, 500, 500, 500]);
    const result = await deliver('https://x', '{}', {}, down, LIMITS);
    assert.deepEqual(result, { ok: false, attempts: 5, status: 500, error: 'HTTP 500' });
    assert.deepEqual(down.slept, [1_000, 2_000, 4_000, 8_000]);
    // Each answer takes 9 s: attempts at 0, 10 and 21 s end at 30 s, and no fourth one starts.
    const slow = fakePorts([500, 500, 500, 500, 500], 9_000);
    const bounded = await deliver('https://x', '{}', {}, slow, LIMITS);
    assert.equal(bounded.ok, false);
    assert.ok(slow.now() <= LIMITS.totalMs, `spent ${slow.now()} ms`);
    assert.equal(slow.posts, 3);
  });

  it('a failure is said (origin only: a webhook URL\'s path can be its secret) and logged', async () => {
    const state = temp('ideal-state-notify-state-');
    try {
      const warned: string[] = [];
      const payload = buildPayload('run.finished', { runId: 'r1', state: 'FAILED', passing: 0, total: 1, failing: [] });
      const loaded = { file: 'n.yaml', problems: [], ignored: [], webhooks: [{ url: 'https://hooks.example.com/T000/B000/secretpath', events: ['run.finished' as const], secretEnv: 'S', format: 'json' as const }] };
      const sent = await sendPayload(payload, { env: { S: 'secret-value', IDEAL_STATE_STATE_DIR: state }, loaded, delivery: fakePorts([500, 500]), limits: { ...LIMITS, attempts: 2 }, warn: (l) => warned.push(l) });
      assert.equal(sent[0]!.result.ok, false);
      assert.equal(warned.length, 1);
      assert.match(warned[0]!, /the run\.finished notification to https:\/\/hooks\.example\.com\/… failed: HTTP 500 \(after 2 attempts/);
      assert.doesNotMatch(warned[0]!, /secretpath/);
      const log = fs.readFileSync(path.join(state, 'notifications.log'), 'utf8');
      assert.match(log, /run\.finished .* https:\/\/hooks\.example\.com\/… FAILED after 2 attempts: HTTP 500/);
    } finally {
      fs.rmSync(state, { recursive: true, force: true });
    }
  });
});

describe('notifications: the payload', () => {
  it('is versioned, names the workspace by its folder only, and redacts evidence as reports do', () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const payload = buildPayload('gate.released', { host: 'claude-code', why: 'block-limit', summary: `token ghp_${'a'.repeat(36)}`, prds: [{ prd: 'PRD-1.md', failing: [{ id: 'ISC-1', outcome: 'FAIL', evidence: `curl said: Authorization: Bearer ${key}\nAPI_TOKEN=hunter2hunter2` }] }] }, { workspace: '/home/person/projects/site' });
    assert.equal(payload.schema, PAYLOAD_SCHEMA);
    assert.equal(payload.workspace, 'site');
    const text = JSON.stringify(payload);
    assert.ok(!text.includes(key) && !text.includes('hunter2hunter2') && !text.includes('ghp_aaaa'), text);
    assert.match(text, /\[redacted\]/);
    assert.ok(!text.includes('/home/person'));
  });

  it('each event\'s data is checked against its schema', () => {
    assert.throws(() => buildPayload('loop.finished', { loopId: 'l', state: 'COMPLETE' } as never));
    assert.throws(() => buildPayload('run.finished', { runId: 'r', state: 'COMPLETE', passing: 1, total: 1, failing: [], extra: 1 } as never));
  });
});

describe('notifications: the gate\'s events', () => {
  const verified = (outcome: 'PASS' | 'FAIL'): PrdCheck['result'] =>
    ({ kind: 'verified', prd: [{ id: 'ISC-1', priority: 'CRITICAL' }], set: { summary: outcome === 'PASS' ? '1/1 pass' : '0/1 pass', counts: {}, results: [{ criterionId: 'ISC-1', outcome, evidence: outcome === 'PASS' ? 'ok' : 'exit 1', locations: [] }] } }) as unknown as PrdCheck['result'];
  const check = (outcome: 'PASS' | 'FAIL', changes: PrdCheck['changes'] = []): PrdCheck => ({ file: '/w/PRD.md', shown: 'PRD.md', result: verified(outcome), changes });

  it('a stop let through with a CRITICAL criterion failing is gate.released, with what fails', () => {
    const events = gateEvents([check('FAIL')], 'lock', { kind: 'allow', note: 'limit' }, { host: 'claude-code', agentBlocked: false });
    assert.deepEqual(events.map((e) => e.event), ['gate.released']);
    const data = events[0]!.data as { why: string; prds: { failing: { id: string; outcome: string }[] }[] };
    assert.equal(data.why, 'block-limit');
    assert.deepEqual(data.prds[0]!.failing.map((f) => [f.id, f.outcome]), [['ISC-1', 'FAIL']]);
  });

  it('a stop blocked, or let through with everything passing, is no event', () => {
    assert.deepEqual(gateEvents([check('FAIL')], 'lock', { kind: 'block', reason: 'r', summary: 's' }, { host: 'codex', agentBlocked: false }), []);
    assert.deepEqual(gateEvents([check('PASS')], 'lock', { kind: 'allow' }, { host: 'codex', agentBlocked: false }), []);
  });

  it('a changed locked criterion is criteria.tampered, whatever the verdict', () => {
    const events = gateEvents([check('PASS', [{ id: 'ISC-1', what: 'criterion', summary: 'ISC-1 text changed', diff: ['- a', '+ b'] }])], 'lock', { kind: 'block', reason: 'r', summary: 's' }, { host: 'codex', agentBlocked: false });
    assert.deepEqual(events, [{ event: 'criteria.tampered', data: { host: 'codex', prd: 'PRD.md', changes: [{ id: 'ISC-1', summary: 'ISC-1 text changed' }] } }]);
  });
});

describe('ideal-state notify (the command line)', function () {
  this.timeout(30_000);
  it('refuses a workspace notifications.yaml and says so; a bad user file is exit 2 with file and line', async () => {
    const root = temp('ideal-state-notify-cli-');
    try {
      const workspace = path.join(root, 'ws');
      write(path.join(workspace, '.ideal-state', 'notifications.yaml'), HOOK);
      const env = { XDG_CONFIG_HOME: path.join(root, 'config'), HOME: path.join(root, 'home') };
      const none = await runCli(['notify', 'test', '--workspace', workspace], { env });
      assert.equal(none.code, 2);
      assert.match(none.err, /notifications\.yaml is in the workspace, which cannot add a webhook; it is ignored/);
      assert.match(none.err, /no webhooks in .*config\/ideal-state\/notifications\.yaml/);
      const file = path.join(root, 'config', 'ideal-state', 'notifications.yaml');
      write(file, 'webhooks:\n  - url: https://x.example\n    events: []\n    secretEnv: S\n');
      const bad = await runCli(['notify', 'check', '--workspace', workspace], { env });
      assert.equal(bad.code, 2);
      assert.ok(bad.err.includes(`${file}:3:`), bad.err);
      assert.match(bad.err, /list at least one event/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
