import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { effortForIteration, LoopEngine } from '../../../../src/app/loop';
import { shippedEffortTable } from '../../../../src/model/effort-table';
import type { EffortTable } from '../../../../src/model';
import { badPage, goodPage, loopHarness, loopWorkspace, subRunSteps } from '../../support/loop-helpers';

/** The shipped table with four criteria enough and one iteration per sub-run at every level the tests use. */
function testTable(): EffortTable {
  const t = structuredClone(shippedEffortTable());
  for (const l of ['STANDARD', 'EXTENDED'] as const) t.levels[l] = { ...t.levels[l], minCriteria: 4, maxIterations: 1 };
  return t;
}

describe('loop: iterations, effort decay, budget, cancel and resume', () => {
  it('decays effort one level after the third iteration, never below STANDARD', () => {
    assert.deepEqual([1, 2, 3, 4, 5].map((k) => effortForIteration('EXTENDED', k)), ['EXTENDED', 'EXTENDED', 'EXTENDED', 'STANDARD', 'STANDARD']);
    assert.deepEqual([1, 4, 9].map((k) => effortForIteration('DEEP', k)), ['DEEP', 'ADVANCED', 'ADVANCED']);
    assert.deepEqual([1, 4].map((k) => effortForIteration('STANDARD', k)), ['STANDARD', 'STANDARD']);
    assert.deepEqual([1, 4].map((k) => effortForIteration('FAST', k)), ['FAST', 'FAST']);
  });

  it('works a page that never passes in every iteration, logs X/Y per iteration at the decayed effort, and ends FAILED with it unmet', async function () {
    this.timeout(120_000);
    const { workspace, files } = loopWorkspace(2, 1);
    const lines: string[] = [];
    const h = await loopHarness(workspace, (file) => subRunSteps(file, `# page-001\n\nTODO still\n`, { validator: false }), { onLog: (l) => lines.push(l) });
    try {
      const result = await new LoopEngine({ ...h.ports, run: { ...h.ports.run, effort: testTable() } }).start({ glob: 'docs/*.md', isc: 'test.loop-page', agents: 2, effort: 'EXTENDED', maxIterations: 5 });
      assert.equal(result.state, 'FAILED');
      assert.deepEqual(result.unmet, [files[0]]);
      assert.deepEqual(result.loop.log.map((e) => e.effort), ['EXTENDED', 'EXTENDED', 'EXTENDED', 'STANDARD', 'STANDARD']);
      assert.deepEqual(result.loop.log.map((e) => e.message), [1, 2, 3, 4, 5].map((k) => `iteration ${k}: 1/2 artifacts passing; 1 failing: docs/page-001.md`));
      assert.ok(lines.includes('iteration 4: effort decays to STANDARD'), lines.join('\n'));
      assert.equal(h.scriptsUsed.get(files[0]!), 5, 'one sub-run per iteration');
      assert.equal(h.scriptsUsed.get(files[1]!), undefined, 'the passing page is never worked');
      const a = result.artifacts.find((x) => x.file === files[0])!;
      assert.equal(a.runIds.length, 5);
      assert.ok(a.notices.every((n) => n.verdict === 'rejected' && n.reverted && n.by === 'the mechanical verification'));
      assert.equal(fs.readFileSync(path.join(workspace, files[0]!), 'utf8'), badPage('page-001'), 'each rejected edit was put back');
    } finally {
      h.close();
    }
  });

  it('ends BUDGET_EXHAUSTED with the unmet artifacts listed when the time budget is spent', async function () {
    this.timeout(60_000);
    const { workspace, files } = loopWorkspace(4, 2);
    const h = await loopHarness(workspace, (file) => subRunSteps(file, goodPage(path.posix.basename(file, '.md'))));
    try {
      const result = await new LoopEngine(h.ports).start({ glob: 'docs/*.md', isc: 'test.loop-page', agents: 2, effort: 'STANDARD', maxIterations: 3, budgetSeconds: 0.001 });
      assert.equal(result.state, 'BUDGET_EXHAUSTED');
      assert.deepEqual(result.unmet, files.slice(0, 2));
      assert.match(result.loop.reason!, /budget of 0\.001 s is spent with 2 artifact\(s\) unmet/);
    } finally {
      h.close();
    }
  });

  it('cancels mid-work (CANCELLED, the claim released) and resumes to COMPLETE without redoing acknowledged results', async function () {
    this.timeout(120_000);
    const { workspace, files } = loopWorkspace(3, 2);
    const controller = new AbortController();
    let slow = true;
    const h = await loopHarness(workspace, (file) => subRunSteps(file, goodPage(path.posix.basename(file, '.md')), { specialistDelayMs: slow && file === files[1] ? 60_000 : 0 }));
    try {
      const engine = new LoopEngine({
        ...h.ports,
        onProgress: (p) => {
          // Cancel once the fast page is acknowledged and the slow one is being worked.
          if (p.artifacts.find((a) => a.file === files[0])?.status === 'PASSING' && p.artifacts.find((a) => a.file === files[1])?.status === 'WORKING') controller.abort();
        },
      });
      const first = await engine.start({ glob: 'docs/*.md', isc: 'test.loop-page', agents: 2, effort: 'STANDARD', maxIterations: 3 }, controller.signal);
      assert.equal(first.state, 'CANCELLED');
      const slowRow = h.store.loops.artifact(first.loop.id, files[1]!)!;
      assert.equal(slowRow.status, 'PENDING');
      assert.equal(slowRow.claim, undefined);
      const fastRun = h.store.loops.artifact(first.loop.id, files[0]!)!.runId;
      slow = false;
      h.scriptsUsed.clear();
      const resumed = await new LoopEngine(h.ports).resume(first.loop.id);
      assert.equal(resumed.state, 'COMPLETE', resumed.loop.reason);
      assert.deepEqual([...h.scriptsUsed.keys()], [files[1]], 'only the interrupted page is worked again');
      assert.equal(resumed.artifacts.find((a) => a.file === files[0])!.runId, fastRun);
      for (const f of files) assert.equal(fs.readFileSync(path.join(workspace, f), 'utf8'), goodPage(path.posix.basename(f, '.md')));
    } finally {
      h.close();
    }
  });
});
