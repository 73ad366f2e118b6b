import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LoopEngine } from '../../../../src/app/loop';
import { listArtifacts } from '../../../../src/app/loop/artifacts';
import { checkPrd } from '../../../../src/prd/check';
import { tempDir } from '../../support/algorithm-helpers';
import { badPage, loopHarness, loopWorkspace, subRunSteps } from '../../support/loop-helpers';

/** Issue 28 §4: what the loop runs over, the loop's own PRD, and what its notices say. */
describe('loop inputs', () => {
  it('never takes .ideal-state/** as an artifact, at any depth or by name', async () => {
    const ws = tempDir('loop-inputs');
    for (const f of ['README.md', 'docs/a.md', 'docs/deep/b.md', '.ideal-state/prds/PRD-1.md', '.ideal-state/loops/loop.md', 'pkg/.ideal-state/prds/x.md']) {
      fs.mkdirSync(path.dirname(path.join(ws, f)), { recursive: true });
      fs.writeFileSync(path.join(ws, f), '# x\n');
    }
    // `*.md` has no slash: it matches at any depth (the gitignore dialect), so the box must say 3, not 1.
    assert.deepEqual(await listArtifacts(ws, '*.md'), ['README.md', 'docs/a.md', 'docs/deep/b.md']);
    assert.deepEqual(await listArtifacts(ws, '**/*.md'), ['README.md', 'docs/a.md', 'docs/deep/b.md']);
    assert.deepEqual(await listArtifacts(ws, '.ideal-state/**/*.md'), []);
  });

  it('the loop\'s own PRD passes the PRD checker with no warning, and a PRD with no criteria still does not', async function () {
    this.timeout(120_000);
    const { workspace } = loopWorkspace(2, 1);
    const h = await loopHarness(workspace, (file) => subRunSteps(file, `# ${path.posix.basename(file, '.md')}\n\ndone\n\nfooter\n`));
    try {
      const result = await new LoopEngine(h.ports).start({ glob: 'docs/*.md', isc: 'test.loop-page', agents: 1, effort: 'STANDARD', maxIterations: 1 });
      const text = fs.readFileSync(path.join(workspace, result.loop.prdPath!), 'utf8');
      assert.deepEqual(checkPrd(text).diagnostics.map((d) => `${d.line}: ${d.message}`), [], text);
      // Without `loop:` the same file is an ordinary PRD that lacks criteria: the checker says so.
      const ordinary = checkPrd(text.replace(/^loop: .*\n/m, '')).diagnostics.map((d) => d.rule);
      assert.ok(ordinary.includes('missing-section') && ordinary.includes('isc-count'), ordinary.join(', '));
    } finally {
      h.close();
    }
  });

  it('a sub-run that changed no file is not said to have been put back', async function () {
    this.timeout(120_000);
    const { workspace, files } = loopWorkspace(1, 1);
    // The specialist answers without editing anything: the page stays as it was, and fails.
    const h = await loopHarness(workspace, (file) => subRunSteps(file, '').filter((s) => !('toolCalls' in s)));
    try {
      const result = await new LoopEngine(h.ports).start({ glob: 'docs/*.md', isc: 'test.loop-page', agents: 1, effort: 'STANDARD', maxIterations: 1 });
      assert.equal(fs.readFileSync(path.join(workspace, files[0]!), 'utf8'), badPage('page-001'));
      const notice = result.artifacts.find((a) => a.file === files[0])!.notices[0]!;
      assert.deepEqual([notice.verdict, notice.reverted, notice.unchanged], ['rejected', false, true]);
      const prd = fs.readFileSync(path.join(workspace, result.loop.prdPath!), 'utf8');
      assert.match(prd, /- Verdict: rejected \(the sub-run changed no file\)/);
      assert.doesNotMatch(prd, /put back/);
    } finally {
      h.close();
    }
  });
});
