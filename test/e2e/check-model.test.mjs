import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { useWorkbench } from './workbench-suite.mjs';
import { yamlData } from '../../build/yaml-data.mjs';

const MODELS_FILE = '.ideal-state/check-models.yaml';
const MODEL = 'qwen2.5-coder:7b';

/**
 * The unit tier's contract fake of an OpenAI-compatible local server (it holds OpenAI's request
 * rules and answers in the real shapes), bundled for this plain-JS suite. This one refuses tools
 * the way Ollama does, so Check Model has something to adapt to.
 */
async function startLocalServer() {
  const out = join(mkdtempSync(join(tmpdir(), 'ideal-state-e2e-fake-')), 'contract-openai.cjs');
  await build({ entryPoints: ['test/unit/fixtures/llm/contract-openai.ts'], bundle: true, platform: 'node', format: 'cjs', outfile: out, loader: { '.yaml': 'text' }, plugins: [yamlData], logLevel: 'warning' });
  const { OpenAiContractServer } = await import(pathToFileURL(out).href);
  const echo = { name: 'echo', arguments: { text: 'ping' } };
  const server = new OpenAiContractServer({
    localModels: [MODEL],
    refusesTools: true,
    // A structured request asks for the check's tiny object, unless it is the prompt-level tool protocol.
    content: (r) =>
      r.structured && !JSON.stringify(r.body).includes('tool_calls')
        ? { object: { ok: true, says: 'ready' } }
        : Array.isArray(r.body?.tools) && r.body.tools.length > 0
          ? { toolCalls: [echo] }
          : { text: JSON.stringify({ tool_calls: [echo] }) },
  });
  return server.start();
}

describe('Check Model, as a person runs it after choosing a local model', () => {
  let server;
  before(async () => {
    server = await startLocalServer();
  });
  after(async () => {
    await server?.stop();
  });
  const workbench = useWorkbench({ trusted: true, settings: { 'idealState.models.configFile': MODELS_FILE } });

  it('says the model works for every role, names what it adapted to, and shows the report in the log', async () => {
    mkdirSync(join(workbench.workspace, '.ideal-state'), { recursive: true });
    writeFileSync(
      join(workbench.workspace, MODELS_FILE),
      ['version: 1', 'providers:', `  - { id: ollama, kind: openai, baseUrl: "${server.baseURL}" }`, 'models:', `  - { id: local, provider: ollama, model: "${MODEL}" }`, 'routing:', '  default: local', ''].join('\n'),
    );
    await workbench.runCommand('Ideal State: Check Model');
    // The progress notification also starts "Check Model:"; the summary names the model's verdict.
    const [summary] = (await workbench.notifications({ containing: `Check Model: ${MODEL} `, timeoutMs: 30_000 })).filter((t) => t.includes(`Check Model: ${MODEL} `));
    assert.match(summary, new RegExp(`${MODEL.replace(/[.]/g, '\\.')} works for every role`), summary);
    assert.match(summary, /tools were refused/, summary);
    await workbench.screenshot('check model summary after adapting to a server that refuses tools');

    // The server refused the tools once, and every request after that held its rules.
    const refused = server.received.filter((r) => r.status !== 200);
    assert.equal(refused.length, 1, JSON.stringify(server.received.map((r) => [r.status, r.rule])));
    assert.match(refused[0].error.message, /does not support tools/);
    assert.ok(server.received.length >= 3, 'the structured call, the refused tool call and its retry');

    await workbench.page.locator('.notification-list-item', { hasText: 'Check Model:' }).first().getByRole('button', { name: 'Show Log' }).click();
    const output = workbench.page.locator('.part.panel .monaco-editor .view-lines');
    await output.filter({ hasText: 'tool call: adapted' }).first().waitFor({ timeout: 15_000 });
    await workbench.screenshot('check model report in the log');
  });

  it('is offered after Select Model, and a click runs it again with what was learned', async () => {
    // The first check's summary stays in the notification center; start from none.
    await workbench.runCommand('Notifications: Clear All Notifications');
    await workbench.runCommand('Ideal State: Select Model');
    await workbench.pickQuickPickItem(`local (${MODEL})`);
    // Headless windows often do not toast: the helper opens the notification center when needed.
    await workbench.notifications({ containing: `Ideal State will use local (${MODEL})` });
    const offer = workbench.page.locator('.notification-list-item', { hasText: 'Ideal State will use' }).first();
    const before = server.received.length;
    await offer.getByRole('button', { name: 'Check Model' }).click();
    await workbench.notifications({ containing: `Check Model: ${MODEL} works`, timeoutMs: 30_000 });
    await workbench.page.locator('.notification-list-item', { hasText: `Check Model: ${MODEL} works` }).last().waitFor({ timeout: 15_000 });
    const since = server.received.slice(before);
    assert.ok(since.length >= 2, 'both shapes were called again');
    // Learned in the first check and kept in the store: the tools are not offered to this server again.
    assert.ok(since.every((r) => r.status === 200), JSON.stringify(since.map((r) => [r.status, r.rule])));
    assert.ok(since.every((r) => !Array.isArray(r.body?.tools) || r.body.tools.length === 0), 'no tools sent after the lesson');
  });
});
