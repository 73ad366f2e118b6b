import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { nodeAlgorithm } from '../../../src/app/node-run';
import { denyAll } from '../../../src/agent/approvals';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { PHASES, type RunEvent } from '../../../src/model';
import { BudgetLedger } from '../../../src/llm/budgets';
import { shippedCatalogue, type ModelLesson } from '../../../src/llm/catalogue';
import type { LlmConfigInput } from '../../../src/llm/config';
import { resolveModels } from '../../../src/llm/resolve';
import { ModelRouter } from '../../../src/llm/router';
import { Store } from '../../../src/store/store';
import { tempDir } from '../support/algorithm-helpers';
import { AnthropicContractServer } from '../fixtures/llm/contract-anthropic';
import type { ContentRequest, ContentStep } from '../fixtures/llm/contract-content';
import { OpenAiContractServer } from '../fixtures/llm/contract-openai';
import { REPO_ROOT } from '../support/repo-root';

/**
 * The issue's "done when": a headless run at FAST gets through every phase against servers
 * that hold the providers' documented rules, with the specialist's tool calls accepted, for
 * the models people have today. The content of every reply is the shipped scripted demo
 * (demo/scripted-demo.yaml); everything else is the real provider code, the real adapter,
 * the real router and budget, and the real verifier checking the file on disk.
 */

const DEMO = parse(fs.readFileSync(path.resolve(REPO_ROOT, 'demo/scripted-demo.yaml'), 'utf8')) as { steps: Record<string, unknown>[] };
const REQUEST = 'Create hello.txt greeting the world';
const TODAY = new Date('2026-11-24T12:00:00Z');
const KEY = 'sk-contract-run-0123456789abcdef';

/**
 * The demo's steps as content, in order. A step with tool calls answers a request that
 * offers tools natively as tool calls; a request that does not (a server that refuses tools,
 * reached through the prompt-level protocol) gets the same calls as the protocol's JSON.
 * The protocol's final answer wraps the specialist's closing text likewise.
 */
function demoContent(): { next: (request: ContentRequest) => ContentStep; readonly remaining: number } {
  const queue = DEMO.steps.map((s) => ({ ...s }));
  return {
    next(request: ContentRequest): ContentStep {
      const step = queue.shift();
      if (!step) throw new Error('no demo step left');
      if (step.object !== undefined) return { object: step.object };
      const native = Array.isArray(request.body?.tools) && request.body.tools.length > 0;
      const calls = (step.toolCalls as { name: string; arguments: unknown }[] | undefined) ?? [];
      if (native) return { ...(step.text ? { text: step.text as string } : {}), ...(calls.length ? { toolCalls: calls } : {}) };
      const protocol = JSON.stringify(calls.length ? { tool_calls: calls } : { final: step.text as string });
      return { text: protocol };
    },
    get remaining() {
      return queue.length;
    },
  };
}

interface Target {
  readonly title: string;
  readonly kind: 'openai' | 'anthropic';
  readonly model: string;
  readonly local?: boolean;
}

const NAMED: readonly Target[] = [
  { title: 'OpenAI GPT-5.6 Terra (Responses API)', kind: 'openai', model: 'gpt-5.6-terra' },
  { title: 'OpenAI gpt-5-mini (Responses API, before its shutdown)', kind: 'openai', model: 'gpt-5-mini' },
  { title: 'Claude Opus 5.5 (no forced tool choice, no sampling)', kind: 'anthropic', model: 'claude-opus-5-5' },
  { title: 'Claude Sonnet 4.6', kind: 'anthropic', model: 'claude-sonnet-4-6' },
  { title: 'a local OpenAI-compatible model that refuses tools', kind: 'openai', model: 'qwen2.5-coder:7b', local: true },
];

/** Besides the named ones, one current model of every catalogued family, so a new family cannot go untested. */
const FAMILIES: readonly Target[] = (() => {
  const first = new Map<string, { name: string; provider: 'openai' | 'anthropic' }>();
  // The catalogue lists a family's current models before its older ones: take the first without a shutdown date.
  for (const m of shippedCatalogue().models) if (!m.shutdown && !first.has(m.family)) first.set(m.family, m);
  for (const m of shippedCatalogue().models) if (!first.has(m.family) && m.shutdown! > '2026-11-24') first.set(m.family, m);
  return [...first.entries()].filter(([, m]) => !NAMED.some((t) => t.model === m.name)).map(([family, m]) => ({ title: `${m.name} (family ${family})`, kind: m.provider, model: m.name }));
})();

