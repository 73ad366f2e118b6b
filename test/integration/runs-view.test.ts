import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunResult } from '../../src/algorithm/engine';
import type { RequestResult } from '../../webviews/isc-table/protocol';
import type { DeleteRunResult } from '../../src/vscode/runs/run-commands';
import type { RunsNode } from '../../src/vscode/runs/runs-tree';
import { activateIdealState, type IdealStateApi } from './ideal-state';
import { BUILD, dropScripts, EXECUTE, inWorkspace, OBSERVE, onceRun, said, PLAN, runEnded, THINK, until, useScript, waits } from './scripted-runs';
import { storeTableRun } from './table-seed';

// The Runs view's context actions — resume, cancel, export bundle, delete — invoked as the
// view's menus invoke them (with the run's tree node), against a stored history and runs of
// a scripted model (labelled as one). Dialogs are answered through the commands' automation
// arguments, as the other suites do.

type Store = Awaited<ReturnType<IdealStateApi['store']>>;

/** The view's node for a run, as VS Code hands it to a context-menu command. */
async function nodeOf(api: IdealStateApi, runId: string): Promise<Extract<RunsNode, { kind: 'run' }>> {
  for (const group of await api.iscTable.runs.getChildren()) {
    for (const node of await api.iscTable.runs.getChildren(group)) if (node.kind === 'run' && node.run.id === runId) return node;
  }
  assert.fail(`${runId} is not in the Runs view`);
}

function rowsOf(store: Store, runId: string): Record<string, number> {
  const count = (table: string) => (store as unknown as Record<string, { count(clause: string, params: unknown[]): number }>)[table]!.count('run_id = ?', [runId]);
  return { runs: store.runs.get(runId) ? 1 : 0, criteria: store.criteria.table.count('run_id = ?', [runId]), reports: count('reports'), events: count('events'), decisions: count('decisions'), steps: count('steps'), ratings: count('ratings') };
}

