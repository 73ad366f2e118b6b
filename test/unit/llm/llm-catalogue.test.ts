import * as assert from 'node:assert/strict';
import { parseYamlDataFile } from '../../../src/model/data-file';
import shippedModels from '../../../src/llm/data/models.yaml';
import {
  applyLessons,
  assertNotRetired,
  capabilitiesOf,
  Catalogue,
  CatalogueEntry,
  extendCatalogue,
  findModel,
  ModelProfile,
  profileFor,
  shippedCatalogue,
  shutdownNotice,
  type CatalogueEntryInput,
  type ModelLesson,
} from '../../../src/llm/catalogue';
import { ModelRetiredError } from '../../../src/llm/errors';

/** The entry of a name, failing the test with the name when it is missing. */
function entry(name: string): CatalogueEntry {
  const found = findModel(shippedCatalogue(), name);
  assert.ok(found, `"${name}" is not in the shipped catalogue`);
  return found;
}

const workspaceEntry = (input: Partial<CatalogueEntryInput> & { name: string }): CatalogueEntry =>
  CatalogueEntry.parse({
    family: 'workspace',
    provider: 'openai',
    api: 'responses',
    sampling: false,
    structuredOutput: 'json-schema-strict',
    forcedToolChoice: true,
    maxOutputTokens: 1000,
    contextWindow: 8000,
    prices: { input: 1, output: 2, readOn: '2026-11-24' },
    ...input,
  });

