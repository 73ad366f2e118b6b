import * as assert from 'node:assert/strict';
import { CriterionResult } from '../../../src/model';
import { verifyCriteria } from '../../../src/verify/verify-criteria';
import { staleAfterChange, StalenessTracker } from '../../../src/verify/staleness';
import { anti, criterion, workspace } from '../support/verify-helpers';

const result = (id: string, outcome: 'PASS' | 'FAIL' = 'PASS') => CriterionResult.parse({ criterionId: id, outcome, evidence: 'e', durationMs: 1, ...(outcome === 'PASS' ? {} : { failureLabel: 'REQUIREMENT_COVERAGE' }) });

describe('verify: stale passes', () => {
  it('follows each verifier’s coverage from a real verification', async () => {
    const root = workspace({ 'src/a.ts': 'darkMode\n', 'src/b.ts': 'other\n', 'README.md': '# x\n' });
    const grepPresent = criterion({ type: 'GREP', pattern: 'darkMode', expect: 'present' });
    const grepAbsent = anti({ type: 'GREP', pattern: 'sk-[A-Za-z0-9]{20,}', glob: 'src/**', expect: 'present' });
    const read = criterion({ type: 'READ', path: 'README.md' });
    const cli = criterion({ type: 'CLI', command: 'true' });
    const set = await verifyCriteria([grepPresent, grepAbsent, read, cli], { workspaceRoot: root }, { parallelism: 2, timeoutMs: 10_000 });
    assert.deepEqual(set.results.map((r) => r.outcome), ['PASS', 'PASS', 'PASS', 'PASS']);
    const staleBy = (file: string) => staleAfterChange(set.results, set.coverage, file).sort();
    assert.deepEqual(staleBy('src/a.ts'), [grepPresent.id, grepAbsent.id, cli.id].sort(), 'the matched file, the absent glob, any change for CLI');
    assert.deepEqual(staleBy('src/b.ts'), [grepAbsent.id, cli.id].sort(), 'a file without the match cannot take a present-PASS away');
    assert.deepEqual(staleBy('README.md'), [read.id, cli.id].sort());
    assert.deepEqual(staleBy('docs/new.md'), [cli.id]);
    assert.deepEqual(staleBy('.git/index'), [], '.git changes make nothing stale');
  });

  it('watches every outcome (a FAIL goes stale too), forgets what went stale, and honours ignores', () => {
    const tracker = new StalenessTracker({ ignore: ['.git', '.ideal-state/prds/'], isIgnored: (p) => p.startsWith('out/') });
    tracker.record(result('ISC-1'), { workspace: true });
    tracker.record(result('ISC-2', 'FAIL'), { workspace: true });
    tracker.record(result('ISC-3'), { paths: ['src'] });
    tracker.record(result('ISC-4', 'FAIL'), {});
    assert.deepEqual(tracker.watched, ['ISC-1', 'ISC-2', 'ISC-3', 'ISC-4']);
    assert.deepEqual(tracker.changed('.ideal-state/prds/PRD-x.md'), [], 'writing results back into the PRD makes nothing stale');
    assert.deepEqual(tracker.changed('out/main.js'), []);
    assert.deepEqual(tracker.changed('src/deep/file.ts'), ['ISC-1', 'ISC-2', 'ISC-3', 'ISC-4'], 'a covered folder covers what is inside; a FAIL that named nothing depends on every file');
    assert.deepEqual(tracker.changed('src/deep/file.ts'), [], 'already stale');
    tracker.record(result('ISC-1'), { globs: ['*.md'] });
    assert.deepEqual(tracker.changed('docs/a.md'), ['ISC-1']);
    tracker.record(result('ISC-1'), { workspace: true });
    tracker.record(result('ISC-1', 'FAIL'), { paths: ['y'] });
    assert.deepEqual(tracker.changed('x'), [], 'a later FAIL replaces the pass, with its own coverage');
    assert.deepEqual(tracker.changed('y'), ['ISC-1'], 'and goes stale when what it read changes');
  });
});
