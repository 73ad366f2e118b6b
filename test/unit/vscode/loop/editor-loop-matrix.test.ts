import * as assert from 'node:assert/strict';
import { artifactPassing, loopStatusText, matrixSnapshot, type LoopProgressView } from '../../../../src/vscode/loop/loop-view';
import { agentsProblem, globProblem } from '../../../../src/vscode/loop/loop-inputs-rules';
import { arrangeRuns, loopChildren, recordKind, recordWords, runLook, type LoopSummary, type RunSummary } from '../../../../src/vscode/runs/runs-tree-model';
import { headerLine, matrixDeltas, visibleArtifacts, withArtifact } from '../../../../webviews/loop-matrix/view-model';

const FILES = Array.from({ length: 12 }, (_, i) => `docs/page-${i + 1}.md`);
const FAILING = new Set(['docs/page-3.md', 'docs/page-7.md', 'docs/page-11.md']);

function progress(overrides: Partial<LoopProgressView> = {}): LoopProgressView {
  return {
    loopId: 'loop-1',
    iteration: 2,
    maxIterations: 3,
    criterionIds: ['ISC-DOC-2', 'ISC-DOC-10', 'ISC-A-DOC-1'],
    artifacts: FILES.map((file, i) => ({
      file,
      status: FAILING.has(file) ? 'FAILING' : 'PASSING',
      runId: `run-${i + 1}`,
      outcomes: { 'ISC-DOC-2': 'PASS', 'ISC-DOC-10': FAILING.has(file) ? 'FAIL' : 'PASS', 'ISC-A-DOC-1': file === 'docs/page-7.md' ? 'PARTIAL' : 'PASS' },
    })),
    passing: 9,
    total: 12,
    budgetPercent: 42,
    state: 'RUNNING',
    title: 'docs.page over docs/**/*.md',
    ...overrides,
  };
}

describe('the loop matrix (editor)', () => {
  it('has a row per artifact and the template’s criteria as columns in its order, each cell the artifact’s outcome', () => {
    const s = matrixSnapshot(progress(), { canCancel: true, canResume: false });
    assert.deepEqual(s.criteria, ['ISC-DOC-2', 'ISC-DOC-10', 'ISC-A-DOC-1']);
    assert.equal(s.artifacts.length, 12);
    const seven = s.artifacts.find((a) => a.file === 'docs/page-7.md')!;
    assert.deepEqual(seven.outcomes, { 'ISC-DOC-2': 'PASS', 'ISC-DOC-10': 'FAIL', 'ISC-A-DOC-1': 'PARTIAL' });
    assert.equal(seven.passing, false);
    assert.equal(seven.runId, 'run-7');
    assert.deepEqual(s.header, { loopId: 'loop-1', title: 'docs.page over docs/**/*.md', state: 'RUNNING', finished: false, passing: 9, total: 12, iteration: 2, maxIterations: 3, budgetPercent: 42, canCancel: true, canResume: false });
  });

  it('shows an outcome it does not know, and a criterion never verified, as UNKNOWN; an id outside the template gets its own column after them', () => {
    const p = progress({ artifacts: [{ file: 'a.md', status: 'PENDING', outcomes: { 'ISC-X-1': 'SKIPPED', 'ISC-DOC-2': 'PASS' } }] });
    const s = matrixSnapshot(p, { canCancel: false, canResume: false });
    assert.deepEqual(s.criteria, ['ISC-DOC-2', 'ISC-DOC-10', 'ISC-A-DOC-1', 'ISC-X-1']);
    assert.equal(s.artifacts[0]!.outcomes['ISC-X-1'], 'UNKNOWN');
    assert.equal(s.artifacts[0]!.outcomes['ISC-DOC-10'], undefined, 'the view shows a missing outcome as UNKNOWN (cellOf)');
    assert.equal(s.artifacts[0]!.passing, false, 'a pending artifact with one PASS of many is not passing');
  });

  it('takes the loop’s status word first: PASSING passes, FAILING fails, otherwise every outcome must be PASS', () => {
    assert.equal(artifactPassing({ file: 'a', status: 'PASSING', outcomes: { X: 'FAIL' } }), true);
    assert.equal(artifactPassing({ file: 'a', status: 'FAILING', outcomes: { X: 'PASS' } }), false);
    assert.equal(artifactPassing({ file: 'a', status: 'WORKING', outcomes: { X: 'PASS', Y: 'PASS' } }), true);
    assert.equal(artifactPassing({ file: 'a', status: 'PENDING', outcomes: {} }), false);
  });

  it('“Failing only” leaves the 3 failing artifacts, in natural file order', () => {
    const s = matrixSnapshot(progress(), { canCancel: false, canResume: false });
    assert.deepEqual(visibleArtifacts(s.artifacts, true).map((a) => a.file), ['docs/page-3.md', 'docs/page-7.md', 'docs/page-11.md']);
    assert.deepEqual(visibleArtifacts(s.artifacts, false).map((a) => a.file).slice(0, 3), ['docs/page-1.md', 'docs/page-2.md', 'docs/page-3.md']);
  });

  it('says the header as "N/M artifacts passing · iteration k · budget", and the status bar as "Loop N/M passing · P% budget"', () => {
    const s = matrixSnapshot(progress(), { canCancel: false, canResume: false });
    assert.equal(headerLine(s.header), '9/12 artifacts passing · iteration 2 of 3 · 42% budget');
    assert.equal(headerLine({ ...s.header, maxIterations: undefined }), '9/12 artifacts passing · iteration 2 · 42% budget');
    assert.equal(loopStatusText({ passing: 7, total: 12, budgetPercent: 42 }), 'Loop 7/12 passing · 42% budget');
  });

  it('sends only what changed: one artifact’s row and the header after one result, nothing when nothing changed', () => {
    const before = matrixSnapshot(progress(), { canCancel: true, canResume: false });
    assert.deepEqual(matrixDeltas(before, before), []);
    const p = progress();
    const fixed = { ...p, passing: 10, artifacts: p.artifacts.map((a) => (a.file === 'docs/page-3.md' ? { ...a, status: 'PASSING', outcomes: { ...a.outcomes, 'ISC-DOC-10': 'PASS' } } : a)) };
    const after = matrixSnapshot(fixed, { canCancel: true, canResume: false });
    const deltas = matrixDeltas(before, after);
    assert.deepEqual(deltas.map((d) => d.type), ['artifact', 'header']);
    assert.equal((deltas[0]!.body as { file: string }).file, 'docs/page-3.md');
    // The view applies the row: what it holds then equals the new snapshot's rows.
    assert.deepEqual(withArtifact(before, after.artifacts[2]!).artifacts, after.artifacts);
  });
});

