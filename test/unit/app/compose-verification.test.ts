import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { composeVerification, type VerifiedCriteria } from '../../../src/app/compose-verification';
import { preparePrd, type PreparedPrd } from '../../../src/app/verify-prd';
import { shippedEffortTable } from '../../../src/model/effort-table';

const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261129-compose',
  'effort_level: INSTANT',
  '---',
  '',
  '# Compose',
  '',
  '## Problem Space',
  'x',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md',
  '- [ ] ISC-2: The workspace has a README.md | Verify: Read: README.md',
  '',
  '## LOG',
  '',
].join('\n');

function prepared(): PreparedPrd {
  const prd = preparePrd(PRD, { name: 'PRD.md', effortTable: shippedEffortTable() });
  if (!prd.ok) throw new Error(prd.summary);
  return prd;
}

describe('composeVerification: one verification, its ports filled by each surface', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-compose-'));
  fs.writeFileSync(path.join(root, 'CHANGELOG.md'), '# Changes\n');

  it('verifies a prepared PRD, then writes back and reports what it verified, with progress as it goes', async () => {
    const prd = prepared();
    const calls: string[] = [];
    const seen: VerifiedCriteria[] = [];
    const v = await composeVerification({
      source: { kind: 'prd', prd, text: PRD },
      effortTable: shippedEffortTable(),
      host: { workspaceRoot: root },
      progress: { onStart: (c) => calls.push(`start ${c.map((x) => x.id).join(',')}`), onResult: (r) => calls.push(`result ${r.criterionId}`) },
      writeBack: { write: async (verified) => (calls.push('write'), seen.push(verified), true) },
      report: async (verified) => (calls.push('report'), seen.push(verified), 'report-1'),
    });
    assert.deepEqual(calls.slice(0, 1), ['start ISC-1,ISC-2']);
    assert.deepEqual(calls.slice(-2), ['write', 'report'], 'written back, then reported');
    assert.deepEqual(calls.filter((c) => c.startsWith('result')).sort(), ['result ISC-1', 'result ISC-2']);
    assert.deepEqual(v.set.results.map((r) => [r.criterionId, r.outcome]), [['ISC-1', 'PASS'], ['ISC-2', 'FAIL']]);
    assert.equal(v.written, true);
    assert.equal(v.report, 'report-1');
    assert.equal(seen[0]!.set, v.set, 'the sinks see the set the caller gets');
  });

  it('a later write-back is not written until the caller says (the gate, once it knows its verdict); results are renamed first', async () => {
    let writes = 0;
    const v = await composeVerification({
      source: { kind: 'prd', prd: prepared(), text: PRD },
      effortTable: shippedEffortTable(),
      host: { workspaceRoot: root },
      results: (set) => ({ ...set, results: set.results.map((r) => ({ ...r, evidence: `in the workspace: ${r.evidence}` })) }),
      writeBack: { later: true, write: async () => (writes++, true) },
    });
    assert.equal(v.written, false);
    assert.equal(writes, 0);
    assert.equal(await v.writeBack!(), true);
    assert.equal(writes, 1);
    assert.ok(v.set.results.every((r) => r.evidence.startsWith('in the workspace: ')), 'the results as the user reads them');
    assert.ok(v.shown.results.every((r) => r.evidence.startsWith('in the workspace: ')), 'shown and written from the renamed results');
    assert.equal(v.report, undefined, 'no sink, no report');
  });

  it("verifies a run's stored criteria (the ISC table's re-verify) at its level, the report going to the run", async () => {
    const prd = prepared();
    const v = await composeVerification({
      source: { kind: 'criteria', criteria: prd.criteria.slice(0, 1), level: 'INSTANT', criteriaVersion: 3 },
      effortTable: shippedEffortTable(),
      host: { workspaceRoot: root },
      report: async ({ set }) => ({ stored: true, outcomes: set.results.length }),
    });
    assert.deepEqual(v.set.results.map((r) => [r.criterionId, r.outcome]), [['ISC-1', 'PASS']]);
    assert.equal(v.shown, v.set, 'stored criteria are shown under their own ids');
    assert.deepEqual(v.report, { stored: true, outcomes: 1 });
  });

  it('a cancelled verification throws the cancellation, and nothing is written or reported', async () => {
    const abort = new AbortController();
    abort.abort();
    let touched = false;
    await assert.rejects(
      composeVerification({
        source: { kind: 'prd', prd: prepared(), text: PRD },
        effortTable: shippedEffortTable(),
        host: { workspaceRoot: root },
        signal: abort.signal,
        writeBack: { write: async () => ((touched = true), true) },
        report: async () => (touched = true),
      }),
    );
    assert.equal(touched, false);
  });
});
