import * as assert from 'node:assert/strict';
import { MAX_PROPOSED_CRITERIA, proposalProblems, proposeCriteria } from '../../../src/app/propose-criteria';
import { applyEdits, checkPrd, type PrdEdit } from '../../../src/prd';

const PRD = ['---', 'prd: true', 'id: PRD-20261126-batch', 'status: IN_PROGRESS', '---', '', '# Batch', '', '## Ideal State Criteria', '### Docs', '- [ ] ISC-DOC-008: The README exists | Verify: Read: README.md', '', '## Anti-Criteria', '- [ ] ISC-A-1: No secret is committed | Verify: Grep: SECRET | expect: absent', '', '## LOG', ''].join('\n');

describe('proposeCriteria (MCP server and the editor): one edit for a whole proposal', () => {
  it('writes exactly what one-at-a-time edits wrote, ids counted on in the group’s numbering (ISC-DOC-009, -010 …)', () => {
    const criteria = Array.from({ length: 40 }, (_, i) => ({ text: `Generated criterion ${i} holds`, ...(i % 7 === 3 ? { anti: true } : {}), ...(i % 5 === 0 ? { verify: 'Read: README.md' } : {}) }));
    const p = proposeCriteria(PRD, 'p.md', criteria, { today: '2026-11-26', through: 'a test', accepted: 'accepted by a test' });
    assert.ok(p.ok, JSON.stringify(p));
    // The same criteria, one addCriterion edit each (the old way: a parse of the whole PRD per criterion).
    const oneByOne: PrdEdit[] = criteria.map((c) => ({ kind: 'addCriterion', anti: c.anti === true, criterion: { text: c.text, source: 'INFERRED', ...(c.verify ? { verify: { type: 'READ', path: 'README.md' } } : {}) } }));
    const plain = oneByOne.filter((e) => e.kind === 'addCriterion' && !e.anti);
    const anti = oneByOne.filter((e) => e.kind === 'addCriterion' && e.anti);
    const expected = applyEdits(PRD, [...plain, ...anti, { kind: 'setFrontmatter', key: 'criteria_version', value: 2 }]);
    assert.equal(p.after.slice(0, p.after.indexOf('## LOG')), expected.slice(0, expected.indexOf('## LOG')));
    assert.deepEqual(p.added.slice(0, 3), ['ISC-DOC-009', 'ISC-DOC-010', 'ISC-DOC-011']);
    assert.ok(p.added.includes('ISC-A-2'));
    assert.equal(checkPrd(p.after).diagnostics.filter((d) => d.severity === 'error').length, 0);
    assert.match(p.after, /Added ISC-DOC-009, .* through a test, accepted by a test/);
  });

  it('refuses line and paragraph separators, control characters and more than the cap, naming the field', () => {
    assert.deepEqual(proposalProblems([{ text: 'fine' }]), []);
    assert.match(proposalProblems([{ text: 'a\u2028b' }])[0]!, /^criteria\[0\]\.text holds a line or paragraph break \(U\+2028\) at character 2/);
    assert.match(proposalProblems([{ text: 'ok' }, { text: 'ok', verify: 'Read: x\u0007' }])[0]!, /^criteria\[1\]\.verify holds a control character \(U\+0007\)/);
    assert.match(proposalProblems(Array.from({ length: MAX_PROPOSED_CRITERIA + 1 }, () => ({ text: 'x' })))[0]!, /over the 50 one call may add/);
    const p = proposeCriteria(PRD, 'p.md', [{ text: 'one\u2029two' }], { today: '2026-11-26', through: 'a test' });
    assert.ok(!p.ok && /U\+2029/.test(p.message));
  });
});
