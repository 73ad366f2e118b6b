import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { AlgorithmEngine } from '../../../src/algorithm/engine';
import { availableRows, claimRows, createTable, releaseRows } from '../../../src/algorithm/isc-manager';
import type { CriteriaVerifier, PacketAssignment, PacketWork, PacketWorker } from '../../../src/algorithm/ports';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { StoreRunStorage } from '../../../src/algorithm/store-run-storage';
import { Store } from '../../../src/store/store';
import { markerCriteria, scriptedRouter, tempDir, type Step } from '../support/algorithm-helpers';

const T0 = new Date('2026-11-01T10:00:00.000Z');
const later = (ms: number) => new Date(T0.getTime() + ms);

describe('algorithm: ISC manager claims', () => {
  const rows = () => createTable([{ text: 'First criterion holds true' }, { text: 'Second criterion holds true' }, { text: 'Third criterion holds true' }], T0.toISOString());

  it('claims all-or-nothing: a row held by another worker refuses the whole claim', () => {
    const a = claimRows(rows(), ['ISC-1', 'ISC-2'], 'w1', T0);
    assert.ok(a.ok);
    const b = claimRows(a.criteria, ['ISC-2', 'ISC-3'], 'w2', later(1000));
    assert.deepEqual(b, { ok: false, heldBy: 'w1' });
    assert.deepEqual(availableRows(a.criteria, later(1000)).map((c) => c.id), ['ISC-3']);
  });

  it('lets another worker take a stale claim, and ignores a release by someone who does not hold it', () => {
    const a = claimRows(rows(), ['ISC-1'], 'w1', T0);
    assert.ok(a.ok);
    assert.deepEqual(availableRows(a.criteria, later(31 * 60_000)).map((c) => c.id), ['ISC-1', 'ISC-2', 'ISC-3']);
    const b = claimRows(a.criteria, ['ISC-1'], 'w2', later(31 * 60_000));
    assert.ok(b.ok);
    assert.equal(b.criteria[0]!.claim!.by, 'w2');
    const notMine = releaseRows(b.criteria, ['ISC-1'], 'w1', 'DONE', later(32 * 60_000));
    assert.equal(notMine[0]!.claim!.by, 'w2', 'w1 cannot release w2s claim');
    const released = releaseRows(b.criteria, ['ISC-1'], 'w2', 'DONE', later(32 * 60_000));
    assert.equal(released[0]!.claim, undefined);
    assert.equal(released[0]!.status, 'DONE');
    assert.equal(released[0]!.completedAt, later(32 * 60_000).toISOString());
  });

  it('never gives one row to two parallel specialists, and works each packet exactly once', async function () {
    this.timeout(30_000);
    const n = 8;
    const criteria = markerCriteria(n);
    const ids = criteria.map((_, i) => `ISC-${i + 1}`);
    // Eight packets, each sharing a criterion with its neighbour: claims must serialise neighbours.
    const packets = ids.map((id, i) => ({ title: `Packet ${i + 1}`, criterionIds: [id, ids[(i + 1) % n]!] }));
    const steps: Step[] = [
      { object: { criteria: criteria.map((c) => ({ text: c.text })) } },
      { object: { criteria: criteria.map((c, i) => ({ id: ids[i], text: c.text })) } },
      { object: { packets } },
      { object: { methods: criteria.map((c, i) => ({ criterionId: ids[i], verify: c.verify })) } },
    ];
    const held = new Map<string, string>();
    const violations: string[] = [];
    const worked: string[] = [];
    let concurrent = 0;
    let maxConcurrent = 0;
    // A stand-in specialist (not a model): holds its rows for a random while.
    const worker: PacketWorker = {
      async work(a: PacketAssignment): Promise<PacketWork> {
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        for (const id of a.packet.criterionIds) {
          if (held.has(id)) violations.push(`${id} held by ${held.get(id)} and given to ${a.workerId}`);
          held.set(id, a.workerId);
        }
        worked.push(a.packet.id);
        await new Promise((r) => setTimeout(r, 1 + Math.floor(Math.random() * 15)));
        for (const id of a.packet.criterionIds) held.delete(id);
        concurrent--;
        return { summary: `worked ${a.packet.id}`, edits: [], assumptions: [], evidence: [] };
      },
    };
    // A stand-in verifier that passes everything: verification is not what this test is about.
    const verifier: CriteriaVerifier = {
      async verify(list) {
        return { results: list.map((c) => ({ criterionId: c.id, outcome: 'PASS' as const, evidence: 'stand-in', durationMs: 0, locations: [] })), passed: true, summary: 'stand-in verifier' };
      },
    };
    const store = await Store.open({ file: path.join(tempDir('claims'), 'db.sqlite') });
    try {
      const engine = new AlgorithmEngine({ storage: new StoreRunStorage(store), models: scriptedRouter(steps).router, worker, verifier, effort: shippedEffortTable() });
      const result = await engine.start({ request: 'Work eight overlapping packets', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.deepEqual(violations, []);
      assert.deepEqual([...worked].sort(), Array.from({ length: n }, (_, i) => `pkt-1-${i + 1}`).sort());
      assert.ok(maxConcurrent > 1, `specialists ran in parallel (max ${maxConcurrent})`);
      assert.ok(maxConcurrent <= shippedEffortTable().levels.STANDARD.parallelism);
      assert.ok(store.criteria.list(result.run.id).every((c) => c.claim === undefined && c.status === 'DONE'));
    } finally {
      store.close();
    }
  });
});
