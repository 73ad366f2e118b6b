import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { RunResult } from '../../src/algorithm/engine';
import { activateIdealState, type IdealStateApi } from './ideal-state';
import { dropScripts, EXECUTE, inWorkspace, testPrd, until, useScript } from './scripted-runs';
import { storeTableRun } from './table-seed';

// Issue 8, "stale marked": a run's PASS whose evidence files change afterwards is shown stale
// in its ISC table and in the Testing view — fed by the editor's saves and the file watcher.

const GREET = 'src/greet.js';
const PRD = '.ideal-state/prds/PRD-20261122-staleness-test.md';
const PRD_TEXT = testPrd('PRD-20261122-staleness-test', 'Greet for the staleness test', `
## Ideal State Criteria

- [ ] ISC-ST-001: The greet module exports a greet function by name | Verify: Grep: ^export function greet
- [ ] ISC-ST-002: Calling greet with an empty name throws an error | Verify: Grep: name is required
- [ ] ISC-ST-003: The workspace manifest names the sample workspace package | Verify: Read: package.json
- [ ] ISC-ST-004: The Node.js runtime starts in the workspace folder without error | Verify: CLI: node --version
`);

/** Appends a line to a file through the editor and saves it, as a person would. */
async function touch(rel: string): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(inWorkspace(rel)));
  const edit = new vscode.WorkspaceEdit();
  edit.insert(document.uri, document.positionAt(document.getText().length), '// touched by the staleness suite\n');
  assert.ok(await vscode.workspace.applyEdit(edit));
  assert.ok(await document.save());
}

const staleRows = async (api: IdealStateApi, runId: string) => (await api.iscTable.tables.shown(runId)).rows.filter((r) => r.stale).map((r) => r.id);

describe('staleness fed by workspace changes', function () {
  this.timeout(120_000);
  let api: IdealStateApi;
  let original: Buffer;

  before(async () => {
    api = await activateIdealState();
    original = fs.readFileSync(inWorkspace(GREET));
  });

  afterEach(async () => {
    // Back to the fixture's bytes, through the editor when it has the file open.
    const document = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === inWorkspace(GREET));
    if (document && document.getText() !== original.toString('utf8')) {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(document.uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), original.toString('utf8'));
      await vscode.workspace.applyEdit(edit);
      await document.save();
    }
    fs.writeFileSync(inWorkspace(GREET), original);
  });

  after(async () => {
    api.runs.answerApprovalsWith(undefined);
    await dropScripts();
    fs.rmSync(inWorkspace(PRD), { force: true });
  });

  it('marks a stored PASS stale in the ISC table when a file it matched in changes, and a newer verdict clears the mark', async () => {
    const runId = `run-${Date.now().toString(36)}stl`;
    const store = await api.store();
    // ISC-1 passed with a match in src/greet.js:3; ISC-2 failed, its evidence naming no file: a FAIL goes
    // stale too (issue 28), on any change, since any change may have fixed it.
    storeTableRun(store, runId, 'Integration: staleness of a stored run');
    await vscode.commands.executeCommand('idealState.openIscTable', runId);
    assert.deepEqual(await staleRows(api, runId), [], 'nothing is stale before a change');

    // A file the PASS did not depend on changes: still current.
    await touch('README.md');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await api.iscTable.tables.refresh(runId);
    assert.deepEqual(await staleRows(api, runId), ['ISC-2'], 'a change elsewhere makes no PASS stale; the FAIL that named nothing is');

    await touch(GREET);
    const stale = await until(async () => {
      const ids = await staleRows(api, runId);
      return ids.includes('ISC-1') ? ids : undefined;
    }, 'ISC-1 to show stale in the table');
    assert.deepEqual([...stale].sort(), ['ISC-1', 'ISC-2']);
    const row = (await api.iscTable.tables.shown(runId)).rows.find((r) => r.id === 'ISC-1')!;
    assert.equal(row.outcome, 'PASS', 'the old verdict is still shown, marked stale');

    // Verified again (a newer report, as the table's re-verify stores it): the mark goes.
    store.reports.save({ id: `report-${runId}-2`, runId, iteration: 1, criteriaVersion: 1, results: [{ criterionId: 'ISC-1', outcome: 'PASS', evidence: 'src/greet.js:3: Hello', durationMs: 3, locations: [{ file: GREET, line: 3 }] }], passed: true, summary: '1 passed', createdAt: new Date(Date.now() + 1000).toISOString() });
    api.iscTable.watch.touch(runId);
    await api.iscTable.tables.refresh(runId);
    assert.equal((await staleRows(api, runId)).includes('ISC-1'), false, 'the newer verdict clears ISC-1');
  });

  it("a run's PASSes show in the Testing view, and a change to their evidence marks them stale there and in the run's table; the rest stay current where they do not depend on it", async () => {
    fs.writeFileSync(inWorkspace(PRD), PRD_TEXT);
    api.runs.answerApprovalsWith(() => 'approve');
    // A scripted model labelled as one; the PRD's own methods verify (one CLI command, approved above).
    await useScript('staleness', [
      { object: { criteria: [], decisions: [] } },
      { object: { criteria: [], decisions: [] } },
      { object: { packets: [{ title: 'Check the greet workspace', criterionIds: ['ISC-ST-001', 'ISC-ST-002', 'ISC-ST-003', 'ISC-ST-004'] }] } },
      { object: { methods: [] } },
      EXECUTE,
    ]);
    const result = await vscode.commands.executeCommand<RunResult | undefined>('idealState.runOnPrd', vscode.Uri.file(inWorkspace(PRD)));
    assert.equal(result?.state, 'COMPLETE', `${result?.reason}\n${JSON.stringify(result?.report?.results, null, 1)}`);
    const runId = result.run.id;

    const inTests = async () => (await api.criteriaTests()).find((p) => p.uri.fsPath === inWorkspace(PRD));
    const passed = await until(async () => {
      const item = await inTests();
      return item && item.criteria.every((c) => c.state === 'passed') ? item : undefined;
    }, "the run's results in the Testing view");
    assert.deepEqual(passed.criteria.map((c) => c.id), ['ISC-ST-001', 'ISC-ST-002', 'ISC-ST-003', 'ISC-ST-004']);

    await vscode.commands.executeCommand('idealState.openIscTable', runId);
    assert.deepEqual(await staleRows(api, runId), []);

    await touch(GREET);
    // The Grep matches in src/greet.js and the CLI check (any change in the workspace) went stale; the Read of package.json did not.
    const item = await until(async () => {
      const found = await inTests();
      const stale = found?.criteria.filter((c) => c.stale).map((c) => c.id) ?? [];
      return stale.length === 3 ? found : undefined;
    }, 'three criteria stale in the Testing view');
    const byId = Object.fromEntries(item.criteria.map((c) => [c.id, c]));
    assert.equal(byId['ISC-ST-001']!.stale, `${GREET} changed`);
    assert.equal(byId['ISC-ST-001']!.state, undefined, 'its result was invalidated');
    assert.equal(byId['ISC-ST-003']!.stale, undefined);
    assert.equal(byId['ISC-ST-003']!.state, 'passed');
    const table = await until(async () => {
      const ids = await staleRows(api, runId);
      return ids.length === 3 ? ids : undefined;
    }, "three rows stale in the run's table");
    assert.deepEqual(table.sort(), ['ISC-ST-001', 'ISC-ST-002', 'ISC-ST-004']);
  });
});
