import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { criterionData, EDITED_IN_THE_PRD, parsePrd, type PrdCriterionData } from '../../src/prd';
import { activateIdealState, type IdealStateApi } from './ideal-state';

const until = async <T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 10_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261122-sync',
  'status: IN_PROGRESS',
  'effort_level: FAST',
  'iteration: 1',
  '---',
  '# Sync in the editor',
  '',
  '## Problem Space',
  'The store and an open editor both follow this file.',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: Settings page shows a dark mode toggle switch to users | Verify: Grep: dark-mode', // 13
  '- [ ] ISC-2: Dark theme colours pass the contrast checker at level AA | Verify: CLI: npm run contrast', // 14
  '',
  '## Anti-Criteria',
  '- [ ] ISC-A-1: No stylesheet hard-codes a colour outside the theme tokens | Verify: Custom',
  '',
].join('\n');

describe('PRD sync between the file, the editor and the store', () => {
  let api: IdealStateApi;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
  const created: vscode.Uri[] = [];
  const write = (uri: vscode.Uri, text: string) => vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  // save() resolves false on this remote even when it saved; what counts is that the document is clean.
  const save = async (document: vscode.TextDocument) => {
    await document.save();
    await until(() => !document.isDirty, 'the save');
  };
  const lineEdit = async (document: vscode.TextDocument, line: number, text: string) => {
    const edit = new vscode.WorkspaceEdit();
    edit.replace(document.uri, document.lineAt(line).range, text);
    assert.ok(await vscode.workspace.applyEdit(edit));
  };

  before(async () => {
    api = await activateIdealState();
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const uri of created) await vscode.workspace.fs.delete(uri, { useTrash: false }).then(undefined, () => undefined);
  });

  it('turns a saved edit of the criteria into a new criteria version with an "edited in the PRD" decision', async () => {
    const uri = vscode.Uri.joinPath(folder(), '.ideal-state/prds/sync-on-save.md');
    created.push(uri);
    await write(uri, PRD);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document);
    const store = await api.store();
    const indexed = () => store.prdIndex.where('path = ?', ['.ideal-state/prds/sync-on-save.md'])[0]?.runId;

    await lineEdit(document, 13, document.lineAt(13).text.replace('- [ ]', '- [x]'));
    await save(document);
    const runId = await until(indexed, 'the first save to link a run');
    assert.deepEqual(store.criteria.versions(runId), [1]);
    assert.equal(store.criteria.list(runId).find((c) => c.id === 'ISC-1')!.status, 'DONE');

    await lineEdit(document, 14, document.lineAt(14).text.replace('level AA', 'level AAA'));
    await save(document);
    await until(() => store.criteria.versions(runId).length === 2 || undefined, 'criteria version 2');
    assert.equal(store.criteria.list(runId, 2).find((c) => c.id === 'ISC-2')!.text, 'Dark theme colours pass the contrast checker at level AAA');
    assert.equal(store.criteria.list(runId, 1).find((c) => c.id === 'ISC-2')!.text, 'Dark theme colours pass the contrast checker at level AA');
    const decision = store.decisions.where('run_id = ?', [runId], 'at').at(-1)!;
    assert.deepEqual([decision.decision, decision.by, decision.criteriaVersion, decision.rationale], [EDITED_IN_THE_PRD, 'user', 2, '.ideal-state/prds/sync-on-save.md: ISC-2 text']);
    assert.equal(store.runs.get(runId)!.criteriaVersion, 2);
  });

  it('merges an engine update into an open, unsaved editor without losing the user’s typing, as an undoable edit', async () => {
    const uri = vscode.Uri.joinPath(folder(), '.ideal-state/prds/engine-update.md');
    created.push(uri);
    await write(uri, PRD);
    const document = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(document);

    // The user types into ISC-1's text and does not save.
    const typedAt = new vscode.Position(13, document.lineAt(13).text.indexOf('toggle switch'));
    assert.ok(await editor.edit((b) => b.insert(typedAt, 'labelled ')));
    assert.ok(document.isDirty);
    const typed = document.lineAt(13).text;
    assert.equal(typed, '- [ ] ISC-1: Settings page shows a dark mode labelled toggle switch to users | Verify: Grep: dark-mode');

    // Meanwhile the engine, which last saw the file as written, ticks ISC-2 and logs an iteration.
    const engineCriteria: PrdCriterionData[] = parsePrd(PRD).criteria.map(criterionData).map((c) => (c.id === 'ISC-2' ? { ...c, checked: true } : c));
    const result = await api.applyPrdUpdate(uri, {
      base: PRD,
      criteria: engineCriteria,
      frontmatter: { iteration: 2 },
      log: [{ iteration: 2, date: '2026-11-22', phase: 'EXECUTE → VERIFY', criteria: '1/2 passing', work: 'contrast fixed', failing: ['ISC-1'] }],
    });
    assert.deepEqual(result.applied, ['ISC-2 checked', 'iteration', 'LOG iteration 2']);
    assert.equal(document.lineAt(13).text, typed, 'the user’s typing is still there');
    assert.equal(document.lineAt(14).text, '- [x] ISC-2: Dark theme colours pass the contrast checker at level AA | Verify: CLI: npm run contrast');
    assert.equal(document.lineAt(5).text, 'iteration: 2');
    assert.ok(document.getText().includes('### Iteration 2 — 2026-11-22\n- Phase: EXECUTE → VERIFY'));
    assert.ok(document.isDirty, 'the engine does not save for the user');
    assert.equal(vscode.window.activeTextEditor?.document, document);

    // One undo takes back the engine's change as a whole; the next one the user's typing.
    await vscode.commands.executeCommand('undo');
    assert.equal(document.lineAt(14).text, '- [ ] ISC-2: Dark theme colours pass the contrast checker at level AA | Verify: CLI: npm run contrast');
    assert.equal(document.lineAt(5).text, 'iteration: 1');
    assert.ok(!document.getText().includes('### Iteration 2'));
    assert.equal(document.lineAt(13).text, typed);
    await vscode.commands.executeCommand('undo');
    assert.equal(document.getText(), PRD);
    await vscode.commands.executeCommand('redo');
    await vscode.commands.executeCommand('redo');
    assert.equal(document.lineAt(13).text, typed);
    assert.equal(document.lineAt(14).text.slice(0, 5), '- [x]');
  });

  it('keeps the user’s text where the engine changed the same criterion field', async () => {
    const uri = vscode.Uri.joinPath(folder(), '.ideal-state/prds/engine-update.md');
    const document = await vscode.workspace.openTextDocument(uri);
    const before = document.getText();
    const engineCriteria = parsePrd(PRD).criteria.map(criterionData).map((c) => (c.id === 'ISC-1' ? { ...c, text: 'Engine rewrote the dark mode toggle criterion' } : c));
    const result = await api.applyPrdUpdate(uri, { base: PRD, criteria: engineCriteria });
    assert.deepEqual(result.userWon, ['ISC-1 text']);
    assert.equal(document.getText(), before, 'nothing changed: the user’s text wins');
  });

  it('opens a PRD in the PRD editor with "Open PRD Editor", beside the same TextDocument', async () => {
    const uri = vscode.Uri.joinPath(folder(), '.ideal-state/prds/sync-on-save.md');
    await vscode.window.showTextDocument(uri);
    await vscode.commands.executeCommand('idealState.openPrdEditor');
    const tab = await until(() => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputCustom && input.viewType === 'idealState.prdEditor' ? input : undefined;
    }, 'the PRD editor tab');
    assert.equal(tab.uri.toString(), uri.toString());
  });
});