describe('llm model catalogue', () => {
  describe('the shipped data', () => {
    it('parses against the schema with no problems', () => {
      const parsed = parseYamlDataFile('models.yaml', shippedModels, Catalogue);
      assert.ok(parsed.ok, parsed.ok ? '' : parsed.problems.map((p) => `${p.line}:${p.column} ${p.field ?? ''} ${p.message}`).join('\n'));
      assert.equal(shippedCatalogue().version, 1);
      assert.match(shippedCatalogue().readOn, /^\d{4}-\d{2}-\d{2}$/);
    });

    it('lists the current and the deprecated models by their exact API names', () => {
      for (const name of [
        'gpt-5.6-sol', 'gpt-5.6-terra', 'gpt-5.6-luna', 'gpt-5.5',
        'gpt-6-luna', 'gpt-6-sol', 'gpt-6-astra', 'gpt-6.1-sol', 'gpt-6.1-terra', 'gpt-6.2-sol',
        'gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'o3', 'gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini',
        'claude-opus-5-5', 'claude-fable-5-1', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5', 'claude-sonnet-5',
        'claude-sonnet-4-6', 'claude-opus-4-6', 'claude-opus-4-5-20251101', 'claude-haiku-4-5-20251001',
      ]) {
        assert.equal(entry(name).name, name, `${name} is found under another entry's name`);
      }
    });

    it('has defaults that are catalogued, of the right provider, and named by no shutdown notice', () => {
      const catalogue = shippedCatalogue();
      for (const kind of ['openai', 'anthropic'] as const) {
        const model = findModel(catalogue, catalogue.defaults[kind]);
        assert.ok(model, `default ${kind} model "${catalogue.defaults[kind]}" is not catalogued`);
        assert.equal(model.provider, kind);
        assert.equal(model.shutdown, undefined, `default ${model.name} has a shutdown date`);
      }
    });

    it('refuses a catalogue whose default has a shutdown date', () => {
      const catalogue = shippedCatalogue();
      const parsed = Catalogue.safeParse({ ...catalogue, defaults: { ...catalogue.defaults, openai: 'gpt-5-mini' } });
      assert.equal(parsed.success, false);
      assert.match(parsed.error?.issues.map((i) => i.message).join('; ') ?? '', /default "gpt-5-mini" has a shutdown date/);
    });

    it('prices every model, each price with the day it was read, and a source page', () => {
      for (const model of shippedCatalogue().models) {
        assert.ok(model.prices.input > 0 && model.prices.output > 0, `${model.name} is unpriced`);
        assert.ok(model.prices.output >= model.prices.input, `${model.name}: output cheaper than input looks like a typo`);
        if (model.prices.cachedInput !== undefined) assert.ok(model.prices.cachedInput < model.prices.input, `${model.name}: cached input is not cheaper`);
        assert.match(model.prices.readOn, /^\d{4}-\d{2}-\d{2}$/);
        assert.ok(model.source?.startsWith(model.provider === 'openai' ? 'https://developers.openai.com/' : 'https://platform.claude.com/'), `${model.name}: source is not the vendor's page`);
        assert.ok(model.maxOutputTokens <= model.contextWindow, `${model.name}: max output above the context window`);
      }
    });

    it('calls every OpenAI model through the Responses API without sampling on reasoning models', () => {
      for (const model of shippedCatalogue().models.filter((m) => m.provider === 'openai')) {
        assert.equal(model.api, 'responses', `${model.name} must use the Responses API`);
        assert.equal(model.structuredOutput, 'json-schema-strict', model.name);
        const reasoning = !/^gpt-4/.test(model.family);
        assert.equal(model.sampling, !reasoning, `${model.name}: sampling must be ${!reasoning}`);
        assert.equal(model.reasoningEffort, reasoning ? 'low' : undefined, `${model.name}: reasoning effort`);
      }
    });

    it('holds the Anthropic rules the docs state per model', () => {
      for (const model of shippedCatalogue().models.filter((m) => m.provider === 'anthropic')) {
        assert.equal(model.api, 'anthropic-messages', model.name);
        assert.equal(model.structuredOutput, 'anthropic-output-format', model.name);
      }
      // Forced tool_choice returns a 400 on these (their migration guides / what's-new pages).
      for (const name of ['claude-opus-5-5', 'claude-fable-5-1', 'claude-fable-5-2', 'claude-sonnet-5-5']) {
        assert.equal(entry(name).forcedToolChoice, false, `${name} refuses a forced tool_choice`);
        assert.equal(entry(name).sampling, false, `${name} refuses sampling parameters`);
      }
      assert.equal(entry('claude-sonnet-4-6').forcedToolChoice, true);
      // No assistant prefill from Claude 4.6 on; the 4.5 models still accept it.
      for (const name of ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5', 'claude-sonnet-5', 'claude-sonnet-4-6', 'claude-opus-4-6']) {
        assert.equal(entry(name).prefill, false, `${name} refuses assistant prefill`);
      }
      assert.equal(entry('claude-haiku-4-5').prefill, true);
    });
  });

  describe('findModel', () => {
    it('finds claude-opus-4-6 as itself, priced $5/$25, not as an Opus 4 at $15/$75', () => {
      const model = entry('claude-opus-4-6');
      assert.equal(model.name, 'claude-opus-4-6');
      assert.equal(model.prices.input, 5);
      assert.equal(model.prices.output, 25);
    });

    it('never matches by prefix, in either direction', () => {
      const catalogue = shippedCatalogue();
      assert.equal(findModel(catalogue, 'gpt-5.6-terra-foo'), undefined);
      assert.equal(findModel(catalogue, 'claude-opus-4-6-20990101'), undefined);
      assert.equal(findModel(catalogue, 'gpt-5.6-ter'), undefined);
      assert.equal(findModel(catalogue, 'claude-opus-4'), undefined);
      assert.equal(findModel(catalogue, ''), undefined);
    });

    it('matches exact names case-insensitively and ignores surrounding spaces', () => {
      assert.equal(findModel(shippedCatalogue(), '  GPT-5.6-Terra ')?.name, 'gpt-5.6-terra');
    });

    it('finds a model by its listed snapshot or alias', () => {
      assert.equal(entry('gpt-5-mini-2025-08-07').name, 'gpt-5-mini');
      assert.equal(entry('gpt-5-2025-08-07').name, 'gpt-5');
      assert.equal(entry('gpt-5-nano-2025-08-07').name, 'gpt-5-nano');
      assert.equal(entry('o3-2025-04-16').name, 'o3');
      assert.equal(entry('gpt-4o-2024-11-20').name, 'gpt-4o');
      assert.equal(entry('gpt-5.6').name, 'gpt-5.6-sol');
      assert.equal(entry('claude-haiku-4-5').name, 'claude-haiku-4-5-20251001');
      assert.equal(entry('claude-opus-4-5').name, 'claude-opus-4-5-20251101');
    });
  });

  describe('shutdowns', () => {
    it('names, for every shutdown, a catalogued replacement that outlives the model it replaces', () => {
      const catalogue = shippedCatalogue();
      const retiring = catalogue.models.filter((m) => m.shutdown);
      assert.ok(retiring.length >= 9, 'the deprecated models are catalogued with their shutdown dates');
      for (const model of retiring) {
        assert.ok(model.replacement, `${model.name} shuts down on ${model.shutdown} but names no replacement`);
        const replacement = findModel(catalogue, model.replacement);
        assert.ok(replacement, `${model.name}'s replacement "${model.replacement}" is not in the catalogue`);
        assert.equal(replacement.provider, model.provider);
        assert.ok(!replacement.shutdown || replacement.shutdown > model.shutdown!, `${model.name}'s replacement ${replacement.name} shuts down first (${replacement.shutdown})`);
      }
    });

    it('carries the dates and replacements of the OpenAI deprecations page', () => {
      const expected: Record<string, [string, string]> = {
        'gpt-5': ['2026-12-11', 'gpt-6.1-sol'],
        'gpt-5-mini': ['2026-12-11', 'gpt-6.1-terra'],
        'gpt-5-nano': ['2026-12-11', 'gpt-6-luna'],
        o3: ['2026-12-11', 'gpt-6.1-sol'],
        'gpt-4o': ['2027-01-14', 'gpt-6-luna'],
        'gpt-4o-mini': ['2027-01-14', 'gpt-6-luna'],
        'gpt-4.1': ['2027-01-14', 'gpt-6-luna'],
        'gpt-4.1-mini': ['2027-01-14', 'gpt-6-luna'],
      };
      for (const [name, [shutdown, replacement]] of Object.entries(expected)) {
        assert.deepEqual([entry(name).shutdown, entry(name).replacement], [shutdown, replacement], name);
      }
    });

    it('refuses gpt-5-mini from its shutdown day on, naming the replacement, and allows it the day before', () => {
      const mini = entry('gpt-5-mini');
      assert.doesNotThrow(() => assertNotRetired(mini, 'gpt-5-mini', '2026-12-10'));
      assert.throws(
        () => assertNotRetired(mini, 'gpt-5-mini', '2026-12-11'),
        (error: unknown) => {
          assert.ok(error instanceof ModelRetiredError);
          assert.equal(error.code, 'model-retired');
          assert.equal(error.shutdown, '2026-12-11');
          assert.equal(error.replacement, 'gpt-6.1-terra');
          assert.match(error.message, /gpt-5-mini was shut down by its provider on 2026-12-11: use gpt-6\.1-terra instead/);
          return true;
        },
      );
      // A dated snapshot is refused under the name the user wrote.
      assert.throws(() => assertNotRetired(entry('gpt-5-mini-2025-08-07'), 'gpt-5-mini-2025-08-07', '2027-03-01'), /gpt-5-mini-2025-08-07 was shut down/);
    });

    it('lets an unknown or current model through and warns ahead of a shutdown', () => {
      assert.doesNotThrow(() => assertNotRetired(undefined, 'my-local-model', '2030-01-01'));
      assert.doesNotThrow(() => assertNotRetired(entry('gpt-6.1-terra'), 'gpt-6.1-terra', '2030-01-01'));
      assert.equal(shutdownNotice(entry('gpt-5-mini'), '2026-11-24'), 'gpt-5-mini shuts down on 2026-12-11; its replacement is gpt-6.1-terra');
      assert.equal(shutdownNotice(entry('gpt-5-mini'), '2026-12-11'), undefined);
      assert.equal(shutdownNotice(entry('gpt-6.1-terra'), '2026-11-24'), undefined);
    });
  });

  describe('extendCatalogue', () => {
    it('lets a workspace entry replace a shipped one and add a new one', () => {
      const base = shippedCatalogue();
      const cheaperTerra = workspaceEntry({ name: 'gpt-6.1-terra', family: 'gpt-6', prices: { input: 0.5, output: 2.5, readOn: '2026-12-01' } });
      const finetune = workspaceEntry({ name: 'ft:gpt-6-luna:acme:42' });
      const extended = extendCatalogue(base, [cheaperTerra, finetune]);

      assert.equal(findModel(extended, 'gpt-6.1-terra')?.prices.input, 0.5);
      assert.equal(findModel(extended, 'gpt-6.1-terra')?.prices.readOn, '2026-12-01');
      assert.equal(findModel(extended, 'ft:gpt-6-luna:acme:42')?.family, 'workspace');
      assert.equal(extended.models.length, base.models.length + 1, 'the replaced entry is not listed twice');
      assert.equal(findModel(extended, 'claude-opus-4-6')?.prices.input, 5, 'untouched entries stay');
      assert.ok(Catalogue.safeParse(extended).success, 'the extended catalogue is still a valid catalogue');
      // The shipped catalogue itself is not changed.
      assert.equal(findModel(base, 'gpt-6.1-terra')?.prices.input, 1);
      assert.equal(findModel(base, 'ft:gpt-6-luna:acme:42'), undefined);
    });

    it('replaces a shipped entry named by one of its snapshots, and returns the base when nothing is added', () => {
      const base = shippedCatalogue();
      const extended = extendCatalogue(base, [workspaceEntry({ name: 'gpt-5-mini-2025-08-07' })]);
      assert.equal(findModel(extended, 'gpt-5-mini-2025-08-07')?.family, 'workspace');
      assert.equal(findModel(extended, 'gpt-5-mini'), undefined, 'the shipped gpt-5-mini entry, which listed that snapshot, is replaced');
      assert.equal(extendCatalogue(base, []), base);
      assert.equal(extendCatalogue(base, undefined), base);
    });
  });

  describe('capabilities', () => {
    it('gives a catalogued model its entry facts', () => {
      const mini = capabilitiesOf(entry('gpt-5-mini'), 'openai');
      assert.deepEqual(
        [mini.api, mini.maxTokensParam, mini.sampling, mini.strictSchemas, mini.reasoningEffort, mini.catalogued],
        ['responses', 'max_output_tokens', false, true, 'low', true],
      );
      const opus = capabilitiesOf(entry('claude-opus-5-5'), 'anthropic');
      assert.deepEqual(
        [opus.api, opus.maxTokensParam, opus.structuredOutput, opus.forcedToolChoice, opus.prefill, opus.strictSchemas],
        ['anthropic-messages', 'max_tokens', 'anthropic-output-format', false, false, false],
      );
    });

    it('gives an unknown OpenAI-compatible local model max_tokens and non-strict schemas', () => {
      const caps = capabilitiesOf(undefined, 'openai', { local: true });
      assert.equal(caps.api, 'chat-completions');
      assert.equal(caps.maxTokensParam, 'max_tokens');
      assert.equal(caps.strictSchemas, false);
      assert.equal(caps.structuredOutput, 'json-schema-strict');
      assert.equal(caps.sampling, false);
      assert.equal(caps.catalogued, false);
      assert.equal(caps.reasoningEffort, undefined);
      // The same through profileFor, for a local model the catalogue does not know.
      const profile = profileFor(shippedCatalogue(), 'openai', 'qwen3:8b', 'ollama', { local: true });
      assert.equal(profile.entry, undefined);
      assert.equal(profile.capabilities.maxTokensParam, 'max_tokens');
      assert.equal(profile.capabilities.strictSchemas, false);
      // Hosted but unknown: the newer parameter name.
      assert.equal(capabilitiesOf(undefined, 'openai').maxTokensParam, 'max_completion_tokens');
    });

    it('gives an unknown Claude model no forced tool, no sampling and no prefill', () => {
      const caps = capabilitiesOf(undefined, 'anthropic');
      assert.deepEqual([caps.forcedToolChoice, caps.sampling, caps.prefill, caps.structuredOutput, caps.catalogued], [false, false, false, 'prompt-only', false]);
    });

    it('does not lend an OpenAI entry to another kind of server of the same model name', () => {
      assert.equal(profileFor(shippedCatalogue(), 'anthropic', 'gpt-5.6-terra', 'p').entry, undefined);
      assert.equal(profileFor(shippedCatalogue(), 'openai', 'gpt-5.6-terra', 'p').entry?.name, 'gpt-5.6-terra');
    });

    it("applies a 'tools' lesson: no tools, no forced tool choice, and a forced-tool mode falls back to prompt-only", () => {
      const forcedTool = { ...capabilitiesOf(entry('claude-sonnet-4-6'), 'anthropic'), structuredOutput: 'forced-tool' as const };
      const after = applyLessons(forcedTool, [{ param: 'tools' }]);
      assert.equal(after.tools, false);
      assert.equal(after.forcedToolChoice, false);
      assert.equal(after.structuredOutput, 'prompt-only');
      assert.equal(forcedTool.tools, true, 'the input capabilities are not mutated');

      const local = applyLessons(capabilitiesOf(undefined, 'openai', { local: true }), [{ param: 'tools' }]);
      assert.deepEqual([local.tools, local.forcedToolChoice, local.structuredOutput], [false, false, 'json-schema-strict']);
    });

    it('learns a refusal once per model and tells its listeners', () => {
      const profile = profileFor(shippedCatalogue(), 'openai', 'qwen3:8b', 'ollama', { local: true });
      const heard: ModelLesson[] = [];
      const subscription = profile.onLesson((lesson) => heard.push(lesson));
      assert.equal(profile.learn('tools', 'model does not support tools', '2026-11-24T00:00:00.000Z'), true);
      assert.equal(profile.learn('tools', 'again', '2026-11-24T00:00:01.000Z'), false);
      assert.equal(profile.capabilities.tools, false);
      assert.equal(profile.capabilities.forcedToolChoice, false);
      assert.deepEqual(heard, [{ model: 'qwen3:8b', providerId: 'ollama', param: 'tools', message: 'model does not support tools', at: '2026-11-24T00:00:00.000Z' }]);
      subscription.dispose();

      // A stored lesson of this model and server is applied when the profile is built; another server's is not.
      const restored = profileFor(shippedCatalogue(), 'openai', 'qwen3:8b', 'ollama', { local: true, lessons: heard });
      assert.equal(restored.capabilities.tools, false);
      const elsewhere = profileFor(shippedCatalogue(), 'openai', 'qwen3:8b', 'lm-studio', { local: true, lessons: heard });
      assert.equal(elsewhere.capabilities.tools, true);
      assert.ok(restored instanceof ModelProfile);
    });
  });
});
