import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { AlgorithmEngine } from '../../../src/algorithm/engine';
import type { CriteriaVerifier, CriteriaVerifyOptions, PacketAssignment, PacketWork, PacketWorker } from '../../../src/algorithm/ports';
import { loadEffortTable } from '../../../src/model/effort-table';
import type { Phase, RunEvent } from '../../../src/model';
import { shippedPhaseGraph, type PhaseGraph } from '../../../src/algorithm/phase-graph';
import { StoreRunStorage } from '../../../src/algorithm/store-run-storage';
import { Store } from '../../../src/store/store';
import { markerCriteria, scriptedRouter, tempDir, type Step } from '../support/algorithm-helpers';

/** STANDARD with a tiny budget, so each node's share is a fraction of a second. */
function tinyBudget(seconds: number, parallelism = 1) {
  return loadEffortTable({ file: 'test.yaml', text: `version: 1\nlevels:\n  STANDARD:\n    budgetSeconds: ${seconds}\n    parallelism: ${parallelism}\n` }).table;
}

/** The shipped graph with other shares: the manager nodes get the whole budget each (slow machines take their time), the rest as given. */
function graphWith(shares: Partial<Record<Phase, number>>): PhaseGraph {
  const g = structuredClone(shippedPhaseGraph());
  for (const phase of ['OBSERVE', 'THINK', 'PLAN', 'BUILD'] as const) g.nodes[phase]!.budget = 1;
  for (const [phase, share] of Object.entries(shares)) g.nodes[phase as Phase]!.budget = share;
  return g;
}

/** The manager's answers (the scripted provider, a test tool): n criteria, one packet each. */
function managerAnswers(n: number, thinkDelayMs = 0): Step[] {
  const criteria = markerCriteria(n);
  const ids = criteria.map((_, i) => `ISC-${i + 1}`);
  return [
    { object: { criteria: criteria.map((c) => ({ text: c.text })) } },
    { object: { criteria: criteria.map((c, i) => ({ id: ids[i], text: c.text })) }, ...(thinkDelayMs ? { delayMs: thinkDelayMs } : {}) },
    { object: { packets: ids.map((id) => ({ title: `Work ${id}`, criterionIds: [id] })) } },
    { object: { methods: criteria.map((c, i) => ({ criterionId: ids[i], verify: c.verify })) } },
  ];
}

/** A stand-in verifier (not the real one): passes what a packet worked, records the options it was given. */
function standInVerifier(worked: Set<string>, seen: CriteriaVerifyOptions[]): CriteriaVerifier {
  return {
    async verify(list, options) {
      seen.push(options);
      const results = list.map((c) => (worked.has(c.id) ? { criterionId: c.id, outcome: 'PASS' as const, evidence: 'stand-in', durationMs: 0, locations: [] } : { criterionId: c.id, outcome: 'FAIL' as const, evidence: 'not worked', durationMs: 0, failureLabel: 'EXECUTION_ERROR' as const, locations: [] }));
      return { results, passed: results.every((r) => r.outcome === 'PASS'), summary: 'stand-in verifier' };
    },
  };
}

