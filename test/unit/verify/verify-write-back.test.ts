import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeOutcomes } from '../../../src/prd/write-outcomes';
import { parsePrd } from '../../../src/prd';
import { REPO } from '../support/verify-helpers';

const DEMO = path.join(REPO, 'test/fixtures/sample-workspace/.ideal-state/prds/PRD-20261122-verification-demo.md');
const r = (criterionId: string, outcome: 'PASS' | 'FAIL' | 'UNKNOWN') => ({ criterionId, outcome });

describe('verify: writing outcomes back into the PRD', () => {
  const original = fs.readFileSync(DEMO, 'utf8');
  const results = [r('ISC-VER-001', 'PASS'), r('ISC-VER-005', 'FAIL'), r('ISC-A-VER-001', 'PASS'), r('ISC-A-VER-003', 'UNKNOWN'), r('ISC-NOT-THERE-1', 'PASS')];

  it('checks PASS boxes, unchecks the others, appends one LOG entry, and changes no other line', () => {
    const written = writeOutcomes(original, results, { date: '2026-11-22', by: 'ideal-state verify' });
    const before = original.split('\n');
    const after = written.split('\n');
    // Everything before the appended LOG entry lines up one to one.
    const changed = before.map((line, i) => (line === after[i] ? undefined : i)).filter((i): i is number => i !== undefined);
    const ids = changed.map((i) => /ISC-[A-Z0-9-]+/.exec(before[i]!)?.[0]);
    assert.deepEqual(ids, ['ISC-VER-001', 'ISC-A-VER-001']);
    for (const i of changed) assert.equal(after[i], before[i]!.replace('- [ ]', '- [x]'), 'only the box changes');
    const appended = after.slice(before.length - 2).join('\n');
    assert.equal(
      appended,
      ['- Failing: none', '', '### Iteration 0 — 2026-11-22', '- Phase: VERIFY', '- Criteria: 2/4 passing', '- Work: Verified 4 criteria with ideal-state verify: 2 PASS, 1 FAIL, 1 UNKNOWN', '- Failing: ISC-VER-005', '- Unknown: ISC-A-VER-003', ''].join('\n'),
    );
    const doc = parsePrd(written);
    assert.deepEqual(doc.criteria.filter((c) => c.checked).map((c) => c.id), ['ISC-VER-001', 'ISC-A-VER-001']);
    assert.equal(doc.log.length, 2);
  });

  it('unchecks a box that no longer passes and keeps CRLF line endings', () => {
    const checked = original.replace('- [ ] ISC-VER-005', '- [x] ISC-VER-005').replace(/\n/g, '\r\n');
    const written = writeOutcomes(checked, [r('ISC-VER-005', 'FAIL')], { date: '2026-11-22' });
    assert.ok(written.includes('- [ ] ISC-VER-005'));
    assert.equal(written.split('\r\n').length - 1, written.split('\n').length - 1, 'every line ending is still CRLF');
  });
});
