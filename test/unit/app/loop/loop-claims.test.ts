import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { AgentPool } from '../../../../src/app/loop/pool';
import type { LoopArtifact } from '../../../../src/model';
import { Store } from '../../../../src/store/store';
import { tempDir } from '../../support/algorithm-helpers';

const at = '2026-11-24T00:00:00.000Z';

async function storeWithLoop(files: string[]): Promise<Store> {
  const store = await Store.open({ file: path.join(tempDir('loop-claims'), 'db.sqlite'), checkpointIdleMs: 60_000 });
  store.loops.save({ id: 'loop-1', spec: { glob: '*.md', isc: 'docs.page', agents: 4, effort: 'STANDARD', maxIterations: 3, verifyOnly: false }, state: 'RUNNING', iteration: 1, effort: 'STANDARD', criterionIds: ['ISC-1'], total: files.length, passing: 0, budgetSeconds: 60, elapsedMs: 0, log: [], unmet: [], createdAt: at, updatedAt: at });
  store.loops.saveArtifacts(...files.map((file): LoopArtifact => ({ loopId: 'loop-1', file, shard: 1, status: 'FAILING', iteration: 1, workedIteration: 0, runIds: [], outcomes: {}, evidence: {}, notices: [], updatedAt: at })));
  return store;
}

describe('loop: claims keep two agents off one artifact', () => {
  it('two pools of 4 agents over one store and the same queue work every artifact exactly once', async () => {
    const files = Array.from({ length: 40 }, (_, i) => `docs/p${String(i).padStart(2, '0')}.md`);
    const store = await storeWithLoop(files);
    try {
      const worked: string[] = [];
      const byPool = new Map<string, number>();
      const work = (pool: string) => async (a: LoopArtifact) => {
        assert.match(a.claim!.owner, new RegExp(`^${pool}#[1-4]$`));
        worked.push(a.file);
        byPool.set(pool, (byPool.get(pool) ?? 0) + 1);
        // A real agent takes a while; the other pool runs meanwhile.
        await new Promise((r) => setTimeout(r, 1 + (a.file.length % 3)));
        // Acknowledged: the claim is released and the iteration it was worked in recorded.
        const { claim: _c, ...rest } = store.loops.artifact('loop-1', a.file)!;
        store.loops.saveArtifacts({ ...rest, status: 'FAILING', workedIteration: 1, updatedAt: new Date().toISOString() });
      };
      const now = () => new Date();
      await Promise.all([
        new AgentPool(store, 'loop-1', 'A', 4, 60_000, now, 1).run(files, work('A'), () => false),
        new AgentPool(store, 'loop-1', 'B', 4, 60_000, now, 1).run([...files].reverse(), work('B'), () => false),
      ]);
      assert.deepEqual([...worked].sort(), files, 'every artifact once, none twice');
      assert.ok((byPool.get('A') ?? 0) > 0 && (byPool.get('B') ?? 0) > 0, `both pools worked (${[...byPool].join(', ')})`);
    } finally {
      store.close();
    }
  });

  it("refuses an artifact another owner holds until the claim expires, and one already worked in this iteration", async () => {
    const store = await storeWithLoop(['a.md']);
    try {
      const t0 = new Date('2026-11-24T01:00:00.000Z');
      assert.ok(store.loops.claim('loop-1', 'a.md', { owner: 'A#1', expiresAt: new Date(t0.getTime() + 1000).toISOString() }, t0, 1));
      assert.equal(store.loops.claim('loop-1', 'a.md', { owner: 'B#1', expiresAt: '2026-11-24T02:00:00.000Z' }, new Date(t0.getTime() + 500), 1), undefined);
      const taken = store.loops.claim('loop-1', 'a.md', { owner: 'B#1', expiresAt: '2026-11-24T02:00:00.000Z' }, new Date(t0.getTime() + 1500), 1);
      assert.equal(taken?.claim?.owner, 'B#1', 'an expired claim (its owner crashed) is taken over');
      assert.equal(store.loops.artifact('loop-1', 'a.md')!.status, 'WORKING');
      const { claim: _c, ...rest } = taken!;
      store.loops.saveArtifacts({ ...rest, status: 'FAILING', workedIteration: 1 });
      assert.equal(store.loops.claim('loop-1', 'a.md', { owner: 'C#1', expiresAt: '2026-11-24T02:00:00.000Z' }, t0, 1), undefined, 'worked in iteration 1 already');
      assert.ok(store.loops.claim('loop-1', 'a.md', { owner: 'C#1', expiresAt: '2026-11-24T02:00:00.000Z' }, t0, 2), 'free again in iteration 2');
    } finally {
      store.close();
    }
  });
});