describe('the Runs view context actions', function () {
  this.timeout(120_000);
  let api: IdealStateApi;
  const stamp = Date.now().toString(36);
  const prdOf = (name: string) => `.ideal-state/prds/PRD-20261122-${name}-${stamp}.md`;
  const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bundle-'));

  before(async () => {
    api = await activateIdealState();
    api.runs.answerApprovalsWith(() => 'deny');
  });

  after(async () => {
    api.runs.answerApprovalsWith(undefined);
    await dropScripts();
    for (const name of ['keep', 'gone']) fs.rmSync(inWorkspace(prdOf(name)), { force: true });
    fs.rmSync(exportDir, { recursive: true, force: true });
  });

  it('Cancel on a running run stops it at its next safe point; it shows as resumable, and Resume goes on from there to COMPLETE', async () => {
    await useScript('view-first', [OBSERVE, THINK, waits(PLAN)]);
    // The run goes on in the background, as one started from the palette.
    const started = new Promise<string>((resolve) => onceRun(api, (c) => said(c, 'THINK → PLAN'), (c) => resolve(c.runId)));
    const running = vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: 'greet keeps its contract (Runs view)', effort: 'FAST' });
    const runId = await started;

    const going = await until(async () => {
      const node = await nodeOf(api, runId);
      return node.run.canCancel ? node : undefined;
    }, 'the run to show as cancellable');
    const item = api.iscTable.runs.getTreeItem(going);
    assert.equal(item.contextValue, 'run.cancellable', 'the view offers Cancel, not Resume, while it runs');
    const cancelled = await vscode.commands.executeCommand<RequestResult>('idealState.cancelRunInView', going);
    assert.equal(cancelled?.ok, true, cancelled?.message);
    const result = await running;
    assert.equal(result?.state, 'CANCELLED', result?.reason);
    const store = await api.store();
    assert.equal(store.runs.get(runId)?.state, 'CANCELLED');
    assert.equal(store.runs.get(runId)?.phase, 'PLAN');
    assert.equal(store.criteria.list(runId).length, 4, 'its criteria are kept');

    const stopped = await until(async () => {
      const node = await nodeOf(api, runId);
      return node.run.canResume ? node : undefined;
    }, 'the cancelled run to show as resumable');
    assert.equal(api.iscTable.runs.getTreeItem(stopped).contextValue, 'run.resumable');

    await useScript('view-second', [PLAN, BUILD, EXECUTE]);
    const ended = runEnded(api, runId);
    const resumed = await vscode.commands.executeCommand<RequestResult>('idealState.resumeRunInView', stopped);
    assert.equal(resumed?.ok, true, resumed?.message);
    const end = await ended;
    assert.equal(end.state, 'COMPLETE');
    const done = await api.store();
    assert.equal(done.runs.get(runId)?.state, 'COMPLETE');
    assert.deepEqual(
      done.steps.where('run_id = ?', [runId], 'seq').map((s) => `${s.phase}${s.next ? `→${s.next}` : ' end'}`),
      ['OBSERVE→THINK', 'THINK→PLAN', 'PLAN end', 'PLAN→BUILD', 'BUILD→EXECUTE', 'EXECUTE→VERIFY', 'VERIFY→LEARN', 'LEARN end'],
      'went on from PLAN; nothing before it ran twice',
    );
    const finished = await nodeOf(api, runId);
    assert.equal(api.iscTable.runs.getTreeItem(finished).contextValue, 'run', 'a finished run offers neither');
    const again = await vscode.commands.executeCommand<RequestResult>('idealState.resumeRunInView', finished);
    assert.equal(again?.ok, false, 'a COMPLETE run is not resumed');
  });

  it('Export Bundle writes the manifest, the PRD, the reports and events, with SHA-256 hashes that match', async () => {
    const runId = `run-${stamp}exp`;
    const store = await api.store();
    storeTableRun(store, runId, 'Integration: export this run');
    fs.writeFileSync(inWorkspace(prdOf('keep')), `---\nprd: true\nid: PRD-export\nstatus: IN_PROGRESS\n---\n\n# Export\n`);
    store.runs.save({ ...store.runs.get(runId)!, prdPath: prdOf('keep') });

    const bundle = await vscode.commands.executeCommand<string | undefined>('idealState.exportRunBundle', { runId, folder: exportDir });
    assert.equal(bundle, path.join(exportDir, runId));
    const manifest = JSON.parse(fs.readFileSync(path.join(bundle, 'manifest.json'), 'utf8'));
    assert.equal(manifest.runId, runId);
    assert.equal(manifest.state, 'RUNNING');
    assert.equal(manifest.criteriaVersion, 1);
    assert.equal(fs.readFileSync(path.join(bundle, 'prd.md'), 'utf8'), fs.readFileSync(inWorkspace(prdOf('keep')), 'utf8'));
    assert.equal(JSON.parse(fs.readFileSync(path.join(bundle, 'reports.json'), 'utf8'))[0].id, `report-${runId}`);
    const artifacts = JSON.parse(fs.readFileSync(path.join(bundle, 'artifacts.json'), 'utf8')) as { bundle: { path: string; sha256: string }[] };
    assert.deepEqual(artifacts.bundle.map((a) => a.path).sort(), ['criteria.json', 'decisions.json', 'events.jsonl', 'manifest.json', 'prd.md', 'reports.json']);
    for (const a of artifacts.bundle) assert.equal(crypto.createHash('sha256').update(fs.readFileSync(path.join(bundle, a.path))).digest('hex'), a.sha256, a.path);

  });

  it('Delete removes the run and every row of it from the store, keeps its ratings and its PRD file; "Delete Run and PRD" removes the PRD too', async () => {
    const store = await api.store();
    const kept = `run-${stamp}del`;
    storeTableRun(store, kept, 'Integration: delete this run, keep its PRD');
    // A finished run (a rating needs one).
    store.runs.save({ ...store.runs.get(kept)!, state: 'COMPLETE', finishedAt: new Date().toISOString(), prdPath: prdOf('keep') });
    store.events.save({ runId: kept, seq: 0, at: new Date().toISOString(), kind: 'note', message: 'a stored event', inputTokens: 0, outputTokens: 0, costUsd: 0 });
    await api.learning.host.rate(kept, { rating: 7 });
    const before = rowsOf(store, kept);
    assert.ok(before.criteria === 3 && before.reports === 1 && before.events === 1 && before.ratings === 1, JSON.stringify(before));

    const node = await nodeOf(api, kept);
    const deleted = await vscode.commands.executeCommand<DeleteRunResult>('idealState.deleteRun', { runId: node.run.id, confirmed: 'run' });
    assert.deepEqual(deleted, { deleted: true, prdDeleted: false });
    assert.deepEqual(rowsOf(await api.store(), kept), { runs: 0, criteria: 0, reports: 0, events: 0, decisions: 0, steps: 0, ratings: 1 });
    assert.ok(fs.existsSync(inWorkspace(prdOf('keep'))), "the user's PRD file stays");
    await api.iscTable.runs.getChildren();
    assert.ok(!api.iscTable.runs.shown.some((r) => r.id === kept), 'gone from the Runs view');

    const gone = `run-${stamp}dlp`;
    storeTableRun(store, gone, 'Integration: delete this run and its PRD');
    fs.writeFileSync(inWorkspace(prdOf('gone')), `---\nprd: true\nid: PRD-gone\nstatus: IN_PROGRESS\n---\n\n# Gone\n`);
    store.runs.save({ ...store.runs.get(gone)!, prdPath: prdOf('gone') });
    const both = await vscode.commands.executeCommand<DeleteRunResult>('idealState.deleteRun', { runId: gone, confirmed: 'run-and-prd' });
    assert.deepEqual(both, { deleted: true, prdDeleted: true });
    assert.equal((await api.store()).runs.get(gone), undefined);
    assert.ok(!fs.existsSync(inWorkspace(prdOf('gone'))), 'the PRD was removed as asked');
    assert.ok(fs.existsSync(inWorkspace(prdOf('keep'))), 'no other PRD was touched');
  });

  it('Delete refuses a run that is going in this window', async () => {
    await useScript('view-going', [waits(OBSERVE)]);
    const started = new Promise<string>((resolve) => onceRun(api, () => true, (c) => resolve(c.runId)));
    const running = vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: 'a run that is going', effort: 'FAST' });
    const runId = await started;
    try {
      const refused = await vscode.commands.executeCommand<DeleteRunResult>('idealState.deleteRun', { runId, confirmed: 'run' });
      assert.deepEqual(refused, { deleted: false, prdDeleted: false });
      assert.ok((await api.store()).runs.get(runId), 'the run is still in the store');
    } finally {
      await vscode.commands.executeCommand('idealState.cancelRun');
      assert.equal((await running)?.state, 'CANCELLED');
    }
  });
});
