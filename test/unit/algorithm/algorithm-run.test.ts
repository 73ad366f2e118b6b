import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { undoRunChanges } from '../../../src/agent/checkpoint';
import { NodeWorkspace } from '../../../src/agent/node-workspace';
import { criteriaFromPrd } from '../../../src/algorithm/prd-sync';
import { EFFORT_LEVELS } from '../../../src/model';
import { toCoreCriterion } from '../../../src/prd/to-core';
import { parsePrd } from '../../../src/prd/parse';
import { harness, levelMin, managerSteps, markerCriteria, markerFile, specialistSteps } from '../support/algorithm-helpers';

describe('algorithm: a full run (scripted provider)', () => {
  for (const level of EFFORT_LEVELS) {
    it(`runs OBSERVE → LEARN at ${level} and ends COMPLETE only on the verifier's PASS`, async function () {
      this.timeout(60_000);
      const n = levelMin(level);
      const h = await harness([...managerSteps(markerCriteria(n)), ...specialistSteps('out.txt', markerFile(n))]);
      try {
        const result = await h.engine.start({ request: `Write out.txt with ${n} marker lines`, effort: level });
        assert.equal(result.state, 'COMPLETE', result.reason);
        assert.equal(result.criteria.length, n);
        assert.ok(result.report?.passed);
        assert.ok(result.report!.results.every((r) => r.outcome === 'PASS'));
        assert.equal(fs.readFileSync(path.join(h.workspace, 'out.txt'), 'utf8'), markerFile(n));
        const phases = h.events.filter((e) => e.kind === 'phase' && / → /.test(e.message)).map((e) => e.message);
        assert.deepEqual(phases, ['OBSERVE → THINK', 'THINK → PLAN', 'PLAN → BUILD', 'BUILD → EXECUTE', 'EXECUTE → VERIFY', 'VERIFY → LEARN']);
        // Stored: the run, its steps, events in sequence, a report, a reflection.
        const run = h.store.runs.get(result.run.id)!;
        assert.equal(run.state, 'COMPLETE');
        const seqs = h.store.events.where('run_id = ?', [run.id], 'seq').map((e) => e.seq);
        assert.deepEqual(seqs, seqs.map((_, i) => i));
        assert.equal(h.store.reflections.where('run_id = ?', [run.id]).length, 1);
        // The PRD on disk: every criterion checked, a LOG entry, final status.
        const prd = parsePrd(fs.readFileSync(path.join(h.workspace, run.prdPath!), 'utf8'));
        assert.equal(prd.criteria.length, n);
        assert.ok(prd.criteria.every((c) => c.checked));
        assert.equal(prd.meta.status, 'COMPLETE');
        assert.equal(prd.log.length, 1);
        assert.equal(h.model.inner.stepsLeft, 0, 'every scripted step used');
      } finally {
        h.close();
      }
    });
  }
});

describe('algorithm: a run on a PRD, and undoing its changes', () => {
  it("keeps the PRD's own criteria as written, adds the manager's as INFERRED, and checks them off in the same file", async function () {
    this.timeout(30_000);
    const prdText = [
      '---',
      'prd: true',
      'id: PRD-20261122-markers',
      'status: DRAFT',
      'effort_level: INSTANT',
      '---',
      '',
      '# Markers',
      '',
      '## Ideal State Criteria',
      '- [ ] ISC-1: Output file holds marker line number 1 | Verify: Grep: ^marker-1$',
      '',
      '## LOG',
      '',
    ].join('\n');
    const read = criteriaFromPrd(prdText, '2026-11-22T00:00:00.000Z', toCoreCriterion);
    assert.deepEqual(read.problems, []);
    const steps = [
      // OBSERVE tries to reword the user's criterion and adds one of its own, claiming EXPLICIT.
      { object: { criteria: [{ id: 'ISC-1', text: 'Some other wording of the first criterion here' }, { text: 'Output file holds marker line number 2', source: 'EXPLICIT' }] } },
      { object: { criteria: [{ id: 'ISC-1', text: 'Reworded again by THINK for no reason' }, { id: 'ISC-2', text: 'Output file holds marker line number 2' }] } },
      { object: { packets: [{ title: 'Write the output file', criterionIds: ['ISC-1', 'ISC-2'] }] } },
      { object: { methods: [{ criterionId: 'ISC-1', verify: { type: 'READ', path: 'nowhere.txt' } }, { criterionId: 'ISC-2', verify: { type: 'GREP', pattern: '^marker-2$', glob: 'out.txt', expect: 'present' } }] } },
      ...specialistSteps('out.txt', markerFile(2)),
    ];
    const h = await harness(steps);
    try {
      fs.mkdirSync(path.join(h.workspace, 'docs'));
      fs.writeFileSync(path.join(h.workspace, 'docs/markers.md'), prdText);
      const result = await h.engine.start({ request: 'Markers', effort: 'INSTANT', prd: { path: 'docs/markers.md', criteria: read.criteria } });
      assert.equal(result.state, 'COMPLETE', result.reason);
      const one = result.criteria.find((c) => c.id === 'ISC-1')!;
      assert.equal(one.text, 'Output file holds marker line number 1', "the user's wording stands");
      assert.deepEqual(one.verify, { type: 'GREP', pattern: '^marker-1$', expect: 'present' }, "the user's method stands");
      assert.equal(result.criteria.find((c) => c.id === 'ISC-2')!.source, 'INFERRED');
      const prd = parsePrd(fs.readFileSync(path.join(h.workspace, 'docs/markers.md'), 'utf8'));
      assert.deepEqual(prd.criteria.map((c) => [c.id, c.checked]), [['ISC-1', true], ['ISC-2', true]]);
      assert.equal(prd.meta.status, 'COMPLETE');
      assert.equal(prd.title?.text, 'Markers');
      assert.ok(!fs.existsSync(path.join(h.workspace, '.ideal-state/prds')), 'no second PRD was created');
    } finally {
      h.close();
    }
  });

  it("'undo run changes' restores every file the run touched from its stored checkpoints", async function () {
    this.timeout(30_000);
    const steps = [
      ...managerSteps(markerCriteria(1)),
      { toolCalls: [{ name: 'create_file', arguments: { path: 'out.txt', text: 'marker-1\n' } }, { name: 'edit_file', arguments: { path: 'notes.md', find: 'draft', replace: 'final' } }] },
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.md', find: 'final', replace: 'FINAL' } }] },
      { text: 'done' },
    ];
    const h = await harness(steps);
    try {
      fs.writeFileSync(path.join(h.workspace, 'notes.md'), 'a draft\n');
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'INSTANT' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.equal(fs.readFileSync(path.join(h.workspace, 'notes.md'), 'utf8'), 'a FINAL\n');
      const checkpoints = h.storage.checkpoints(result.run.id);
      // The run's PRD is checkpointed too (it did not exist before the run).
      assert.deepEqual(checkpoints.map((c) => [c.path, c.before ?? null]), [[result.run.prdPath, null], ['notes.md', 'a draft\n'], ['out.txt', null]]);
      await undoRunChanges(checkpoints, new NodeWorkspace(h.workspace));
      assert.equal(fs.readFileSync(path.join(h.workspace, 'notes.md'), 'utf8'), 'a draft\n');
      assert.equal(fs.existsSync(path.join(h.workspace, 'out.txt')), false);
      assert.equal(fs.existsSync(path.join(h.workspace, result.run.prdPath!)), false);
    } finally {
      h.close();
    }
  });
});
