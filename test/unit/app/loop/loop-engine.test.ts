import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { artifactCriteria, LoopEngine, readLoop } from '../../../../src/app/loop';
import { validateArtifact } from '../../../../src/app/loop/validator';
import { loadRoles } from '../../../../src/algorithm/roles';
import type { ModelRouter } from '../../../../src/llm/router';
import { checkPrd } from '../../../../src/prd/check';
import { parsePrd } from '../../../../src/prd/parse';
import { badPage, goodPage, LOOP_TEMPLATE, loopHarness, loopWorkspace, subRunSteps } from '../../support/loop-helpers';

describe('loop: the engine over a folder of pages', () => {
  it('verifies, works only the failing pages with a pool of agents, and ends COMPLETE with every outcome stored and in the loop PRD', async function () {
    this.timeout(120_000);
    const { workspace, files } = loopWorkspace(6, 3);
    const lines: string[] = [];
    const h = await loopHarness(workspace, (file) => subRunSteps(file, goodPage(path.posix.basename(file, '.md'))), { onLog: (l) => lines.push(l) });
    try {
      const result = await new LoopEngine(h.ports).start({ glob: 'docs/**/*.md', isc: 'test.loop-page', agents: 4, effort: 'STANDARD', maxIterations: 3 });
      assert.equal(result.state, 'COMPLETE', result.loop.reason);
      assert.deepEqual([...h.scriptsUsed.keys()].filter((f) => (h.scriptsUsed.get(f) ?? 0) > 1), [], 'no artifact worked twice');
      // Only the 3 failing pages were worked, each by one sub-run.
      const worked = result.artifacts.filter((a) => a.runId).map((a) => a.file);
      assert.deepEqual(worked, files.slice(0, 3));
      for (const f of files) assert.equal(fs.readFileSync(path.join(workspace, f), 'utf8'), goodPage(path.posix.basename(f, '.md')));
      assert.ok(lines.includes('iteration 1: 6/6 artifacts passing'), lines.join('\n'));
      const stored = readLoop(h.store, result.loop.id)!;
      assert.equal(stored.loop.state, 'COMPLETE');
      assert.ok(stored.artifacts.every((a) => a.status === 'PASSING' && Object.values(a.outcomes).length === 4 && Object.values(a.outcomes).every((o) => o === 'PASS')));
      assert.ok(stored.artifacts.every((a) => a.claim === undefined));
      // Sub-runs link to their loop.
      assert.deepEqual(h.store.loops.loopOfRun(stored.artifacts[0]!.runId!), { loopId: result.loop.id, file: files[0] });
      const prdText = fs.readFileSync(path.join(workspace, result.loop.prdPath!), 'utf8');
      const prd = parsePrd(prdText);
      assert.equal(prd.meta.status, 'COMPLETE');
      assert.equal(prd.log.length, 1);
      assert.match(prdText, /\| docs\/page-001\.md \| PASSING \| PASS \| PASS \| PASS \| PASS \| \[run-/);
      assert.deepEqual(checkPrd(prdText).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), [], 'the PRD checker finds no error in a loop PRD');
      // Each artifact's link leads to its sub-run's PRD.
      const link = /\| docs\/page-001\.md \|[^\n]*\]\(([^)]+)\)/.exec(prdText)![1]!;
      assert.ok(fs.existsSync(path.join(workspace, path.dirname(result.loop.prdPath!), decodeURI(link))), link);
    } finally {
      h.close();
    }
  });

  it('rejects an edit the validator fails: the file is put back as it was and the notice is in the loop PRD', async function () {
    this.timeout(120_000);
    const { workspace, files } = loopWorkspace(3, 1);
    const h = await loopHarness(workspace, (file) => subRunSteps(file, goodPage(path.posix.basename(file, '.md')), { verdict: 'FAIL' }));
    try {
      const result = await new LoopEngine(h.ports).start({ glob: 'docs/*.md', isc: 'test.loop-page', agents: 2, effort: 'STANDARD', maxIterations: 1 });
      assert.equal(result.state, 'FAILED');
      assert.deepEqual(result.unmet, [files[0]]);
      assert.equal(fs.readFileSync(path.join(workspace, files[0]!), 'utf8'), badPage('page-001'), 'the rejected edit is undone');
      const a = result.artifacts.find((x) => x.file === files[0])!;
      assert.equal(a.status, 'FAILING');
      assert.equal(a.notices.length, 1);
      assert.equal(a.notices[0]!.verdict, 'rejected');
      assert.equal(a.notices[0]!.reverted, true);
      assert.deepEqual(a.notices[0]!.failures.map((f) => f.criterionId), ['ISC-LOOP-001', 'ISC-LOOP-002', 'ISC-LOOP-003', 'ISC-A-LOOP-001']);
      assert.match(a.notices[0]!.by, /^validator verifier \(scripted: /);
      const prd = fs.readFileSync(path.join(workspace, result.loop.prdPath!), 'utf8');
      assert.match(prd, /## Rejection Notices\n\n### docs\/page-001\.md — iteration 1 \(run run-/);
      assert.match(prd, /- ISC-LOOP-001 FAIL: the page reads like a stub — repair: docs\/page-001\.md: Page holds the done marker line/);
    } finally {
      h.close();
    }
  });

  it('puts an edit back when the validator cannot answer: only an approved edit is kept, and the notice says it was not consulted', async function () {
    this.timeout(120_000);
    const { workspace, files } = loopWorkspace(2, 1);
    const original = fs.readFileSync(path.join(workspace, files[0]!), 'utf8');
    const h = await loopHarness(workspace, (file) => [...subRunSteps(file, goodPage(path.posix.basename(file, '.md')), { validator: false }), { error: { kind: 'server', message: 'the validator model is down' } }]);
    try {
      const result = await new LoopEngine(h.ports).start({ glob: 'docs/*.md', isc: 'test.loop-page', agents: 1, effort: 'STANDARD', maxIterations: 1 });
      assert.equal(result.state, 'FAILED', 'one iteration, and the edit was not kept');
      assert.equal(fs.readFileSync(path.join(workspace, files[0]!), 'utf8'), original, 'the unapproved edit was put back');
      const artifact = result.artifacts.find((a) => a.file === files[0])!;
      assert.equal(artifact.status, 'FAILING');
      const notice = artifact.notices[0]!;
      assert.equal(notice.verdict, 'not-consulted');
      assert.equal(notice.reverted, true);
      assert.match(notice.by, /^no validator \(the validator verifier \(scripted: test\) could not answer: /);
      const prd = fs.readFileSync(path.join(workspace, result.loop.prdPath!), 'utf8');
      assert.match(prd, /- Verdict: not kept: the validator was not consulted, and only an edit it approves is kept \(the edit was put back\)/);
    } finally {
      h.close();
    }
  });

  it('never approves without a model for the verifier role: the validator is not consulted and says why', async () => {
    const noVerifier = { route: () => { throw new Error('verifier at STANDARD routes to "none": no key'); }, generateObject: () => { throw new Error('must not be called'); } } as unknown as ModelRouter;
    const criteria = artifactCriteria(LOOP_TEMPLATE, 'docs/a.md', '2026-11-24T00:00:00.000Z');
    const decision = await validateArtifact({ file: 'docs/a.md', text: goodPage('a'), runId: 'run-1', summary: 'rewrote it', criteria, mechanical: { outcomes: {}, evidence: {}, results: [], passed: true }, models: noVerifier, role: loadRoles().roles.verifier, level: 'STANDARD', signal: new AbortController().signal });
    assert.equal(decision.verdict, 'not-consulted');
    assert.match(decision.by, /no model for the verifier role; the validator was not consulted/);
  });
});
