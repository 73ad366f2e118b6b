import * as assert from 'node:assert/strict';
import { AlgorithmEngine } from '../../../src/algorithm/engine';
import type { CriteriaVerifier, PacketWorker, RunStorage, StepCommit } from '../../../src/algorithm/ports';
import { shippedEffortTable } from '../../../src/model/effort-table';
import type { RunEvent } from '../../../src/model';
import { LlmConfig } from '../../../src/llm/config';
import { LlmProviderError } from '../../../src/llm/errors';
import { ScriptedModel } from '../../../src/llm/providers/scripted';
import type { ModelSlot } from '../../../src/llm/resolve';
import { ModelRouter } from '../../../src/llm/router';
import type { LanguageModel } from '../../../src/llm/types';

/** A hosted model that is never reached in these runs (the manager is routed to the scripted one). */
function hosted(id: string, model: string, extra: Partial<LanguageModel> = {}): LanguageModel {
  return { id, providerId: 'cloud', kind: 'openai', model, modelClass: 'frontier', displayName: model, chat: async () => { throw new LlmProviderError(model, 'auth', 'not reachable in this test'); }, ...extra };
}

/** Keeps the commits in memory; these runs never resume. */
function memoryStorage(commits: StepCommit[]): RunStorage {
  return { commit: (c) => void commits.push(c), load: () => undefined, saveCheckpoint: () => undefined, checkpoints: () => [] };
}

describe('algorithm: a run names the models whose cost is unknown at its start', () => {
  it('emits one model event per configured, available model without a price, before OBSERVE', async () => {
    const slots = new Map<string, ModelSlot>([
      // The manager's model: a script (a test tool) that fails, so the run ends at OBSERVE.
      ['local', { ok: true, model: ScriptedModel.fromText('fail.yaml', 'steps:\n  - error: { kind: server }\n', { id: 'local', modelClass: 'local' }) }],
      ['mystery', { ok: true, model: hosted('mystery', 'mystery-9', { displayName: 'Mystery 9' }) }],
      ['sonnet', { ok: true, model: hosted('sonnet', 'claude-sonnet-4-6', { kind: 'anthropic' }) }],
      ['priced', { ok: true, model: hosted('priced', 'house-model', { price: { inputPerMTok: 1, outputPerMTok: 2 } }) }],
      ['nokey', { ok: false, id: 'nokey', modelClass: 'frontier', reason: 'no key' }],
    ]);
    const config = LlmConfig.parse({
      version: 1,
      providers: [{ id: 'scripted', kind: 'scripted', script: 'fail.yaml' }, { id: 'cloud', kind: 'openai' }],
      models: [
        { id: 'local', provider: 'scripted', model: 'fail' },
        { id: 'mystery', provider: 'cloud', model: 'mystery-9' },
        { id: 'sonnet', provider: 'cloud', model: 'claude-sonnet-4-6' },
        { id: 'priced', provider: 'cloud', model: 'house-model' },
        { id: 'nokey', provider: 'cloud', model: 'gpt-5.6-sol' },
      ],
      routing: { default: 'local', escalation: { enabled: false } },
    });
    const router = new ModelRouter({ config, slots, source: 'config' });
    const events: RunEvent[] = [];
    const commits: StepCommit[] = [];
    const worker: PacketWorker = { work: async () => assert.fail('no packet is worked in this run') };
    const verifier: CriteriaVerifier = { verify: async () => assert.fail('nothing is verified in this run') };
    const engine = new AlgorithmEngine({ storage: memoryStorage(commits), models: router, worker, verifier, effort: shippedEffortTable(), onEvent: (e) => events.push(e) });
    await engine.start({ request: 'Write out.txt', effort: 'INSTANT' });
    const notices = events.filter((e) => /^cost unknown/.test(e.message));
    assert.deepEqual(
      notices.map((e) => ({ kind: e.kind, model: e.model, role: e.role, message: e.message })),
      [{ kind: 'model', model: 'mystery-9', role: 'system', message: 'cost unknown for Mystery 9: it has no price in the catalogue or the models file, so the money caps cannot hold for its calls (token caps still do)' }],
    );
    assert.match(events[0]!.message, /^run started/);
    assert.equal(events[1], notices[0], 'said right after the run started, before any phase');
    assert.equal(commits[0]!.events.includes(notices[0]!), true, "in the run's first commit");
  });
});
