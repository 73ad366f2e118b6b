import { CancelledError } from '../../../src/model/errors';
import * as assert from 'node:assert/strict';
import { CatalogueEntry, extendCatalogue, findModel, profileFor, shippedCatalogue, shutdownSoon, shutdownSoonText, type CatalogueEntryInput, type ModelProfile } from '../../../src/llm/catalogue';
import { CHECK_MAX_OUTPUT_TOKENS, CHECK_RETRY_MAX_OUTPUT_TOKENS, checkModels, type CheckReport } from '../../../src/llm/check-model';
import { formatCheckReport, summarizeCheck } from '../../../src/llm/check-model-text';
import type { LlmConfigInput } from '../../../src/llm/config';
import { LlmProviderError, LlmRefusalError, LlmTruncatedError, ModelRetiredError } from '../../../src/llm/errors';
import { resolveModels, type ResolvedModels } from '../../../src/llm/resolve';
import type { ChatRequest, ChatResponse, LanguageModel, ModelClass, ModelPrice } from '../../../src/llm/types';

/** An answer of each shape the check asks for, as a working model gives it. */
function answers(request: ChatRequest): ChatResponse {
  const usage = { inputTokens: 40, outputTokens: 8 };
  if (request.responseFormat) return { text: JSON.stringify({ ok: true, says: 'ready' }), toolCalls: [], stopReason: 'end', usage };
  return { text: '', toolCalls: [{ id: 'call_1', name: 'echo', arguments: { text: 'ready' } }], stopReason: 'tool-calls', usage };
}

type Answer = (request: ChatRequest, model: FakeModel) => Promise<ChatResponse> | ChatResponse;

/** A hand-written hosted model: its catalogue profile, and answers from a function; keeps every request. */
class FakeModel implements LanguageModel {
  readonly requests: ChatRequest[] = [];
  readonly displayName: string;
  readonly profile: ModelProfile;
  constructor(
    readonly id: string,
    readonly providerId: string,
    readonly kind: 'openai' | 'anthropic',
    readonly model: string,
    readonly modelClass: ModelClass,
    private readonly answer: Answer,
    readonly price?: ModelPrice,
    catalogue: readonly CatalogueEntryInput[] = [],
  ) {
    this.displayName = model;
    const entries = catalogue.map((e) => CatalogueEntry.parse(e));
    this.profile = profileFor(extendCatalogue(shippedCatalogue(), entries), kind, model, providerId, { local: modelClass === 'local' });
  }
  async chat(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    return this.answer(request, this);
  }
}

/** One hosted model serving every role, built through resolveModels as a run's are. */
async function hosted(model: string, answer: Answer, options: { kind?: 'openai' | 'anthropic'; now?: Date; key?: boolean; price?: ModelPrice | null; catalogue?: CatalogueEntryInput[] } = {}): Promise<{ resolved: ResolvedModels; fakes: FakeModel[] }> {
  const kind = options.kind ?? 'openai';
  const fakes: FakeModel[] = [];
  const config: LlmConfigInput = { version: 1, providers: [{ id: kind, kind }], models: [{ id: 'main', provider: kind, model }], ...(options.catalogue ? { catalogue: options.catalogue } : {}) };
  const resolved = await resolveModels(config, {
    env: options.key === false ? {} : { OPENAI_API_KEY: 'sk-test-check-0123456789', ANTHROPIC_API_KEY: 'sk-ant-test-0123456789' },
    ...(options.now ? { now: () => options.now! } : {}),
    ...(options.key === false
      ? {}
      : {
          factories: {
            [kind]: (m: { id: string; model: string }, p: { id: string }, cls: ModelClass) => {
              const price = options.price === undefined ? { inputPerMTok: 2.5, outputPerMTok: 15 } : (options.price ?? undefined);
              const fake = new FakeModel(m.id, p.id, kind, m.model, cls, answer, price, options.catalogue);
              fakes.push(fake);
              return fake;
            },
          },
        }),
  });
  return { resolved, fakes };
}