const TARGETS: readonly Target[] = [...NAMED, ...FAMILIES];

describe('headless runs at FAST against servers that hold the providers\' rules', function () {
  this.timeout(60_000);

  for (const target of TARGETS) {
    it(`gets through every phase on ${target.title}`, async () => {
      const content = demoContent();
      const server =
        target.kind === 'openai'
          ? await new OpenAiContractServer({ content: (r) => content.next(r), today: '2026-11-24', ...(target.local ? { localModels: [target.model], refusesTools: true } : {}) }).start()
          : await new AnthropicContractServer({ content: (r) => content.next(r), today: '2026-11-24' }).start();
      const workspace = tempDir('contract-run');
      const store = await Store.open({ file: path.join(tempDir('contract-store'), 'db.sqlite'), checkpointIdleMs: 60_000 });
      try {
        const baseUrl = target.kind === 'openai' ? `${server.url}/v1` : server.url;
        const config: LlmConfigInput = {
          version: 1,
          // A loopback server is local by default; the hosted models are frontier (priced, money caps hold).
          providers: [{ id: target.kind, kind: target.kind, baseUrl, class: target.local ? 'local' : 'frontier', maxRetries: 0 }],
          models: [{ id: 'model', provider: target.kind, model: target.model }],
          routing: { default: 'model' },
        };
        const lessons: ModelLesson[] = [];
        const env = target.kind === 'openai' ? { OPENAI_API_KEY: KEY } : { ANTHROPIC_API_KEY: KEY };
        const resolved = await resolveModels(config, { env, now: () => TODAY, onLesson: (lesson) => lessons.push(lesson) });
        const level = 'FAST';
        const router = new ModelRouter(resolved, { budget: BudgetLedger.forLevel(level, undefined, { prices: resolved.catalogue }) });
        const events: RunEvent[] = [];
        const { engine } = await nodeAlgorithm({
          workspace,
          store,
          models: router,
          effort: shippedEffortTable(),
          approver: denyAll,
          autoApproveEdits: true,
          trusted: true,
          learning: false,
          verifyTimeoutMs: 20_000,
          onEvent: (e) => events.push(e),
        });

        const result = await engine.start({ request: REQUEST, effort: level, workspaceFolder: workspace });

        assert.equal(result.state, 'COMPLETE', `${result.state}: ${result.reason}\n${events.map((e) => `[${e.phase ?? '-'}] ${e.message}`).join('\n')}`);
        const phases = new Set(events.flatMap((e) => (e.phase ? [e.phase] : [])));
        for (const phase of PHASES) assert.ok(phases.has(phase), `phase ${phase} was reached`);
        // The specialist's tool call was accepted and did the work the verifier then checked on disk.
        assert.match(fs.readFileSync(path.join(workspace, 'hello.txt'), 'utf8'), /Hello, world/);
        // The demo's last answer is LEARN's reflection, which a run asks for at STANDARD and above only.
        assert.equal(content.remaining, 1, 'every scripted reply up to the reflection was asked for');
        // At most two refusals, each one adapted to: learned, and the same request made again without it.
        const refused = server instanceof OpenAiContractServer ? server.refused.map((r) => r.rule ?? '') : server.refused.map((r) => r.rule);
        assert.ok(refused.length <= 2, `refusals: ${refused.join(', ')}`);
        assert.equal(lessons.length, refused.length, `one lesson per refusal: ${JSON.stringify(lessons.map((l) => l.param))} for ${refused.join(', ')}`);
        if (server instanceof OpenAiContractServer) {
          const endpoints = new Set(server.received.map((r) => r.endpoint));
          assert.deepEqual([...endpoints], [target.local ? 'chat' : 'responses'], 'OpenAI\'s own models through the Responses API, local servers through Chat Completions');
        }
        if (target.local) {
          assert.deepEqual(lessons.map((l) => l.param), ['tools'], 'the tools were refused once and then went through the prompt');
          assert.ok(events.some((e) => e.kind === 'model' && /^adapted: .*refused tools/.test(e.message)), 'the adaptation is a run event');
        }
        else assert.deepEqual(refused, [], 'a catalogued model is asked only what it accepts');
      } finally {
        store.close();
        await server.stop();
      }
    });
  }
});
