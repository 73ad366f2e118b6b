import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadDefinitions } from '../../../../src/model/definitions';
import { templateCriteria } from '../../../../src/model/isc-registry';
import { AnyCriterion, type VerificationReport } from '../../../../src/model';
import { nodeTextFiles } from '../../../../src/node/node-text-files';
import { StalenessTracker } from '../../../../src/verify/staleness';
import { coverageOf, newestVerdicts } from '../../../../src/vscode/verify/run-coverage';
import { aCriterion } from '../../support/builders';
import { REPO_ROOT } from '../../support/repo-root';

const SHIPPED = path.resolve(REPO_ROOT, 'isc-definitions');
const noLocations = { locations: [] };

describe("a stored run's coverage for staleness", () => {
  it('GREP expecting a match depends on the files it located a match in, else on its glob', () => {
    const grep = aCriterion({ verify: { type: 'GREP', pattern: 'Hello', glob: 'src/**', expect: 'present' } });
    assert.deepEqual(coverageOf(grep, { locations: [{ file: 'src/a.js', line: 3 }, { file: './src/b.js', line: 1 }, { file: 'src/a.js', line: 9 }] }), { paths: ['src/a.js', 'src/b.js'] });
    assert.deepEqual(coverageOf(grep, noLocations), { globs: ['src/**'] });
    const everywhere = aCriterion({ verify: { type: 'GREP', pattern: 'Hello', expect: 'present' } });
    assert.deepEqual(coverageOf(everywhere, noLocations), { globs: ['**'] });
  });

  it('GREP expecting none — and every anti-criterion — depends on every file its glob covers', () => {
    const absent = aCriterion({ verify: { type: 'GREP', pattern: 'debugger', glob: 'src/', expect: 'absent' } });
    assert.deepEqual(coverageOf(absent, noLocations), { globs: ['src/**'] });
    const anti = { ...aCriterion({ verify: { type: 'GREP', pattern: 'sk-', expect: 'present' } }), kind: 'anti-criterion', id: 'ISC-A-1' } as AnyCriterion;
    assert.deepEqual(coverageOf(anti, { locations: [{ file: 'src/a.js', line: 1 }] }), { globs: ['**'] }, 'a located match does not narrow an absence');
  });

  it('READ depends on its path; commands, tasks, judges and no method on the whole workspace', () => {
    assert.deepEqual(coverageOf(aCriterion({ verify: { type: 'READ', path: './CHANGELOG.md' } }), noLocations), { paths: ['CHANGELOG.md'] });
    assert.deepEqual(coverageOf(aCriterion({ verify: { type: 'CLI', command: 'npm test' } }), noLocations), { workspace: true });
    assert.deepEqual(coverageOf(aCriterion({ verify: { type: 'CUSTOM', description: 'a judge reads the page' } }), noLocations), { workspace: true });
    assert.deepEqual(coverageOf(aCriterion({ verify: undefined }), noLocations), { workspace: true });
  });

  it('with the engine tracker: a change to the matched file makes the PASS stale, a change elsewhere does not', () => {
    const c = aCriterion({ id: 'ISC-1', verify: { type: 'GREP', pattern: 'Hello', expect: 'present' } });
    const result = { criterionId: 'ISC-1', outcome: 'PASS' as const, evidence: '', durationMs: 1, locations: [{ file: 'src/greet.js', line: 3 }] };
    const tracker = new StalenessTracker({ ignore: ['.git', 'node_modules', '.ideal-state'] });
    tracker.record(result, coverageOf(c, result));
    assert.deepEqual(tracker.changed('README.md'), []);
    assert.deepEqual(tracker.changed('.ideal-state/prds/PRD-x.md'), []);
    assert.deepEqual(tracker.changed('src/greet.js'), ['ISC-1']);
  });

  it("each criterion's newest verdict wins, whatever order the reports come in", () => {
    const report = (id: string, createdAt: string, outcome: 'PASS' | 'FAIL'): VerificationReport => ({
      id,
      runId: 'run-x',
      iteration: 1,
      criteriaVersion: 1,
      results: [{ criterionId: 'ISC-1', outcome, evidence: '', durationMs: 1, locations: [], ...(outcome === 'FAIL' ? { failureLabel: 'REQUIREMENT_COVERAGE' as const } : {}) }],
      passed: outcome === 'PASS',
      summary: '',
      createdAt,
    });
    const newest = newestVerdicts([report('r1', '2026-11-22T10:00:00.000Z', 'FAIL'), report('r3', '2026-11-22T12:00:00.000Z', 'PASS'), report('r2', '2026-11-22T11:00:00.000Z', 'FAIL')]);
    assert.equal(newest.get('ISC-1')?.reportId, 'r3');
    assert.equal(newest.get('ISC-1')?.result.outcome, 'PASS');
  });
});

describe("an ISC template as a run's starting criteria", () => {
  it('every shipped template gives valid criteria with its ids, text, priority and methods, IMPLICIT and noted with the template', async () => {
    const { isc } = await loadDefinitions(nodeTextFiles, { shippedIscDir: SHIPPED });
    const at = '2026-11-22T10:00:00.000Z';
    for (const { definition } of isc.list()) {
      const seeded = templateCriteria(definition, at);
      const expected = [...definition.idealCriteria.map((c) => ['criterion', c] as const), ...definition.antiCriteria.map((c) => ['anti-criterion', c] as const)];
      assert.equal(seeded.length, expected.length);
      seeded.forEach((c, i) => {
        const [kind, t] = expected[i]!;
        assert.ok(AnyCriterion.safeParse(c).success, `${definition.artifactType} ${c.id} is a valid criterion`);
        assert.deepEqual([c.kind, c.id, c.text, c.priority, c.verify, c.domain], [kind, t.id, t.text, t.priority, t.verify, t.domain]);
        assert.equal(c.source, 'IMPLICIT');
        assert.equal(c.status, 'PENDING');
        assert.equal(c.notes, `from ISC template ${definition.artifactType} ${definition.version}`);
      });
    }
  });
});
