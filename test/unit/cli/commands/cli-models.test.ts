import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { modelsCommand } from '../../../../src/cli/commands/models';
import { trustCommand } from '../../../../src/cli/commands/trust';
import { shippedCatalogue } from '../../../../src/llm/catalogue';
import type { CheckReport } from '../../../../src/llm/check-model';
import { Store } from '../../../../src/store/store';
import { runCli } from '../../support/cli-helpers';
import { contentQueue, type ContentStep } from '../../fixtures/llm/contract-content';
import { OpenAiContractServer } from '../../fixtures/llm/contract-openai';

/** A current OpenAI model of the shipped catalogue (its default). */
const CURRENT = shippedCatalogue().defaults.openai;
const KEY = 'sk-test-models-check-0123456789';

/** What a working model answers to the check: a structured answer, then a call of the echo tool. */
const WORKING: ContentStep[] = [{ object: { ok: true, says: 'ready' } }, { toolCalls: [{ name: 'echo', arguments: { text: 'ready' } }] }];

function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
}

/** Runs `ideal-state models …` in this process with its own environment; collects both streams. */
async function check(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const store = path.join(tempDir('models-store'), 'db.sqlite');
  const code = await modelsCommand([...args, '--store', store, '--workspace', tempDir('models-ws')], { out: (s) => out.push(s), err: (s) => err.push(s) }, env);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('command line: ideal-state models check', () => {
  let server: OpenAiContractServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  async function serve(steps: ContentStep[], options: { localModels?: string[]; refusesTools?: boolean } = {}): Promise<OpenAiContractServer> {
    server = await new OpenAiContractServer({ content: contentQueue(steps), ...options }).start();
    return server;
  }

  it('checks the model `run` would use (environment key, --model) and prints one JSON object: exit 0', async () => {
    const fake = await serve(WORKING);
    const r = await check(['check', '--json', '--model', CURRENT, '--effort', 'FAST'], { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseURL });
    assert.equal(r.code, 0, r.err + r.out);
    const report = JSON.parse(r.out) as CheckReport;
    assert.equal(report.level, 'FAST');
    assert.equal(report.works, true);
    assert.deepEqual(report.roles.map((x) => [x.role, x.model, x.shapes.map((s) => s.outcome)]), [
      ['manager', CURRENT, ['ok', 'ok']],
      ['specialist', CURRENT, ['ok', 'ok']],
      ['verifier', CURRENT, ['ok', 'ok']],
    ]);
    assert.equal(report.roles[0]!.catalogue.status, 'catalogued');
    assert.deepEqual(fake.refused, [], 'every request held the contract');
    assert.equal(fake.received.length, 2, 'one call of each shape for the three roles');
    assert.equal(r.err, '', '--json prints no progress');
    assert.doesNotMatch(r.out + r.err, /sk-test-models/);
  });

  it('reports a local server that refuses tools as adapted, in words, and keeps the lesson for later runs', async () => {
    const fake = await serve([WORKING[0]!, { text: '{"tool_calls": [{"name": "echo", "arguments": {"text": "ready"}}]}' }], { localModels: ['qwen-local'], refusesTools: true });
    const storeFile = path.join(tempDir('models-store'), 'db.sqlite');
    const out: string[] = [];
    const err: string[] = [];
    const code = await modelsCommand(['check', '--model', 'qwen-local', '--store', storeFile, '--workspace', tempDir('models-ws')], { out: (s) => out.push(s), err: (s) => err.push(s) }, { OPENAI_BASE_URL: fake.baseURL });
    assert.equal(code, 0, [...err, ...out].join('\n'));
    assert.equal(out[0], 'Check Model at STANDARD: every role works');
    assert.equal(out[1], 'manager, specialist and verifier: qwen-local (provider openai, model id qwen-local)');
    assert.match(out.join('\n'), /catalogue: not in the model catalogue: its capabilities are guessed/);
    assert.match(out.join('\n'), /\n {2}structured output: ok \(\d+\.\d s\)\n/);
    assert.match(out.join('\n'), /\n {2}tool call: adapted \(tools were refused; tool calls now go through the prompt-level protocol\) \(\d+\.\d s\)\n/);
    assert.match(err.join('\n'), /^checking qwen-local: structured output\nchecking qwen-local: tool call$/m);
    assert.deepEqual(fake.refused.map((x) => x.rule), ['tools only where the model (or local server) takes them'], 'refused once, then adapted');
    const store = await Store.open({ file: storeFile });
    try {
      assert.deepEqual(store.modelLessons.list().map((l) => [l.model, l.param]), [['qwen-local', 'tools']]);
    } finally {
      store.close();
    }
  });

  it('exits 1 with the typed failure and what to change when the server does not know the model', async () => {
    const fake = await serve([]);
    const r = await check(['check', '--model', 'gpt-nonexistent'], { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseURL });
    assert.equal(r.code, 1, r.err + r.out);
    assert.match(r.out, /structured output: failed \[not-found\]/);
    assert.match(r.out, /change: check the model name "gpt-nonexistent": provider "openai" does not serve it/);
    assert.equal(r.out.split('\n')[0], 'Check Model at STANDARD: manager, specialist and verifier do not work');
  });

  it('exits 2 on a usage or configuration error, before any call', async () => {
    const unknown = await check(['frobnicate'], {});
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /models takes one command, check/);
    const level = await check(['check', '--effort', 'SOMETIME'], { OPENAI_API_KEY: KEY });
    assert.equal(level.code, 2);
    assert.match(level.err, /unknown effort level "SOMETIME"/);
    const none = await check(['check'], {});
    assert.equal(none.code, 2);
    assert.match(none.err, /no language model is configured: set OPENAI_API_KEY or ANTHROPIC_API_KEY/);
    const provider = await check(['check', '--provider', 'mistral'], { OPENAI_API_KEY: KEY });
    assert.equal(provider.code, 2);
    assert.match(provider.err, /--provider is openai, anthropic or scripted, not "mistral"/);
  });

  it('reads the workspace models file once trusted, as a run does: a provider without a key is "set the key", exit 1', async () => {
    const ws = tempDir('models-ws');
    fs.mkdirSync(path.join(ws, '.ideal-state'));
    fs.writeFileSync(path.join(ws, '.ideal-state', 'models.yaml'), ['version: 1', 'providers: [{ id: anthropic, kind: anthropic }]', `models: [{ id: claude, provider: anthropic, model: ${shippedCatalogue().defaults.anthropic} }]`, ''].join('\n'));
    const env = { XDG_DATA_HOME: tempDir('models-data') };
    const quiet = { out: () => undefined, err: () => undefined };
    assert.equal(await trustCommand(['.ideal-state/models.yaml', '--workspace', ws], quiet, env), 0);
    const out: string[] = [];
    const code = await modelsCommand(['check', '--json', '--workspace', ws, '--store', path.join(tempDir('models-store'), 'db.sqlite')], { out: (s) => out.push(s), err: () => undefined }, env);
    assert.equal(code, 1);
    const report = JSON.parse(out.join('')) as CheckReport;
    assert.deepEqual(report.roles.map((r) => [r.modelId, r.unavailable?.code]), [['claude', 'no-key'], ['claude', 'no-key'], ['claude', 'no-key']]);
    assert.match(report.roles[0]!.changes[0]!, /set the API key of provider "anthropic" \("Ideal State: Set API Key" in the editor, ANTHROPIC_API_KEY on the command line\)/);
  });
});

const spawnCli = (args: string[], env: Record<string, string>) => runCli(args, { env });

describe('command line (dist/cli.js): models check', () => {
  it('is in the help, and checks a model end to end with exit 0', async function () {
    this.timeout(30_000);
    const help = await spawnCli(['--help'], {});
    assert.match(help.out, /models check \[--effort LEVEL\] \[--model M\] \[--provider P\] \[--json\]/);
    const fake = await new OpenAiContractServer({ content: contentQueue(WORKING) }).start();
    try {
      const ws = tempDir('models-ws');
      const r = await spawnCli(['models', 'check', '--json', '--model', CURRENT, '--workspace', ws, '--store', path.join(ws, '..', `${path.basename(ws)}.sqlite`)], { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseURL });
      assert.equal(r.code, 0, r.err);
      const report = JSON.parse(r.out) as CheckReport;
      assert.equal(report.works, true);
      assert.equal(fake.received.length, 2);
    } finally {
      await fake.stop();
    }
  });
});
