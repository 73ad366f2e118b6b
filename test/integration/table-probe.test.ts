import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateIdealState, type IdealStateApi } from './ideal-state';
import { storeTableRun } from './table-seed';

/**
 * Probe the probes in the ISC table (issue 28 §5): a criterion whose check passed before any work
 * (a "Probe" note under it in the run's PRD, written by the run's probe or a lock) is marked in
 * its row with words and a title — never colour alone — and the other rows are not.
 */
describe('the ISC table marks a probed criterion', () => {
  const runId = `run-${Date.now().toString(36)}prb`;
  const prdPath = `.ideal-state/prds/probe-${runId}.md`;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
  let api: IdealStateApi;

  before(async () => {
    api = await activateIdealState();
    const store = await api.store();
    const { run } = storeTableRun(store, runId, 'Integration: a probed check');
    store.runs.save({ ...run, prdPath });
    const prd = [
      '---',
      'prd: true',
      `id: PRD-20261127-probe-${runId}`,
      'status: IN_PROGRESS',
      'effort_level: STANDARD',
      '---',
      '',
      '# A probed check',
      '',
      '## Ideal State Criteria',
      '',
      '- [x] ISC-1: Greeting template reads Hello with the name | Verify: Grep: Hello',
      '  - Probe: passes before any work — can this check fail? (2026-11-27)',
      '- [ ] ISC-2: The greeting refuses an empty name with an error | Verify: Grep: Hello',
      '- [ ] ISC-3: The workspace ships a CHANGELOG describing releases | Verify: Read: CHANGELOG.md',
      '',
    ].join('\n');
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder(), ...prdPath.split('/')), new TextEncoder().encode(prd));
  });

  after(async () => {
    api.iscTable.tables.close(runId);
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder(), ...prdPath.split('/'))).then(undefined, () => undefined);
  });

  it('shows "passes before any work?" with its title on the probed row only', async () => {
    await vscode.commands.executeCommand('idealState.openIscTable', runId);
    const shown = await api.iscTable.tables.shown(runId);
    const marks = Object.fromEntries(shown.rows.map((r) => [r.id, r.probe]));
    assert.deepEqual(marks, {
      'ISC-1': { text: 'passes before any work?', title: 'Probe: passes before any work — can this check fail?' },
      'ISC-2': undefined,
      'ISC-3': undefined,
    });
    // The row's own text is untouched: the marker is beside it, not in it.
    assert.equal(shown.rows.find((r) => r.id === 'ISC-1')!.text, 'Greeting template reads Hello with the name');
  });
});
