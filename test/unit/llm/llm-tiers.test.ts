import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { shippedCapabilities } from '../../../src/algorithm/capabilities';
import { AlgorithmEngine } from '../../../src/algorithm/engine';
import type { CriteriaVerifier, PacketWorker } from '../../../src/algorithm/ports';
import { loadEffortTable } from '../../../src/model/effort-table';
import { MemoryLogger } from '../../../src/model/log';
import { EFFORT_LEVELS, type RunEvent } from '../../../src/model';
import type { LlmConfigInput } from '../../../src/llm/config';
import { resolveModels } from '../../../src/llm/resolve';
import { ModelRouter } from '../../../src/llm/router';
import { MODEL_ROLES } from '../../../src/llm/types';
import { StoreRunStorage } from '../../../src/algorithm/store-run-storage';
import { Store } from '../../../src/store/store';
import { markerCriteria, tempDir } from '../support/algorithm-helpers';

/** Scripted providers (a test tool), one of each class; routing names `default` for every role. */
function config(models: ('local' | 'frontier')[], routing: Record<string, unknown> = {}): LlmConfigInput {
  return {
    version: 1,
    providers: [
      { id: 'ollama', kind: 'scripted', script: 'local.yaml', class: 'local' },
      { id: 'cloud', kind: 'scripted', script: 'frontier.yaml', class: 'frontier' },
    ],
    models: models.map((c) => (c === 'local' ? { id: 'small', provider: 'ollama', model: 'qwen' } : { id: 'big', provider: 'cloud', model: 'gpt' })),
    routing: { default: models[0] === 'local' ? 'small' : 'big', ...routing },
  };
}

async function router(c: LlmConfigInput, scripts: { local?: string; frontier?: string } = {}, logger?: MemoryLogger): Promise<ModelRouter> {
  const empty = 'name: unused\nsteps:\n  - text: unused\n';
  return new ModelRouter(await resolveModels(c, { readText: async (p) => (p === 'local.yaml' ? scripts.local ?? empty : scripts.frontier ?? empty) }), logger ? { logger } : {});
}

const tiers = shippedCapabilities().levels;

