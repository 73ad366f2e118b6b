import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { activateIdealState, handoffFile, waitForLogLine } from './ideal-state';
import { HOSTILE_TEXT } from './table-seed';

// Second launch on the same user data: the ISC table left open before the reload comes
// back through the panel serializer, with the run id the view saved in its state.
describe('the ISC table after a window reload', () => {
  it('is restored by its serializer and shows the same run', async function () {
    this.timeout(60_000);
    const { runId } = JSON.parse(fs.readFileSync(handoffFile('isc-table.json'), 'utf8')) as { runId: string };
    const api = await activateIdealState();
    // Other suites leave tables of their runs open too: ours is the one with our run's request.
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t, i) => ({ t, i, g })));
    const tab = tabs.find(({ t }) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('idealState.iscTable') && t.label.includes('greet users by name'));
    assert.ok(tab, `the ISC table tab is back: ${JSON.stringify(tabs.map(({ t }) => t.label))}`);
    // A restored webview is revived when it is shown; make sure it is.
    if (!tab.t.isActive || !tab.g.isActive) {
      const groups = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth'];
      await vscode.commands.executeCommand(`workbench.action.focus${groups[tab.g.viewColumn - 1] ?? 'First'}EditorGroup`);
      await vscode.commands.executeCommand('workbench.action.openEditorAtIndex', tab.i);
    }
    await waitForLogLine(new RegExp(`ISC table of ${runId} restored after a reload`), 30_000);
    const shown = await api.iscTable.tables.shown(runId);
    assert.equal(shown.runId, runId);
    assert.deepEqual(shown.rows.map((r) => r.id), ['ISC-1', 'ISC-2', 'ISC-3']);
    assert.equal(shown.rows[1]!.text, HOSTILE_TEXT);
    assert.equal(shown.phase, 'EXECUTE', 'the stored run as it was left');
    assert.deepEqual(api.iscTable.tables.sent(runId).map((m) => m.type), ['snapshot']);
  });
});
