import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { composeVerification, isVerificationRefused, type PrdSource, type VerifiedCriteria } from '../../../src/app/compose-verification';
import { readPrdFile } from '../../../src/app/read-prd-file';
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

/** A PRD source that reads this text, as a file on disk or an open document would. */
function file(text: string, name = 'PRD.md', warnings: string[] = []): PrdSource {
  return { name, read: async () => ({ ok: true, text }), warn: (w) => warnings.push(w) };
}

function prepared(): PreparedPrd {
  const prd = preparePrd(PRD, { name: 'PRD.md', effortTable: shippedEffortTable() });
  if (!prd.ok) throw new Error(prd.summary);
  return prd;
}

describe('composeVerification: one verification, its ports filled by each surface', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-compose-'));
  fs.writeFileSync(path.join(root, 'CHANGELOG.md'), '# Changes\n');

  it('verifies a prepared PRD, then writes back and reports what it verified, with progress as it goes', async () => {
    const calls: string[] = [];
    const seen: VerifiedCriteria[] = [];
    const v = await composeVerification({
      source: { kind: 'prd', from: file(PRD) },
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
    assert.equal(seen[0]!.prd!.text, PRD, 'the sinks see the PRD as it was read');
  });

  it('reads the PRD from its source only when it verifies, and builds the host from the PRD as read', async () => {
    let reads = 0;
    let level: string | undefined;
    const v = await composeVerification({
      source: { kind: 'prd', from: { name: 'PRD.md', read: async () => (reads++, { ok: true, text: PRD.replace('effort_level: INSTANT', 'effort_level: FAST') }) } },
      effortTable: shippedEffortTable(),
      host: async ({ prepared: p }) => ((level = p.level), { workspaceRoot: root }),
    });
    assert.equal(reads, 1);
    assert.equal(level, 'FAST', 'the host is built for the PRD as it is now, not as it was before');
    assert.equal(v.prd!.prepared.level, 'FAST');
  });

  it('refuses a PRD its source cannot read, or one with errors, each problem at its line; nothing is verified', async () => {
    let hosts = 0;
    const host = async () => (hosts++, { workspaceRoot: root });
    const missing = await composeVerification({ source: { kind: 'prd', from: { name: 'gone.md', read: () => readPrdFile(path.join(root, 'gone.md')) } }, effortTable: shippedEffortTable(), host }).catch((e: unknown) => e);
    assert.ok(isVerificationRefused(missing));
    assert.equal(missing.message, 'cannot read gone.md: ENOENT');
    assert.equal(missing.problems, undefined, 'not the PRD\'s fault: no located problem');
    const broken = await composeVerification({ source: { kind: 'prd', from: file(PRD.replace('## Ideal State Criteria', '## Ideal State Criteria\n- [ ] ISC-1: dup | Verify: Read: x')) }, effortTable: shippedEffortTable(), host }).catch((e: unknown) => e);
    assert.ok(isVerificationRefused(broken));
    assert.ok(broken.problems!.length > 0 && broken.problems!.every((p) => typeof p.line === 'number'), 'located problems');
    assert.equal(hosts, 0, 'no host is built for a PRD that is not verified');
  });

  it('only the criteria named as the file names them: an unknown one is refused or skipped, as the surface asks', async () => {
    const refused = await composeVerification({ source: { kind: 'prd', from: file(PRD), only: { ids: ['ISC-1', 'ISC-9'], unknown: 'refuse' } }, effortTable: shippedEffortTable(), host: { workspaceRoot: root } }).catch((e: unknown) => e);
    assert.ok(isVerificationRefused(refused));
    assert.equal(refused.message, 'PRD.md has no criterion ISC-9; its criteria are ISC-1, ISC-2');
    const skipped = await composeVerification({ source: { kind: 'prd', from: file(PRD), only: { ids: ['ISC-1', 'ISC-9'], unknown: 'skip' } }, effortTable: shippedEffortTable(), host: { workspaceRoot: root } });
    assert.deepEqual(skipped.set.results.map((r) => r.criterionId), ['ISC-1']);
    const named = await composeVerification({ source: { kind: 'prd', from: file(PRD), only: { ids: ['ISC-2'], unknown: 'refuse' } }, effortTable: shippedEffortTable(), host: { workspaceRoot: root } });
    assert.deepEqual(named.criteria.map((c) => c.id), ['ISC-2']);
  });

  it("says the source's warnings where the source says them", async () => {
    const warnings: string[] = [];
    await composeVerification({ source: { kind: 'prd', from: file(PRD.replace('effort_level: INSTANT', 'effort_level: LUDICROUS'), 'PRD.md', warnings) }, effortTable: shippedEffortTable(), host: { workspaceRoot: root } });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /LUDICROUS/);
  });

  it('a later write-back is not written until the caller says (the gate, once it knows its verdict); results are renamed first', async () => {
    let writes = 0;
    const v = await composeVerification({
      source: { kind: 'prd', from: file(PRD) },
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
        source: { kind: 'prd', from: file(PRD) },
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
