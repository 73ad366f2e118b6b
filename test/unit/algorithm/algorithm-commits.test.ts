import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { AlgorithmEngine } from '../../../src/algorithm/engine';
import type { CriteriaVerifier, PacketAssignment, PacketWork, PacketWorker, RunStorage, StepCommit } from '../../../src/algorithm/ports';
import type { RunEvent } from '../../../src/model';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { StoreRunStorage } from '../../../src/algorithm/store-run-storage';
import { Store } from '../../../src/store/store';
import { markerCriteria, scriptedRouter, tempDir, type Step } from '../support/algorithm-helpers';

/** Manager answers for four criteria in four packets (the scripted provider, a test tool). */
function fourPackets(): Step[] {
  const criteria = markerCriteria(4);
  const ids = criteria.map((_, i) => `ISC-${i + 1}`);
  return [
    { object: { criteria: criteria.map((c) => ({ text: c.text })) } },
    { object: { criteria: criteria.map((c, i) => ({ id: ids[i], text: c.text })) } },
    { object: { packets: ids.map((id) => ({ title: `Work ${id}`, criterionIds: [id] })) } },
    { object: { methods: criteria.map((c, i) => ({ criterionId: ids[i], verify: c.verify })) } },
  ];
}

// A stand-in verifier that passes everything: verification is not what these tests are about.
const passing: CriteriaVerifier = {
  async verify(list) {
    return { results: list.map((c) => ({ criterionId: c.id, outcome: 'PASS' as const, evidence: 'stand-in', durationMs: 0, locations: [] })), passed: true, summary: 'stand-in verifier' };
  },
};

/** The real store, with every commit recorded in order. */
async function recordingStorage(): Promise<{ store: Store; storage: RunStorage; commits: StepCommit[] }> {
  const store = await Store.open({ file: path.join(tempDir('commits'), 'db.sqlite'), checkpointIdleMs: 60_000 });
  const inner = new StoreRunStorage(store);
  const commits: StepCommit[] = [];
  const storage: RunStorage = {
    commit: (c) => {
      inner.commit(c);
      commits.push(c);
    },
    load: (id) => inner.load(id),
    saveCheckpoint: (id, c) => inner.saveCheckpoint(id, c),
    checkpoints: (id) => inner.checkpoints(id),
  };
  return { store, storage, commits };
}

const transitionOf = (c: StepCommit) => c.events.find((e: RunEvent) => / → /.test(e.message))?.message;

describe('algorithm: one durable commit per transition', () => {
  it('folds claims and finished packets of work that never waits into the EXECUTE transition: one commit', async function () {
    this.timeout(30_000);
    const { store, storage, commits } = await recordingStorage();
    // A stand-in specialist (not a model) whose work is in hand at once.
    const worker: PacketWorker = { work: async (a) => ({ summary: `worked ${a.packet.id}`, edits: [], assumptions: [], evidence: [] }) };
    try {
      const engine = new AlgorithmEngine({ storage, models: scriptedRouter(fourPackets()).router, worker, verifier: passing, effort: shippedEffortTable() });
      const result = await engine.start({ request: 'Write four markers', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      const into = commits.findIndex((c) => transitionOf(c) === 'BUILD → EXECUTE');
      const out = commits.findIndex((c) => transitionOf(c) === 'EXECUTE → VERIFY');
      assert.equal(out - into, 1, `EXECUTE took ${out - into} commits: ${commits.slice(into + 1, out + 1).map((c) => c.events.map((e) => e.message).join(' | ')).join(' || ')}`);
      const execute = commits[out]!;
      assert.equal(execute.events.filter((e) => /claimed pkt-1-/.test(e.message)).length, 4, 'the claims are in the transition commit');
      assert.equal(execute.events.filter((e) => /pkt-1-\d done/.test(e.message)).length, 4, 'so are the finished packets');
      // Every transition is one commit: the commits with a transition in them are all but the run's start and its PRD-less end.
      const transitions = commits.filter((c) => transitionOf(c) !== undefined).length;
      assert.ok(commits.length <= transitions + 2, `${commits.length} commits for ${transitions} transitions`);
      assert.equal(store.packets.where('run_id = ?', [result.run.id]).filter((p) => p.status === 'DONE').length, 4);
      assert.equal(store.candidates.where('run_id = ?', [result.run.id]).length, 4);
    } finally {
      store.close();
    }
  });

  it('commits finished packets and the new claims before the process waits on a specialist', async function () {
    this.timeout(30_000);
    const { store, storage } = await recordingStorage();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let seenWhileWaiting: { done: string[]; claimed: string[]; candidates: number } | undefined;
    let looking = false;
    let runId = '';
    // A stand-in specialist: the first packet is in hand at once, every later one waits (like a model call).
    const worker: PacketWorker = {
      async work(a: PacketAssignment): Promise<PacketWork> {
        runId = a.runId;
        if (a.packet.id !== 'pkt-1-1') {
          // Only the first waiting packet looks (claimed synchronously: the others wait in parallel
          // and must not take a second look after the gate opened and their siblings finished).
          if (!looking) {
            looking = true;
            // Look once the event loop has turned: what would survive a crash during this wait?
            await new Promise((r) => setTimeout(r, 20));
            const packets = store.packets.where('run_id = ?', [runId]);
            seenWhileWaiting = {
              done: packets.filter((p) => p.status === 'DONE').map((p) => p.id),
              claimed: packets.filter((p) => p.status === 'CLAIMED').map((p) => p.id),
              candidates: store.candidates.where('run_id = ?', [runId]).length,
            };
            release();
          }
          await gate;
        }
        return { summary: `worked ${a.packet.id}`, edits: [], assumptions: [], evidence: [] };
      },
    };
    try {
      const engine = new AlgorithmEngine({ storage, models: scriptedRouter(fourPackets()).router, worker, verifier: passing, effort: shippedEffortTable() });
      const result = await engine.start({ request: 'Write four markers', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.ok(seenWhileWaiting, 'a specialist waited');
      assert.deepEqual(seenWhileWaiting.done, ['pkt-1-1'], 'the packet finished before the wait was committed');
      assert.equal(seenWhileWaiting.candidates, 1);
      assert.ok(seenWhileWaiting.claimed.length >= 1, 'the packets being worked were committed as claimed');
    } finally {
      store.close();
    }
  });
});