describe('algorithm: each node held to its share of the budget', () => {
  const open: Store[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  async function storage(): Promise<{ store: Store; storage: StoreRunStorage }> {
    const store = await Store.open({ file: path.join(tempDir('node-budget'), 'db.sqlite'), checkpointIdleMs: 60_000 });
    open.push(store);
    return { store, storage: new StoreRunStorage(store) };
  }

  it('cuts a manager node whose model call outlasts its share and ends BUDGET_EXHAUSTED, not CANCELLED', async function () {
    this.timeout(30_000);
    const { store, storage: s } = await storage();
    const events: RunEvent[] = [];
    const { router, model } = scriptedRouter(managerAnswers(4, 20_000));
    const worker: PacketWorker = { work: async () => assert.fail('no packet may be worked after THINK was cut') };
    // 4 s budget: THINK's 25 % share with the 150 % tolerance is 1.5 s; its scripted answer takes 20 s.
    const engine = new AlgorithmEngine({ storage: s, models: router, worker, verifier: standInVerifier(new Set(), []), effort: tinyBudget(4), graph: graphWith({ THINK: 0.25 }), minNodeMs: 0, onEvent: (e) => events.push(e) });
    const started = Date.now();
    const result = await engine.start({ request: 'Write four markers', effort: 'STANDARD' });
    assert.ok(Date.now() - started < 10_000, 'the slow model call was cut, not waited for');
    assert.equal(result.state, 'BUDGET_EXHAUSTED', result.reason);
    assert.match(result.reason!, /THINK used its 25 % share of the 4 s budget \(1\.5 s/);
    const cut = events.find((e) => e.kind === 'budget' && /THINK used its 25 % share/.test(e.message));
    assert.ok(cut, 'a budget event says which node was cut');
    assert.match(cut.message, /nothing new to verify/);
    assert.equal(model.requests.length, 2, 'OBSERVE and the cut THINK asked the model; nothing after');
    assert.equal(store.runs.get(result.run.id)!.state, 'BUDGET_EXHAUSTED');
    assert.equal(store.criteria.list(result.run.id).length, 4, 'OBSERVE\'s criteria are kept');
  });

  it('starts no packet past EXECUTE\'s share, lets the one in flight finish, and verifies what was worked', async function () {
    this.timeout(30_000);
    const { store, storage: s } = await storage();
    const events: RunEvent[] = [];
    const workedIds = new Set<string>();
    const worked: string[] = [];
    let timeUpAtEnd: boolean[] = [];
    // A stand-in specialist (not a model): the first packet is done at once, the second is
    // still being worked when EXECUTE's share runs out (it waits for that), then finishes.
    const worker: PacketWorker = {
      async work(a: PacketAssignment): Promise<PacketWork> {
        worked.push(a.packet.id);
        if (a.packet.id !== 'pkt-1-1') while (!a.timeUp?.()) await new Promise((r) => setTimeout(r, 10));
        a.packet.criterionIds.forEach((id) => workedIds.add(id));
        timeUpAtEnd = [...timeUpAtEnd, a.timeUp?.() ?? false];
        return { summary: `worked ${a.packet.id}`, edits: [], assumptions: [], evidence: [] };
      },
    };
    const seen: CriteriaVerifyOptions[] = [];
    // 4 s budget: EXECUTE's 40 % share with the 150 % tolerance is 2.4 s.
    const engine = new AlgorithmEngine({ storage: s, models: scriptedRouter(managerAnswers(4)).router, worker, verifier: standInVerifier(workedIds, seen), effort: tinyBudget(4), graph: graphWith({}), minNodeMs: 0, onEvent: (e) => events.push(e) });
    const started = Date.now();
    const result = await engine.start({ request: 'Write four markers', effort: 'STANDARD' });
    assert.ok(Date.now() - started >= 2400, 'the run took at least EXECUTE\'s share');
    assert.deepEqual(worked, ['pkt-1-1', 'pkt-1-2'], 'no packet started after the share was spent');
    assert.deepEqual(timeUpAtEnd, [false, true], 'the specialist is told when the share is spent');
    const cut = events.find((e) => e.kind === 'budget' && /EXECUTE used its 40 % share/.test(e.message));
    assert.ok(cut, 'a budget event says EXECUTE was cut');
    assert.match(cut.message, /straight to VERIFY/);
    assert.equal(seen.length, 1, 'VERIFY ran on what was worked');
    assert.equal(result.state, 'BUDGET_EXHAUSTED', result.reason);
    assert.deepEqual(result.unmet.map((c) => c.id), ['ISC-3', 'ISC-4']);
    assert.equal(store.candidates.where('run_id = ?', [result.run.id]).length, 2, 'the finished packets are kept, the one in flight included');
    assert.deepEqual(store.packets.where('run_id = ?', [result.run.id]).filter((p) => p.status === 'PLANNED').map((p) => p.id), ['pkt-1-3', 'pkt-1-4']);
  });

  it('bounds each criterion\'s verification by VERIFY\'s share, and no node\'s share is under the floor', async function () {
    this.timeout(30_000);
    const run = async (minNodeMs: number | undefined) => {
      const { storage: s } = await storage();
      const seen: CriteriaVerifyOptions[] = [];
      const all = new Set(['ISC-1', 'ISC-2', 'ISC-3', 'ISC-4']);
      const worker: PacketWorker = { work: async (a) => ({ summary: `worked ${a.packet.id}`, edits: [], assumptions: [], evidence: [] }) };
      const engine = new AlgorithmEngine({ storage: s, models: scriptedRouter(managerAnswers(4)).router, worker, verifier: standInVerifier(all, seen), effort: tinyBudget(4), graph: graphWith({}), verifyTimeoutMs: 60_000, ...(minNodeMs !== undefined ? { minNodeMs } : {}) });
      const result = await engine.start({ request: 'Write four markers', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      return seen[0]!.timeoutMs;
    };
    // VERIFY's 15 % of 4 s with the 150 % tolerance: 900 ms, under the 60 s the engine was given.
    assert.equal(await run(0), 900);
    // With the default floor (15 s) a tiny budget does not starve a node.
    assert.equal(await run(undefined), 15_000);
  });
});
