import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EFFORT_LEVELS } from '../../src/core/model';
import { parsePrd } from '../../src/prd/parse';
import { harness, levelMin, managerSteps, markerCriteria, markerFile, specialistSteps } from './algorithm-helpers';

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
