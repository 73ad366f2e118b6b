import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { verifySignature } from '../../../../src/app/notify/sign';
import { managerSteps, markerCriteria, markerFile, specialistSteps, type Step } from '../../support/algorithm-helpers';
import { BUILT_CLI } from '../../support/cli-helpers';
import { FakeServer, openAiCompletion } from '../../fixtures/llm/fake-server';
import { WebhookReceiver } from '../../fixtures/webhook-receiver';

/**
 * approval.waiting from the command line: `ideal-state run` asks the person at its terminal
 * only when it has one (stdin a TTY), so the run is started under a real pseudo-terminal
 * (util-linux `script`, Debian's bsdutils: test/harness/setup.mjs installs it) against a fake
 * OpenAI-compatible model and a local webhook receiver. The signed delivery must arrive while
 * the question is still open (the person is told before they answer, and the question is not
 * held for the delivery); then the test answers at the prompt and the run goes on.
 */

const SCRIPT = '/usr/bin/script';
const SECRET_ENV = 'IDEAL_STATE_TTY_HOOK_SECRET';
const SECRET = 'terminal-hook-secret-7';
const PROMPT = /Approve\? \[y\]es \/ \[n\]o \/ \[a\]lways for this run/g;

/** The scripted steps as an OpenAI-compatible server answers them (as algorithm-cli.test.ts does). */
function replies(server: FakeServer, steps: Step[]): void {
  steps.forEach((s, i) => {
    if (s.object !== undefined) server.reply(openAiCompletion({ content: JSON.stringify(s.object) }, 'stop'));
    else if (s.toolCalls) server.reply(openAiCompletion({ content: s.text ?? null, tool_calls: s.toolCalls.map((c, j) => ({ id: `call_${i}_${j}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) }, 'tool_calls'));
    else server.reply(openAiCompletion({ content: s.text ?? '' }, 'stop'));
  });
}

/** A word for the sh that `script -c` runs the command with. */
const sh = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

describe('approval.waiting from a terminal (a real pseudo-terminal)', function () {
  this.timeout(120_000);
  let root: string;
  let model: FakeServer;
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-tty-notify-'));
    model = await new FakeServer().start();
    receiver = await new WebhookReceiver().start();
    const config = path.join(root, 'config', 'ideal-state', 'notifications.yaml');
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, `webhooks:\n  - url: ${receiver.url}\n    events: [approval.waiting, run.finished]\n    secretEnv: ${SECRET_ENV}\n`);
  });
  afterEach(async () => {
    await model.stop();
    await receiver.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('the signed delivery arrives while the prompt waits; the answer at the prompt lets the run finish', async () => {
    assert.ok(fs.existsSync(SCRIPT), `${SCRIPT} is missing: apt-get install bsdutils (node test/harness/setup.mjs installs it)`);
    const ws = path.join(root, 'ws');
    fs.mkdirSync(ws);
    replies(model, [...managerSteps(markerCriteria(2)), ...specialistSteps('out.txt', markerFile(2))]);
    const args = [process.execPath, BUILT_CLI, 'run', 'Write out.txt with two markers', '--effort', 'INSTANT', '--workspace', ws, '--store', path.join(root, 'store.sqlite'), '--model', 'local-model'];
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC)_/.test(k)));
    const env = {
      ...clean,
      SHELL: '/bin/sh',
      TERM: 'dumb',
      OPENAI_BASE_URL: `${model.url}/v1`,
      OPENAI_API_KEY: 'sk-test-tty-0123456789',
      [SECRET_ENV]: SECRET,
      // The person's folders, the test's own: the webhooks file is read from XDG_CONFIG_HOME.
      XDG_CONFIG_HOME: path.join(root, 'config'),
      XDG_DATA_HOME: path.join(root, 'data'),
      XDG_STATE_HOME: path.join(root, 'state'),
      IDEAL_STATE_STATE_DIR: path.join(root, 'state', 'ideal-state'),
    };
    // -q: no banner, -f: flush each write, -e: script exits with the command's code; the typescript goes nowhere.
    const proc = spawn(SCRIPT, ['-qfec', `exec ${args.map(sh).join(' ')}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let exited: number | null | undefined;
    const closed = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve((exited = code))));
    proc.stdout.on('data', (d: Buffer) => (screen += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (screen += d.toString()));
    const asked = () => (screen.match(PROMPT) ?? []).length;
    try {
      const waiting = await receiver.waitFor('approval.waiting', 60_000);
      // The question is on the terminal and not answered: the run is held at it.
      for (let i = 0; i < 100 && asked() === 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(asked(), 1, screen);
      assert.equal(exited, undefined, 'the run waits for the person');
      assert.ok(!receiver.deliveries.some((d) => d.event === 'run.finished'));
      assert.ok(verifySignature(waiting.body, SECRET, waiting.signature), 'signed with the person\'s secret');
      assert.equal(verifySignature(waiting.body, 'another-secret', waiting.signature), false);
      const payload = JSON.parse(waiting.body) as { schema: string; event: string; test: boolean; workspace: string; data: { runId: string; kind: string; subject: string } };
      assert.equal(payload.schema, 'ideal-state.notification/v1');
      assert.equal(payload.event, 'approval.waiting');
      assert.equal(payload.test, false);
      assert.equal(payload.workspace, 'ws');
      assert.equal(payload.data.kind, 'edit');
      assert.match(payload.data.subject, /out\.txt/);
      assert.match(payload.data.runId, /^run-/);

      // The person answers at the prompt; each further question too.
      let answered = 0;
      while (exited === undefined) {
        if (asked() > answered) {
          proc.stdin.write('y\r');
          answered = asked();
        }
        await Promise.race([closed, new Promise((r) => setTimeout(r, 100))]);
      }
      assert.equal(exited, 0, screen);
      assert.equal(fs.readFileSync(path.join(ws, 'out.txt'), 'utf8'), markerFile(2));
      const finished = await receiver.waitFor('run.finished');
      assert.ok(verifySignature(finished.body, SECRET, finished.signature));
      const data = (JSON.parse(finished.body) as { data: { runId: string; state: string } }).data;
      assert.deepEqual([data.runId, data.state], [payload.data.runId, 'COMPLETE'], 'the same run, finished after the answer');
      assert.equal(receiver.deliveries.filter((d) => d.event === 'approval.waiting').length, answered);
    } finally {
      proc.stdin.end();
      if (exited === undefined) proc.kill('SIGKILL');
      await closed;
    }
  });
});
