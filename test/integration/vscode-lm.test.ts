import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { z } from 'zod';
import { activateIdealState, extensionEngine, waitForLogLine, type IdealStateApi } from './ideal-state';
import { callsTool, countWords, hangsAfter, says, ScriptedChatProvider, TEST_MODEL_ID, TEST_MODEL_NAME, TEST_VENDOR } from './scripted-chat-provider';

const OPTION_ID = `vscode-lm:${TEST_MODEL_ID}`;
const LABEL = `VS Code: ${TEST_MODEL_NAME}`;

// A chat model from a provider registered through VS Code's Language Model API, used through
// Ideal State's vscode.lm provider like any model VS Code offers (e.g. GitHub Copilot's).
describe('a model VS Code provides (vscode.lm), with a scripted test provider', () => {
  let api: IdealStateApi;
  let provider: ScriptedChatProvider;

  before(async () => {
    api = await activateIdealState();
    provider = new ScriptedChatProvider();
  });

  after(() => provider.dispose());

  afterEach(function () {
    if (this.currentTest?.state === 'passed') assert.equal(provider.unusedTurns, 0, 'every scripted reply was asked for');
  });

  it('lists it first in Select Model, as VS Code names it, with no key needed', async () => {
    const options = await api.modelOptions();
    assert.equal(options[0]?.id, OPTION_ID, JSON.stringify(options));
    assert.equal(options[0].label, LABEL);
    assert.equal(options[0].available, true);
    assert.match(options[0].detail, new RegExp(`^${TEST_VENDOR} · .* · no key needed$`));
    assert.equal(options.filter((o) => o.label === LABEL).length, 1, 'listed once, though the defaults route to it too');
  });

  it('is the default with nothing configured or selected (no models file, no key, no local server)', async () => {
    const selected = await api.selectedModel();
    assert.ok(selected.ok, JSON.stringify(selected));
    assert.equal(selected.kind, 'vscode-lm');
    assert.equal(selected.displayName, LABEL);
    assert.equal(selected.from, 'defaults');
    await waitForLogLine(new RegExp(`no models configured: using ${TEST_MODEL_NAME} from ${TEST_VENDOR} in VS Code`));
  });

  it('serves every role once picked with Select Model, unless the models file routes the roles itself', async () => {
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.ideal-state/models.yaml');
    const models = vscode.workspace.getConfiguration('idealState.models');
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode('version: 1\nproviders: [{ id: lmstudio, kind: openai, baseUrl: "http://127.0.0.1:1234/v1" }]\nmodels: [{ id: coder, provider: lmstudio, model: qwen2.5-coder }]\n'));
    try {
      assert.equal((await api.modelsForRun('STANDARD')).router.route('verifier', 'STANDARD').id, 'coder', 'before the pick: the file\'s first model');
      await models.update('default', OPTION_ID, vscode.ConfigurationTarget.Workspace);
      const selected = await api.selectedModel();
      assert.ok(selected.ok && selected.from === 'setting' && selected.id === OPTION_ID, JSON.stringify(selected));
      const { router } = await api.modelsForRun('STANDARD');
      for (const role of ['manager', 'specialist', 'verifier'] as const) assert.equal(router.route(role, 'STANDARD').displayName, LABEL, role);
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode('version: 1\nproviders: [{ id: lmstudio, kind: openai, baseUrl: "http://127.0.0.1:1234/v1" }]\nmodels: [{ id: coder, provider: lmstudio, model: qwen2.5-coder }]\nrouting: { default: coder }\n'));
      assert.equal((await api.modelsForRun('STANDARD')).router.route('manager', 'STANDARD').id, 'coder', 'a models file that routes the roles wins over the pick');
      const routed = await api.selectedModel();
      assert.ok(routed.ok && routed.from === 'workspace file' && routed.id === 'coder', JSON.stringify(routed));
    } finally {
      await models.update('default', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.workspace.fs.delete(file, { useTrash: false });
    }
  });

  it('streams a chat reply part by part, with the system text first and tokens counted by the model', async () => {
    provider.script(says('All ', 'criteria ', 'hold.'));
    const model = await api.model(OPTION_ID);
    assert.ok(model, 'the option id names a usable model');
    const parts: string[] = [];
    const messages = [
      { role: 'system' as const, content: 'You verify criteria.' },
      { role: 'user' as const, content: 'Does the login form reject an empty password?' },
    ];
    const reply = await model.chat({ messages, onPart: (p) => p.type === 'text' && parts.push(p.text) });
    assert.deepEqual(parts, ['All ', 'criteria ', 'hold.'], 'each part arrived as it was sent');
    assert.equal(reply.text, 'All criteria hold.');
    assert.equal(reply.stopReason, 'end');
    assert.deepEqual(provider.seen[0]?.messages, ['You verify criteria.', 'Does the login form reject an empty password?'], 'vscode.lm has no system role: it goes first as a user message');
    const words = countWords(messages.map((m) => m.content).join(' '));
    assert.deepEqual(reply.usage, { inputTokens: words, outputTokens: 3, estimated: true }, 'the model counted both sides (vscode.lm reports no usage)');
  });

  it('answers structured requests through a forced tool, validated against the schema', async () => {
    const { generateObject } = extensionEngine();
    const Verdict = z.object({ verdict: z.enum(['PASS', 'FAIL']), evidence: z.string() }).strict();
    provider.script(callsTool('verdict', { verdict: 'PASS', evidence: 'src/login.ts:12 rejects ""' }));
    const model = (await api.model(OPTION_ID))!;
    const result = await generateObject(model, { name: 'verdict', schema: Verdict, messages: [{ role: 'user', content: 'Judge ISC-1.' }] });
    assert.deepEqual(result.value, { verdict: 'PASS', evidence: 'src/login.ts:12 rejects ""' });
    assert.equal(result.invalidOutputs, 0);
    const seen = provider.seen.at(-1)!;
    assert.deepEqual(seen.tools, ['verdict']);
    assert.equal(seen.toolMode, vscode.LanguageModelChatToolMode.Required, 'the tool is forced');
    assert.deepEqual((seen.toolSchemas[0] as { required?: string[] }).required, ['verdict', 'evidence'], 'the schema went to the provider as JSON schema');
  });

  it('asks once more after invalid structured output, then fails with the typed error', async () => {
    const { generateObject, StructuredOutputError } = extensionEngine();
    const Verdict = z.object({ verdict: z.enum(['PASS', 'FAIL']) }).strict();
    provider.script(says('I think it passes.'), callsTool('verdict', { verdict: 'MAYBE' }));
    const model = (await api.model(OPTION_ID))!;
    const before = provider.seen.length;
    await assert.rejects(generateObject(model, { name: 'verdict', schema: Verdict, messages: [{ role: 'user', content: 'Judge ISC-2.' }] }), (e: unknown) => {
      assert.ok(e instanceof StructuredOutputError, String(e));
      assert.equal(e.attempts, 2);
      assert.equal(e.model, LABEL);
      return true;
    });
    assert.equal(provider.seen.length - before, 2);
    assert.match(provider.seen.at(-1)!.messages.at(-1)!, /not a valid "verdict"/, 'the repair prompt reached the model');
  });

  it('cancels: aborting the signal cancels the request in the provider and rejects with the cancellation error', async () => {
    const { CancelledError } = extensionEngine();
    provider.script(hangsAfter('Working'));
    const model = (await api.model(OPTION_ID))!;
    const controller = new AbortController();
    const cancelledBefore = provider.cancellations;
    const call = model.chat({ messages: [{ role: 'user', content: 'A long answer, please.' }], signal: controller.signal, onPart: () => controller.abort() });
    await assert.rejects(call, (e: unknown) => e instanceof CancelledError);
    await waitUntil(() => provider.cancellations > cancelledBefore, 'the provider saw its token cancelled');
  });

  it('times out a request that never finishes, cancelling it in the provider', async () => {
    const { LlmTimeoutError } = extensionEngine();
    provider.script(hangsAfter('Still thinking'));
    const model = (await api.model(OPTION_ID))!;
    const cancelledBefore = provider.cancellations;
    await assert.rejects(model.chat({ messages: [{ role: 'user', content: 'Hello' }], timeoutMs: 300 }), (e: unknown) => e instanceof LlmTimeoutError && e.timeoutMs === 300);
    await waitUntil(() => provider.cancellations > cancelledBefore, 'the provider saw its token cancelled');
  });

  it('turns a provider failure into a typed provider error', async () => {
    const { LlmProviderError } = extensionEngine();
    provider.script(async () => {
      throw new Error('scripted failure');
    });
    const model = (await api.model(OPTION_ID))!;
    await assert.rejects(model.chat({ messages: [{ role: 'user', content: 'Hello' }] }), (e: unknown) => e instanceof LlmProviderError && /scripted failure/.test(e.message));
  });

  it('is routed and accounted for a run: counted tokens, cost unknown (0, unpriced), held to the token caps', async () => {
    provider.script(says('Criteria ', 'drafted.'));
    const { router, budget } = await api.modelsForRun('STANDARD');
    const { response, usage, model } = await router.chat('manager', 'STANDARD', { phase: 'OBSERVE', messages: [{ role: 'user', content: 'Draft criteria for a login form.' }] });
    assert.equal(model.kind, 'vscode-lm');
    assert.equal(response.text, 'Criteria drafted.');
    assert.equal(usage.inputTokens, countWords('Draft criteria for a login form.'));
    assert.equal(usage.outputTokens, 2);
    assert.equal(usage.estimated, true);
    assert.equal(usage.costUsd, 0);
    assert.equal(usage.priced, false, 'a vscode.lm model is billed by its provider: cost unknown, not free');
    assert.deepEqual(budget.spent, { tokens: usage.inputTokens + usage.outputTokens, usd: 0 });
    assert.deepEqual(budget.spentIn('OBSERVE'), budget.spent);
  });

  it('does not make a call that a budget setting refuses, and says which cap', async () => {
    const { BudgetExceededError } = extensionEngine();
    const config = vscode.workspace.getConfiguration('idealState.budgets');
    await config.update('callTokens', 10, vscode.ConfigurationTarget.Workspace);
    try {
      const { router, budget } = await api.modelsForRun('STANDARD');
      assert.equal(budget.limits.call.tokens, 10);
      const before = provider.seen.length;
      await assert.rejects(router.chat('manager', 'STANDARD', { phase: 'PLAN', messages: [{ role: 'user', content: 'Plan the packets.' }], maxOutputTokens: 50 }), (e: unknown) => {
        assert.ok(e instanceof BudgetExceededError, String(e));
        assert.equal(e.scope, 'call');
        assert.equal(e.unit, 'tokens');
        assert.equal(e.limit, 10);
        assert.equal(e.estimate, countWords('Plan the packets.') + 50, 'estimated with the model\'s own counter');
        return true;
      });
      assert.equal(provider.seen.length, before, 'the refused call never reached the model');
    } finally {
      await config.update('callTokens', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});

describe('with no model anywhere', () => {
  it('selects none and says how to set one up, without failing', async () => {
    const selected = await (await activateIdealState()).selectedModel();
    assert.equal(selected.ok, false, JSON.stringify(selected));
    assert.match(selected.message, /found no language model\. Set an API key .* "Ideal State: Set API Key"/);
    assert.match(selected.message, /Ollama on port 11434/);
  });
});

async function waitUntil(done: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