/** Scripted models for every role, from script texts by file name. */
async function scripted(config: LlmConfigInput, scripts: Record<string, string>): Promise<ResolvedModels> {
  return resolveModels(config, { readText: async (p) => scripts[p] ?? assert.fail(`no script ${p}`) });
}

/** A current OpenAI model of the shipped catalogue (its default: no shutdown notice names it). */
const CURRENT = shippedCatalogue().defaults.openai;
const CURRENT_RE = CURRENT.replace(/[.]/g, '\\.');

/** A workspace catalogue entry of a model that says it takes sampling parameters (its server will say otherwise). */
const SAMPLING_ENTRY: CatalogueEntryInput = {
  name: 'acme-sampler',
  family: 'acme',
  provider: 'openai',
  api: 'chat-completions',
  sampling: true,
  structuredOutput: 'json-schema-strict',
  forcedToolChoice: true,
  maxOutputTokens: 8000,
  contextWindow: 128000,
  prices: { input: 1, output: 2, readOn: '2026-11-24' },
};

const WORKING_SCRIPT = ['steps:', '  - object: { ok: true, says: ready }', '  - toolCalls: [{ name: echo, arguments: { text: ready } }]'].join('\n');

function shapesOf(report: CheckReport, role: 'manager' | 'specialist' | 'verifier') {
  return report.roles.find((r) => r.role === role)!.shapes.map((s) => [s.shape, s.outcome]);
}

