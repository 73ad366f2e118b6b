import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { CriteriaAnswer, criterionRows, notPassing, VerifyAnswer, verifyAnswer } from '../../../src/app/done-gate';
import { proposeCriteria } from '../../../src/app/propose-criteria';
import { verifyPrdFile } from '../../../src/app/verify-prd-file';
import type { CriterionResult } from '../../../src/model';
import { isaFixture } from '../support/isa-helpers';
import { workspace } from '../support/verify-helpers';

const result = (id: string, outcome: CriterionResult['outcome'], extra: Partial<CriterionResult> = {}): CriterionResult =>
  ({ criterionId: id, outcome, evidence: `evidence of ${id}`, durationMs: 1, locations: [], ...extra }) as CriterionResult;

describe('the done gate’s answers (one builder for MCP, the editor’s tools and the stop hook)', () => {
  it('answers an ISA verification under the ISA’s own ids, with evidence, repair targets and the CRITICAL verdict', async () => {
    const root = workspace({ 'README.md': '# greeter\n', 'src/app.js': "console.log('hi')\n", 'ISA.md': isaFixture('greeter-workspace.md') });
    const verified = await verifyPrdFile({ file: path.join(root, 'ISA.md'), workspace: root, checks: { timeoutSeconds: 30 }, commands: { yes: true, off: false }, report: { store: false }, warn: () => undefined });
    assert.equal(verified.kind, 'verified');
    if (verified.kind !== 'verified') return;
    const answer = verifyAnswer('ISA.md', verified.prd, verified.set);
    // The schema is the contract every caller returns: the built answer satisfies it.
    assert.deepEqual(VerifyAnswer.parse(answer), answer);
    assert.deepEqual(
      answer.results.map((r) => [r.id, r.priority, r.outcome]),
      [
        ['C1', 'CRITICAL', 'PASS'],
        ['C2', 'CRITICAL', 'FAIL'],
        ['ISC-3', 'CRITICAL', 'FAIL'],
        ['ISC-3.1', 'CRITICAL', 'PASS'],
        ['ISC-3.2', 'CRITICAL', 'FAIL'],
        ['A4', 'CRITICAL', 'PASS'],
        ['C5', 'CRITICAL', 'UNKNOWN'],
        ['C6', 'CRITICAL', 'UNKNOWN'],
        ['C8', 'CRITICAL', 'UNKNOWN'],
      ],
    );
    assert.equal(answer.allCriticalPass, false);
    const byId = new Map(answer.results.map((r) => [r.id, r]));
    assert.match(byId.get('C1')!.evidence, /`test -f README\.md` exited 0/);
    assert.equal(byId.get('ISC-3')!.repairTarget, 'ISC-3.2 pass');
    assert.equal(byId.get('C5')!.failureLabel, 'UNSUPPORTED_CLAIM');
    assert.deepEqual(notPassing(answer).critical.map((r) => r.id), ['C2', 'ISC-3', 'ISC-3.2', 'C5', 'C6', 'C8']);
    assert.deepEqual(notPassing(answer).others, []);
  });

  it('verifies some claims of an ISA named by the ISA’s own ids (a container is its parts), and judges only those', async () => {
    const root = workspace({ 'README.md': '# greeter\n', 'src/app.js': "console.log('hi')\n", 'ISA.md': isaFixture('greeter-workspace.md') });
    const run = (only: string[]) => verifyPrdFile({ file: path.join(root, 'ISA.md'), workspace: root, checks: { timeoutSeconds: 30 }, commands: { yes: true, off: false }, report: { store: false }, select: { only }, warn: () => undefined });
    const some = await run(['C1', 'ISC-3.1', 'A4']);
    assert.equal(some.kind, 'verified', JSON.stringify(some));
    if (some.kind !== 'verified') return;
    const answer = verifyAnswer('ISA.md', some.prd, some.set);
    assert.deepEqual(answer.results.map((r) => [r.id, r.outcome]), [['C1', 'PASS'], ['ISC-3.1', 'PASS'], ['A4', 'PASS']], 'ISC-3 is not reported: only one of its parts was asked for');
    assert.equal(answer.allCriticalPass, true);
    const container = await run(['ISC-3']);
    assert.ok(container.kind === 'verified');
    assert.deepEqual(container.set.results.map((r) => [r.criterionId, r.outcome]), [['ISC-3', 'FAIL'], ['ISC-3.1', 'PASS'], ['ISC-3.2', 'FAIL']]);
    const unknown = await run(['C1', 'C99']);
    assert.deepEqual(unknown.kind === 'refused' && unknown.message.replace(root, 'ROOT'), 'ROOT/ISA.md has no criterion C99; its criteria are C1, C2, ISC-3, ISC-3.1, ISC-3.2, A4, C5, C6, C8');
  });

  it('judges done over the CRITICAL criteria verified, counts an unknown priority as CRITICAL, and never turns a failed set into a pass', () => {
    const criteria = [
      { id: 'ISC-1', priority: 'CRITICAL' },
      { id: 'ISC-2', priority: 'NICE' },
    ];
    const set = { summary: 's', counts: { PASS: 1, FAIL: 1 }, results: [result('ISC-1', 'PASS'), result('ISC-2', 'FAIL', { repairTarget: 'src/b.ts', locations: [{ file: 'src/b.ts', line: 3 }] })] };
    const done = verifyAnswer('p.md', criteria, set);
    assert.equal(done.allCriticalPass, true, 'a NICE failure does not keep the work from being done');
    assert.deepEqual(done.results[1], { id: 'ISC-2', priority: 'NICE', outcome: 'FAIL', evidence: 'evidence of ISC-2', repairTarget: 'src/b.ts', locations: [{ file: 'src/b.ts', line: 3 }] });
    assert.equal(verifyAnswer('p.md', criteria, { ...set, passed: false }).allCriticalPass, false);
    const unknownPriority = verifyAnswer('p.md', [], { summary: 's', counts: {}, results: [result('ISC-9', 'FAIL')] });
    assert.deepEqual([unknownPriority.results[0]!.priority, unknownPriority.allCriticalPass], ['CRITICAL', false]);
    const skipped = verifyAnswer('p.md', criteria, { ...set, commands: { refused: [{ command: 'npm test', reason: 'not allowed' }] } }, { allowHint: 'the user allows commands in .ideal-state/verify-commands.yaml' });
    assert.deepEqual(skipped.skippedCommands, [{ command: 'npm test', reason: 'not allowed (the user allows commands in .ideal-state/verify-commands.yaml)' }]);
  });

  it('lists criteria with their last outcome, stale when the criterion or the work changed since', () => {
    const criteria = [
      { id: 'ISC-1', text: 'A changelog exists', kind: 'criterion' as const, priority: 'CRITICAL', verify: { type: 'READ' as const, path: 'CHANGELOG.md' } },
      { id: 'ISC-2', text: 'Tests pass', kind: 'criterion' as const, priority: 'IMPORTANT' },
      { id: 'ISC-3', text: 'The build is green', kind: 'criterion' as const, priority: 'CRITICAL' },
      { id: 'ISC-A1', text: 'No secrets', kind: 'anti-criterion' as const, priority: 'CRITICAL' },
    ];
    const at = '2026-11-24T10:00:00.000Z';
    const stored = new Map([
      ['ISC-1', { text: 'A changelog exists', verify: { type: 'READ' as const, path: 'CHANGELOG.md' }, outcome: 'PASS' as const, verifiedAt: at }],
      ['ISC-2', { text: 'Tests passed once', outcome: 'FAIL' as const, verifiedAt: at }],
      ['ISC-3', { text: 'The build is green', outcome: 'PASS' as const, verifiedAt: at }],
    ]);
    const rows = criterionRows(criteria as never, stored as never, (id) => id === 'ISC-3');
    assert.deepEqual(CriteriaAnswer.parse({ prd: 'p.md', criteriaVersion: 1, criteria: rows }).criteria, rows);
    assert.deepEqual(
      rows.map((r) => [r.id, r.verify, r.lastOutcome?.outcome ?? null, r.stale]),
      [
        ['ISC-1', 'Read: CHANGELOG.md', 'PASS', false],
        ['ISC-2', null, 'FAIL', true],
        ['ISC-3', null, 'PASS', true],
        ['ISC-A1', null, null, null],
      ],
    );
  });

  it('adds proposed criteria as a new criteria version with a LOG entry, or refuses with the reason and no text', () => {
    const prd = ['---', 'prd: true', 'id: PRD-20261124-propose', 'status: IN_PROGRESS', 'criteria_version: 2', '---', '', '# Propose', '', '## Ideal State Criteria', '- [ ] ISC-1: The workspace has a changelog for the release | Verify: Read: CHANGELOG.md', '', '## LOG', ''].join('\n');
    const p = proposeCriteria(prd, 'p.md', [{ text: 'The README documents the --json option for every command', priority: 'IMPORTANT', verify: 'Grep: --json' }], { today: '2026-11-24', through: 'a test' });
    assert.ok(p.ok, JSON.stringify(p));
    assert.deepEqual([p.added, p.version, p.previousVersion], [['ISC-2'], 3, 2]);
    assert.deepEqual(p.lines, ['- [ ] ISC-2: [I] [IMPORTANT] The README documents the --json option for every command | Verify: Grep: --json']);
    assert.match(p.after, /^criteria_version: 3$/m);
    assert.match(p.after, /Added ISC-2 through a test, confirmed by the user/);
    assert.deepEqual(proposeCriteria(prd, 'p.md', [{ text: 'x y z', verify: 'Telepathy: yes' }], { today: '2026-11-24', through: 'a test' }).ok, false);
    const broken = proposeCriteria('---\nprd: true\n---\n## Ideal State Criteria\n- [ ] ISC-1: x | Verify: Telepathy: yes\n', 'p.md', [{ text: 'a b c' }], { today: '2026-11-24', through: 'a test' });
    assert.ok(!broken.ok && /^p\.md has errors; fix them before adding criteria\np\.md:\d+:\d+: error: /.test(broken.message), JSON.stringify(broken));
  });
});