describe('llm: each role starts on its level\'s model tier (capabilities.yaml)', () => {
  it('routes every role at every level to a model of the tier the capabilities name when both tiers are configured', async () => {
    for (const first of ['local', 'frontier'] as const) {
      const r = await router(config(first === 'local' ? ['local', 'frontier'] : ['frontier', 'local']));
      r.preferTiers((role, level) => tiers[level].models[role]);
      for (const level of EFFORT_LEVELS) {
        for (const role of MODEL_ROLES) {
          const want = tiers[level].models[role];
          assert.equal(r.route(role, level).modelClass, want, `${role} at ${level} (default route ${first})`);
          assert.equal(r.route(role, level).id, want === 'local' ? 'small' : 'big');
        }
      }
      assert.deepEqual(r.tierNotes, [], 'every tier was honoured');
    }
    // The shipped table does use both tiers, so the loop above proved a move each way.
    assert.equal(tiers.STANDARD.models.manager, 'local');
    assert.equal(tiers.EXTENDED.models.manager, 'frontier');
    assert.equal(tiers.ADVANCED.models.verifier, 'frontier');
    assert.equal(tiers.ADVANCED.models.specialist, 'local');
  });

  it('falls back to the configured route with one note per role and level when no model of that tier exists', async () => {
    const logger = new MemoryLogger();
    const r = await router(config(['local']), {}, logger);
    r.preferTiers((role, level) => tiers[level].models[role]);
    assert.equal(r.route('manager', 'DEEP').id, 'small');
    assert.equal(r.route('manager', 'DEEP').id, 'small');
    assert.equal(r.route('manager', 'STANDARD').id, 'small');
    assert.equal(r.tierNotes.length, 1, 'one note for manager at DEEP, none for STANDARD (local wanted, local used)');
    assert.deepEqual({ ...r.tierNotes[0]!, message: undefined }, { role: 'manager', level: 'DEEP', wanted: 'frontier', model: 'small', message: undefined });
    assert.match(r.tierNotes[0]!.message, /manager at DEEP: the level's capabilities want a frontier model, but no frontier model is configured; using local model "small"/);
    assert.ok(logger.lines.some((l) => /want a frontier model/.test(l)), 'and the log says so');
  });

  it('keeps a route the models file names for the level, and a role\'s policy, over the tier', async () => {
    const r = await router(config(['local', 'frontier'], { levels: { DEEP: { verifier: 'small' } }, roles: { manager: { policy: 'local-only' } } }));
    r.preferTiers((role, level) => tiers[level].models[role]);
    assert.equal(r.route('verifier', 'DEEP').id, 'small', 'the explicit route for DEEP stays');
    assert.equal(r.route('manager', 'DEEP').id, 'small', 'local-only never leaves the machine');
    assert.equal(r.route('specialist', 'DEEP').id, 'big', 'the rest follow the tier');
    assert.deepEqual(r.tierNotes.map((n) => [n.role, n.level]), [['verifier', 'DEEP'], ['manager', 'DEEP']]);
    assert.match(r.tierNotes[0]!.message, /the models file routes verifier at DEEP to "small"/);
    assert.match(r.tierNotes[1]!.message, /manager is local-only/);
  });

  it('without a tier preference routes as configured (nothing moves, no notes)', async () => {
    const r = await router(config(['frontier', 'local']));
    for (const level of EFFORT_LEVELS) for (const role of MODEL_ROLES) assert.equal(r.route(role, level).id, 'big');
    assert.deepEqual(r.tierNotes, []);
  });

  it('the engine sets the tiers from its capabilities: a DEEP run\'s manager calls go to the frontier model, a STANDARD run\'s to the local one', async function () {
    this.timeout(30_000);
    const criteria = markerCriteria(4);
    const ids = criteria.map((_, i) => `ISC-${i + 1}`);
    const answers = [
      { object: { criteria: criteria.map((c) => ({ text: c.text })) } },
      { object: { criteria: criteria.map((c, i) => ({ id: ids[i], text: c.text })) } },
      { object: { packets: [{ title: 'Write the markers', criterionIds: ids }] } },
      { object: { methods: criteria.map((c, i) => ({ criterionId: ids[i], verify: c.verify })) } },
    ];
    const script = JSON.stringify({ name: 'manager', steps: answers });
    const worker: PacketWorker = { work: async (a) => ({ summary: `worked ${a.packet.id}`, edits: [], assumptions: [], evidence: [] }) };
    // A stand-in verifier (not the real one): verification is not what this test is about.
    const verifier: CriteriaVerifier = { verify: async (list) => ({ results: list.map((c) => ({ criterionId: c.id, outcome: 'PASS' as const, evidence: 'stand-in', durationMs: 0, locations: [] })), passed: true, summary: 'stand-in' }) };
    // DEEP asks for 40 criteria; four are enough to show where the calls go.
    const fourCriteria = loadEffortTable({ file: 'test.yaml', text: 'version: 1\nlevels:\n  DEEP:\n    minCriteria: 4\n' }).table;
    const served = async (effort: 'STANDARD' | 'DEEP', models: ('local' | 'frontier')[]) => {
      const r = await router(config(models), { local: script, frontier: script });
      const used: string[] = [];
      const events: RunEvent[] = [];
      const store = await Store.open({ file: path.join(tempDir('tiers'), 'db.sqlite'), checkpointIdleMs: 60_000 });
      try {
        const engine = new AlgorithmEngine({ storage: new StoreRunStorage(store), models: r, worker, verifier, effort: fourCriteria, onEvent: (e) => events.push(e) });
        const generate = r.generateObject.bind(r);
        r.generateObject = (async (role: never, level: never, request: never) => {
          const result = await generate(role, level, request);
          used.push(result.model.id);
          return result;
        }) as typeof r.generateObject;
        const result = await engine.start({ request: 'Write four markers', effort }, new AbortController().signal);
        assert.equal(result.state, 'COMPLETE', result.reason);
        return { used, notes: events.filter((e) => e.kind === 'model' && /capabilities want/.test(e.message)).map((e) => e.message) };
      } finally {
        store.close();
      }
    };
    assert.deepEqual((await served('DEEP', ['local', 'frontier'])).used, ['big', 'big', 'big', 'big']);
    assert.deepEqual((await served('STANDARD', ['frontier', 'local'])).used, ['small', 'small', 'small', 'small']);
    const fallback = await served('DEEP', ['local']);
    assert.deepEqual(fallback.used, ['small', 'small', 'small', 'small']);
    assert.equal(fallback.notes.length, 1, 'the run\'s events say once that the manager could not start on a frontier model');
    assert.match(fallback.notes[0]!, /manager at DEEP: the level's capabilities want a frontier model/);
  });
});