describe('Check Model (src/llm/check-model.ts)', () => {
  it('reports ok for both shapes on a scripted model serving every role, with one call of each shape', async () => {
    const resolved = await scripted({ version: 1, providers: [{ id: 's', kind: 'scripted', script: 'ok.yaml' }], models: [{ id: 'demo', provider: 's', model: 'demo' }] }, { 'ok.yaml': WORKING_SCRIPT });
    const report = await checkModels(resolved, { level: 'STANDARD' });
    assert.equal(report.works, true);
    assert.deepEqual(report.roles.map((r) => r.role), ['manager', 'specialist', 'verifier']);
    for (const role of report.roles) {
      assert.equal(role.works, true, role.role);
      assert.equal(role.model, 'scripted: ok');
      assert.deepEqual(role.catalogue, { status: 'scripted' });
      assert.deepEqual(role.changes, []);
    }
    assert.deepEqual(shapesOf(report, 'specialist'), [['structured-output', 'ok'], ['tool-call', 'ok']]);
    // The script has exactly two steps: a third call would have thrown "the script ran out".
    const model = resolved.slots.get('demo');
    assert.ok(model?.ok && 'stepsLeft' in model.model);
    assert.equal((model.model as unknown as { stepsLeft: number }).stepsLeft, 0);
    assert.equal(report.spent.priced, true, 'a scripted model is free');
    assert.match(summarizeCheck(report), /^Check Model: scripted: ok works for every role\.$/);
    assert.equal(formatCheckReport(report)[0], 'Check Model at STANDARD: every role works');
  });

  it('asks for a tiny strict schema and offers one tool with the choice left to the model, at a small cap', async () => {
    const { resolved, fakes } = await hosted(CURRENT, answers);
    const report = await checkModels(resolved, { level: 'STANDARD', temperatureOf: (role) => ({ manager: 0.2, specialist: 0.3, verifier: 0 })[role] });
    assert.equal(report.works, true, JSON.stringify(report));
    const [structured, tool] = fakes[0]!.requests;
    assert.equal(fakes[0]!.requests.length, 2, 'one call of each shape for the three roles it serves');
    assert.equal(structured!.responseFormat?.name, 'check_model');
    assert.deepEqual(Object.keys((structured!.responseFormat!.schema as unknown as { shape: object }).shape), ['ok', 'says']);
    assert.equal(structured!.maxOutputTokens, CHECK_MAX_OUTPUT_TOKENS);
    assert.equal(structured!.temperature, 0.2, "the manager's temperature, as its calls carry it");
    assert.deepEqual(tool!.tools?.map((t) => t.name), ['echo']);
    assert.equal(tool!.toolChoice, 'auto', 'as the specialist calls tools');
    assert.equal(tool!.temperature, 0.3, "the specialist's temperature");
    assert.ok(structured!.signal && structured!.timeoutMs, 'every call can be cancelled and has a timeout');
    const role = report.roles[0]!;
    assert.equal(role.catalogue.status, 'catalogued');
    assert.equal(report.spent.inputTokens, 80);
    assert.equal(report.spent.outputTokens, 16);
  });

  it('reports adapted when its server refuses temperature: the adapter learns it and the call works without it', async () => {
    const { resolved, fakes } = await hosted(
      'acme-sampler',
      (request, model) => {
        // As the provider sends it: `temperature` only while the profile says sampling is accepted.
        if (request.temperature !== undefined && model.profile.capabilities.sampling) {
          throw new LlmProviderError('acme-sampler', 'bad-request', "400 Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.", 400, undefined, 'temperature');
        }
        return answers(request);
      },
      { catalogue: [SAMPLING_ENTRY] },
    );
    const report = await checkModels(resolved, { level: 'STANDARD', temperatureOf: () => 0.2 });
    assert.equal(report.works, true, JSON.stringify(report));
    const shapes = report.roles[0]!.shapes;
    assert.equal(shapes[0]!.outcome, 'adapted');
    assert.deepEqual(shapes[0]!.learned.map((l) => l.param), ['temperature']);
    assert.equal(shapes[1]!.outcome, 'ok', 'the lesson holds for the next call');
    assert.deepEqual(fakes[0]!.profile.learned.map((l) => l.param), ['temperature']);
    assert.equal(fakes[0]!.requests.length, 3, 'refused once, retried once, then the tool call');
    assert.deepEqual(report.roles[0]!.catalogue, { status: 'catalogued', name: 'acme-sampler', family: 'acme' });
    assert.equal(summarizeCheck(report), 'Check Model: acme-sampler works for every role (temperature was refused and is no longer sent).');
    assert.ok(formatCheckReport(report).includes('  structured output: adapted (temperature was refused and is no longer sent)' + ` (${(shapes[0]!.durationMs / 1000).toFixed(1)} s)`));
  });

  it('reports adapted when its server refuses tools and the prompt-level tool protocol works', async () => {
    const { resolved, fakes } = await hosted('qwen-local', (request) => {
      if (request.tools) throw new LlmProviderError('qwen-local', 'bad-request', '400 registry.ollama.ai/library/qwen-local does not support tools', 400);
      if (request.responseFormat) return answers(request);
      return { text: '{"tool_calls": [{"name": "echo", "arguments": {"text": "ready"}}]}', toolCalls: [], stopReason: 'end', usage: { inputTokens: 90, outputTokens: 20 } };
    });
    const report = await checkModels(resolved, { level: 'STANDARD' });
    assert.equal(report.works, true, JSON.stringify(report));
    const tool = report.roles[0]!.shapes[1]!;
    assert.deepEqual([tool.outcome, tool.learned.map((l) => l.param)], ['adapted', ['tools']]);
    assert.equal(fakes[0]!.requests[2]!.tools, undefined, 'the retry describes the tools in the prompt instead');
    assert.match(summarizeCheck(report), /\(tools were refused; tool calls now go through the prompt-level protocol\)\.$/);
  });

  it('reports a failed shape with the typed error and what to change; the other shape still ok', async () => {
    const { resolved } = await hosted(CURRENT, (request) => (request.tools ? { text: 'I would echo "ready".', toolCalls: [], stopReason: 'end', usage: { inputTokens: 30, outputTokens: 6 } } : answers(request)));
    const report = await checkModels(resolved, { level: 'STANDARD' });
    assert.equal(report.works, false);
    const role = report.roles.find((r) => r.role === 'specialist')!;
    assert.deepEqual(role.shapes.map((s) => s.outcome), ['ok', 'failed']);
    assert.equal(role.shapes[1]!.failure?.code, 'no-tool-call');
    assert.match(role.changes[0]!, /pick a model that calls tools for the specialist/);
    assert.match(summarizeCheck(report), new RegExp(`^Check Model: the manager, specialist and verifier do not work on ${CURRENT_RE}: tool call failed \\[no-tool-call\\]\\. To fix: it does not call a tool when asked`));
    assert.equal(formatCheckReport(report)[0], 'Check Model at STANDARD: manager, specialist and verifier do not work');
  });

  const typed: { name: string; error: () => Error; code: string; change: RegExp }[] = [
    { name: 'a refused key', error: () => new LlmProviderError(CURRENT, 'auth', 'HTTP 401: Incorrect API key provided', 401), code: 'auth', change: /the key was refused: set a valid API key of provider "openai" \("Ideal State: Set API Key" in the editor, OPENAI_API_KEY on the command line\)/ },
    { name: 'an unknown model name', error: () => new LlmProviderError(CURRENT, 'not-found', 'HTTP 404: The model does not exist', 404), code: 'not-found', change: new RegExp(`check the model name "${CURRENT_RE}": provider "openai" does not serve it`) },
    { name: 'a model its provider shut down', error: () => new ModelRetiredError(CURRENT, '2026-01-01', 'gpt-6'), code: 'model-retired', change: /switch to gpt-6/ },
    { name: 'a refusal', error: () => new LlmRefusalError(CURRENT, 'I cannot help with that.'), code: 'refusal', change: /pick another model/ },
    { name: 'an exhausted quota', error: () => new LlmProviderError(CURRENT, 'rate-limit', 'HTTP 429: quota', 429), code: 'rate-limit', change: /usage and billing/ },
  ];
  for (const t of typed) {
    it(`turns ${t.name} into failed [${t.code}] with a concrete change`, async () => {
      const { resolved } = await hosted(CURRENT, () => {
        throw t.error();
      });
      const report = await checkModels(resolved, { level: 'STANDARD' });
      assert.equal(report.works, false);
      const role = report.roles[0]!;
      assert.deepEqual(role.shapes.map((s) => [s.outcome, s.failure?.code]), [['failed', t.code], ['failed', t.code]]);
      assert.match(role.changes[0]!, t.change);
      assert.equal(role.changes.length, 1, 'the same change is said once');
    });
  }

  it('reports invalid structured output after the repair attempt as invalid-output', async () => {
    const script = ['steps:', '  - text: "not json"', '  - text: "{\\"ok\\": \\"yes\\"}"', '  - toolCalls: [{ name: echo, arguments: { text: ready } }]'].join('\n');
    const resolved = await scripted({ version: 1, providers: [{ id: 's', kind: 'scripted', script: 'bad.yaml' }], models: [{ id: 'weak', provider: 's', model: 'weak' }] }, { 'bad.yaml': script });
    const report = await checkModels(resolved, { level: 'STANDARD' });
    const shape = report.roles[0]!.shapes[0]!;
    assert.equal(shape.failure?.code, 'invalid-output');
    assert.match(shape.failure!.message, /gave no valid "check_model" in 2 attempts/);
    assert.match(report.roles[0]!.changes[0]!, /pick a stronger model for the manager and the verifier/);
    assert.deepEqual(shapesOf(report, 'verifier'), [['structured-output', 'failed'], ['tool-call', 'ok']]);
  });

  it('reports the prompt-level tool protocol failing on a server that refuses tools as "pick another model"', async () => {
    const { resolved } = await hosted('qwen-local', (request) => {
      if (request.tools) throw new LlmProviderError('qwen-local', 'bad-request', '400 registry.ollama.ai/library/qwen-local does not support tools', 400);
      if (request.responseFormat) return answers(request);
      return { text: 'Sure! ready', toolCalls: [], stopReason: 'end', usage: { inputTokens: 50, outputTokens: 3 } };
    });
    const report = await checkModels(resolved, { level: 'STANDARD' });
    const tool = report.roles[0]!.shapes[1]!;
    assert.equal(tool.outcome, 'failed');
    assert.equal(tool.failure?.code, 'invalid-output');
    assert.deepEqual(tool.learned.map((l) => l.param), ['tools']);
    assert.match(report.roles[0]!.changes[0]!, /refuses tools and it did not follow the prompt-level tool protocol: pick another model for the specialist/);
    assert.equal(report.roles[0]!.catalogue.status, 'unknown');
    assert.match(formatCheckReport(report).join('\n'), /tool call: failed \[invalid-output\] .*; before that, tools were refused/);
  });

  it('asks once more at a larger cap when the small one was spent, and says so', async () => {
    const { resolved, fakes } = await hosted(CURRENT, (request) => {
      if (request.maxOutputTokens === CHECK_MAX_OUTPUT_TOKENS) {
        if (request.responseFormat) throw new LlmTruncatedError(CURRENT, request.maxOutputTokens, 'max_output_tokens');
        return { text: '', toolCalls: [], stopReason: 'max-tokens', usage: { inputTokens: 30, outputTokens: CHECK_MAX_OUTPUT_TOKENS } };
      }
      return answers(request);
    });
    const report = await checkModels(resolved, { level: 'STANDARD' });
    assert.equal(report.works, true);
    // A structured call raises its own cap (twice it, as in a run); the tool call is asked again at a role's cap.
    assert.deepEqual(fakes[0]!.requests.map((r) => r.maxOutputTokens), [CHECK_MAX_OUTPUT_TOKENS, 2 * CHECK_MAX_OUTPUT_TOKENS, CHECK_MAX_OUTPUT_TOKENS, CHECK_RETRY_MAX_OUTPUT_TOKENS]);
    const [structured, tool] = report.roles[0]!.shapes;
    assert.deepEqual([structured!.outcome, tool!.outcome], ['ok', 'ok']);
    assert.match(tool!.notes[0]!, /needed more than 1024 output tokens/);
  });

  it('says a model without a key cannot be used, and how to set the key, without calling anything', async () => {
    const { resolved } = await hosted(CURRENT, answers, { key: false });
    const report = await checkModels(resolved, { level: 'STANDARD' });
    assert.equal(report.works, false);
    for (const role of report.roles) {
      assert.equal(role.unavailable?.code, 'no-key');
      assert.deepEqual(role.shapes, []);
      assert.match(role.changes[0]!, /^set the API key of provider "openai" \("Ideal State: Set API Key" in the editor, OPENAI_API_KEY on the command line\)$/);
    }
    assert.match(summarizeCheck(report), /it cannot be used \[no-key\]\. To fix: set the API key/);
  });

  it('names the replacement of a model past its shutdown date, and warns of one ahead', async () => {
    const catalogue = shippedCatalogue();
    const dated = catalogue.models.find((m) => m.shutdown && m.replacement && m.provider === 'openai');
    assert.ok(dated, 'the catalogue has an OpenAI model with a shutdown date and a replacement');
    const shutdown = new Date(`${dated.shutdown}T12:00:00Z`);
    const after = await hosted(dated.name, answers, { now: new Date(shutdown.getTime() + 86_400_000) });
    const retired = await checkModels(after.resolved, { level: 'STANDARD', now: () => new Date(shutdown.getTime() + 86_400_000) });
    assert.equal(after.fakes.length, 0, 'never built, never called');
    assert.equal(retired.roles[0]!.unavailable?.code, 'model-retired');
    assert.equal(retired.roles[0]!.catalogue.status, 'retired');
    assert.match(retired.roles[0]!.changes[0]!, new RegExp(`^switch to ${dated.replacement!.replace(/\./g, '\\.')}: `));

    const before = await hosted(dated.name, answers, { now: new Date(shutdown.getTime() - 86_400_000) });
    const ahead = await checkModels(before.resolved, { level: 'STANDARD', now: () => new Date(shutdown.getTime() - 86_400_000) });
    assert.equal(ahead.works, true, 'it still works today');
    assert.deepEqual(ahead.roles[0]!.catalogue, { status: 'shutdown-ahead', name: dated.name, shutdown: dated.shutdown, replacement: dated.replacement });
    assert.match(ahead.roles[0]!.changes[0]!, new RegExp(`shuts down on ${dated.shutdown}: switch to `));
    assert.match(summarizeCheck(ahead), / works for every role\. Note: .* shuts down on /);
  });

  it('names a configured model that shuts down within 30 days, with its replacement, and shows the catalogue’s age (issue 27)', async () => {
    const catalogue = shippedCatalogue();
    const sonnet = findModel(catalogue, 'claude-sonnet-4-5')!;
    assert.deepEqual([sonnet.shutdown, sonnet.replacement], ['2026-11-30', 'claude-sonnet-5-5'], 'the catalogue of 2026-11-24 has Sonnet 4.5’s retirement');
    const now = new Date('2026-11-26T09:00:00Z');
    const soon = await hosted('claude-sonnet-4-5', answers, { kind: 'anthropic', now });
    const report = await checkModels(soon.resolved, { level: 'STANDARD', now: () => now });
    assert.deepEqual(report.shuttingDown, [{ roles: ['manager', 'specialist', 'verifier'], name: sonnet.name, shutdown: '2026-11-30', inDays: 4, replacement: 'claude-sonnet-5-5' }]);
    assert.deepEqual(report.catalogue, { readOn: catalogue.readOn, ageDays: 2 });
    const text = formatCheckReport(report);
    assert.ok(text.includes(`shutting down: ${sonnet.name} (manager, specialist and verifier) shuts down on 2026-11-30, in 4 days; its replacement is claude-sonnet-5-5`), text.join('\n'));
    assert.ok(text.includes('model catalogue: read on 2026-11-24 (2 days ago)'), text.join('\n'));

    const early = new Date('2026-10-01T09:00:00Z');
    const far = await checkModels((await hosted('claude-sonnet-4-5', answers, { kind: 'anthropic', now: early })).resolved, { level: 'STANDARD', now: () => early });
    assert.deepEqual(far.shuttingDown, [], '60 days ahead is not within 30');

    const late = new Date('2027-01-05T09:00:00Z');
    const old = await checkModels((await hosted(CURRENT, answers, { now: late })).resolved, { level: 'STANDARD', now: () => late });
    assert.match(formatCheckReport(old).find((l) => l.startsWith('model catalogue:'))!, /read on 2026-11-24 \(42 days ago\); older than a month/);
  });

  it('says a shutdown within 30 days in one phrase for Select Model, and nothing for one further off or past', () => {
    const sonnet = findModel(shippedCatalogue(), 'claude-sonnet-4-5');
    const soon = shutdownSoon(sonnet, '2026-11-26');
    assert.equal(shutdownSoonText(soon!), 'shuts down on 2026-11-30 (in 4 days): switch to claude-sonnet-5-5');
    assert.equal(shutdownSoon(sonnet, '2026-10-30'), undefined);
    assert.equal(shutdownSoon(sonnet, '2026-10-31')?.inDays, 30);
    assert.equal(shutdownSoon(sonnet, '2026-11-30'), undefined, 'on the day it is retired, refused elsewhere');
    assert.equal(shutdownSoon(findModel(shippedCatalogue(), CURRENT), '2026-11-26'), undefined);
  });

  it('says the cost of an unpriced hosted model is unknown and how to price it', async () => {
    const { resolved } = await hosted('my-proxy-model', answers, { price: null });
    const report = await checkModels(resolved, { level: 'STANDARD' });
    assert.equal(report.works, true);
    assert.equal(report.spent.priced, false);
    assert.equal(report.roles[0]!.catalogue.status, 'unknown');
    assert.match(report.roles[0]!.changes.join('\n'), /its cost is unknown, so money caps cannot hold: add prices: \{ inputPerMTok, outputPerMTok \} to model "main" in the models file/);
  });

  it('checks each distinct model once, per the level\'s routes and tiers, sharing results between roles', async () => {
    const config: LlmConfigInput = {
      version: 1,
      providers: [
        { id: 'local', kind: 'scripted', script: 'local.yaml', class: 'local' },
        { id: 'cloud', kind: 'scripted', script: 'cloud.yaml', class: 'frontier' },
      ],
      models: [
        { id: 'small', provider: 'local', model: 'small' },
        { id: 'big', provider: 'cloud', model: 'big' },
      ],
      routing: { default: 'small' },
    };
    const resolved = await scripted(config, { 'local.yaml': WORKING_SCRIPT, 'cloud.yaml': ['steps:', '  - error: { kind: server, message: overloaded }', '  - toolCalls: [{ name: echo, arguments: { text: ready } }]'].join('\n') });
    // As capabilities.yaml asks at ADVANCED: manager and verifier on a frontier model, the specialist local.
    const report = await checkModels(resolved, { level: 'ADVANCED', tierFor: (role) => (role === 'specialist' ? 'local' : 'frontier') });
    assert.deepEqual(report.roles.map((r) => [r.role, r.modelId, r.works]), [['manager', 'big', false], ['specialist', 'small', true], ['verifier', 'big', false]]);
    assert.equal(report.roles[0]!.shapes, report.roles[2]!.shapes, 'one check of the shared model');
    assert.equal(report.roles[0]!.shapes[0]!.failure?.code, 'server', 'escalation is off: the failing model is reported, not replaced');
    const text = formatCheckReport(report);
    assert.equal(text[0], 'Check Model at ADVANCED: manager and verifier do not work');
    assert.ok(text.includes('manager and verifier: scripted: cloud (provider cloud, model id big)'), text.join('\n'));
    assert.ok(text.includes('specialist: scripted: local (provider local, model id small)'), text.join('\n'));
  });

  it('is cancelled by its signal (never a failed report), and times out a model that does not answer', async () => {
    const slow = ['steps:', '  - { object: { ok: true, says: ready }, delayMs: 10000 }', '  - toolCalls: [{ name: echo, arguments: { text: ready } }]'].join('\n');
    const config: LlmConfigInput = { version: 1, providers: [{ id: 's', kind: 'scripted', script: 'slow.yaml' }], models: [{ id: 'slow', provider: 's', model: 'slow' }] };
    const controller = new AbortController();
    const progress: string[] = [];
    const pending = checkModels(await scripted(config, { 'slow.yaml': slow }), {
      level: 'STANDARD',
      signal: controller.signal,
      onProgress: (m) => {
        progress.push(m);
        // Cancelled while the first call is under way.
        setTimeout(() => controller.abort(), 20);
      },
    });
    await assert.rejects(pending, (e: unknown) => e instanceof CancelledError && e.code === 'cancelled');
    assert.deepEqual(progress, ['scripted: slow: structured output']);

    const timedOut = await checkModels(await scripted(config, { 'slow.yaml': slow }), { level: 'STANDARD', timeoutMs: 50 });
    assert.deepEqual(timedOut.roles[0]!.shapes.map((s) => [s.outcome, s.failure?.code]), [['failed', 'timeout'], ['ok', undefined]]);
    assert.match(timedOut.roles[0]!.changes[0]!, /did not answer in time/);
  });
});