describe('the loop command’s input rules', () => {
  it('refuses an empty, absolute or escaping glob with what to do, and takes a relative one', () => {
    assert.match(globProblem('  ')!, /Enter a glob/);
    assert.match(globProblem('/etc/*.conf')!, /absolute path/);
    assert.match(globProblem('C:\\docs\\*.md')!, /absolute path/);
    assert.match(globProblem('../other/**/*.md')!, /outside the workspace/);
    assert.equal(globProblem('docs/**/*.md'), undefined);
  });

  it('takes 1 to the level’s parallelism agents, and says the range otherwise', () => {
    assert.equal(agentsProblem('4', 'STANDARD', 4), undefined);
    assert.match(agentsProblem('5', 'STANDARD', 4)!, /STANDARD allows 1 to 4 parallel agents/);
    assert.match(agentsProblem('0', 'FAST', 1)!, /FAST allows 1 to 1 parallel agent;/);
    assert.match(agentsProblem('two', 'STANDARD', 4)!, /whole number of agents from 1 to 4/);
    assert.match(agentsProblem('2.5', 'STANDARD', 4)!, /whole number/);
  });
});

function run(id: string, createdAt: string, state: RunSummary['state'] = 'COMPLETE'): RunSummary {
  return { id, request: id, effort: 'FAST', state, passed: 1, total: 1, passing: true, durationMs: 1000, createdAt, canCancel: false, canResume: false, pendingApprovals: 0 };
}

describe('the Runs view with loops', () => {
  const loop: LoopSummary = { id: 'loop-1', title: 'docs.page over docs/**/*.md', state: 'RUNNING', passing: 7, total: 12, runIds: ['r2', 'r3'], canCancel: true, canResume: false };

  it('puts a loop’s sub-runs under its node, in the group of the loop’s state, and leaves the other runs in theirs', () => {
    const runs = [run('r1', '2026-11-01T10:00:00Z'), run('r2', '2026-11-01T10:01:00Z'), run('r3', '2026-11-01T10:02:00Z', 'CANCELLED')];
    const top = arrangeRuns(runs, [loop]);
    assert.deepEqual(top.map((n) => n.kind === 'group' && [n.group.id, n.loops.map((l) => l.id), n.runs.map((r) => r.id)]), [['running', ['loop-1'], []], ['finished', [], ['r1']]]);
    assert.deepEqual(loopChildren(loop, runs).map((r) => r.id), ['r3', 'r2'], 'newest first');
  });

  it('files a loop in a state no run group names under Finished', () => {
    const top = arrangeRuns([], [{ ...loop, state: 'SOMETHING_NEW', runIds: [] }]);
    assert.deepEqual(top.map((n) => n.kind === 'group' && n.group.id), ['finished']);
  });
});

describe('the Runs view: verifications and new PRDs are what they are (issue 28 §5)', () => {
  it('a PENDING run with no step is a record: a verification (with a report) or a PRD, never a run to resume', () => {
    assert.equal(recordKind({ state: 'PENDING' }, { steps: 0, reports: 1 }), 'verification');
    assert.equal(recordKind({ state: 'PENDING' }, { steps: 0, reports: 0 }), 'prd');
    assert.equal(recordKind({ state: 'PENDING' }, { steps: 2, reports: 0 }), undefined, 'a run that committed a step is a run');
    assert.equal(recordKind({ state: 'CANCELLED' }, { steps: 0, reports: 0 }), undefined);
  });

  it('shows under Finished with its outcome, green only when it passes', () => {
    const verification: RunSummary = { ...run('run-v', '2026-11-26T10:00:00.000Z', 'PENDING'), passed: 4, total: 5, passing: false, record: 'verification' };
    const prd: RunSummary = { ...run('run-p', '2026-11-26T10:01:00.000Z', 'PENDING'), passed: 0, total: 3, passing: false, record: 'prd' };
    const going = run('run-g', '2026-11-26T10:02:00.000Z', 'PENDING');
    assert.deepEqual(arrangeRuns([verification, prd, going], []).map((g) => g.kind === 'group' && [g.group.id, g.runs.map((r) => r.id)]), [['running', ['run-g']], ['finished', ['run-v', 'run-p']]]);
    assert.equal(recordWords(verification), 'verification: 4 of 5 pass — not passing');
    assert.equal(recordWords({ ...verification, passed: 5, passing: true }), 'verification: 5 of 5 pass');
    assert.equal(recordWords(prd), 'PRD: not verified yet');
    assert.notEqual(runLook(verification).tone, 'passed');
    assert.equal(runLook({ ...verification, passing: true }).tone, 'passed');
    assert.notEqual(runLook(prd).icon, 'circle-large-outline');
  });
});
