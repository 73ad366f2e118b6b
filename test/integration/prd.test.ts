import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { checkPrd } from '../../src/prd';
import { activateIdealState } from './ideal-state';

const until = async <T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 10_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

const FIXTURE = [
  '---', // 0
  'prd: true',
  'id: PRD-20261121-fixture',
  'status: DRAFT',
  'effort_level: INSTANT',
  '---', // 5
  '# Fixture',
  '',
  '## Problem Space',
  'Something the editor should point out.',
  '', // 10
  '## Ideal State Criteria',
  '- [ ] ISC-1: Settings page shows a dark mode toggle switch to users | Verify: Custom',
  '- [ ] ISC-1: Too short | Verify: Custom', // 13: duplicate-id (error) and isc-length (warning)
  '- [ ] ISC-3: Settings page remembers the chosen theme after a window reload', // 14: isc-no-verify
  '', // 15
  '## Anti-Criteria',
  '- [ ] ISC-A-1: No secret value appears in any server log file | Verify: Custom',
  '',
].join('\n');

const prdDiagnostics = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Ideal State');
const summary = (uri: vscode.Uri) => prdDiagnostics(uri).map((d) => `${d.range.start.line}:${d.range.start.character} ${String(d.code)} ${d.severity === vscode.DiagnosticSeverity.Error ? 'error' : 'warning'}`);

describe('PRD files in the editor', () => {
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
  const file = (relative: string) => vscode.Uri.joinPath(folder(), relative);
  const write = (uri: vscode.Uri, text: string) => vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  const created: vscode.Uri[] = [];

  before(async () => {
    await activateIdealState();
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const uri of created) await vscode.workspace.fs.delete(uri, { useTrash: false }).then(undefined, () => undefined);
  });

  it('shows parser errors and linter warnings in the Problems panel with their lines and rule codes', async () => {
    const uri = file('prd-fixture.md');
    created.push(uri);
    await write(uri, FIXTURE);
    await vscode.window.showTextDocument(uri);
    const found = await until(() => (summary(uri).length >= 3 ? summary(uri) : undefined), 'PRD diagnostics');
    assert.ok(found.includes('13:6 duplicate-id error'), found.join('\n'));
    assert.ok(found.includes('13:13 isc-length warning'), found.join('\n'));
    assert.ok(found.some((s) => s.startsWith('14:') && s.includes('isc-no-verify warning')), found.join('\n'));
    assert.ok(!found.some((s) => s.startsWith('12:')), `line 12 follows the rules: ${found.join('\n')}`);
    const dup = prdDiagnostics(uri).find((d) => d.code === 'duplicate-id')!;
    assert.match(dup.message, /ISC-1 is used by an earlier criterion/);
  });

  it('updates the findings as the text changes, and applies quick fixes as undoable edits', async () => {
    const uri = file('prd-fixture.md');
    const document = await vscode.workspace.openTextDocument(uri);
    await until(() => prdDiagnostics(uri).some((d) => d.code === 'duplicate-id'), 'the duplicate-id finding');

    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, new vscode.Range(13, 6, 13, 11));
    const renumber = actions.find((a) => a.title === 'Ideal State: use ISC-4');
    assert.ok(renumber?.edit, `actions: ${actions.map((a) => a.title).join(', ')}`);
    assert.equal(renumber.kind?.value, vscode.CodeActionKind.QuickFix.value);
    assert.ok(await vscode.workspace.applyEdit(renumber.edit));
    assert.equal(document.lineAt(13).text, '- [ ] ISC-4: Too short | Verify: Custom', 'the next id after the highest, ISC-3');
    await until(() => !prdDiagnostics(uri).some((d) => d.code === 'duplicate-id'), 'the duplicate-id finding to go after the fix');

    const stubs = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, new vscode.Range(14, 8, 14, 8));
    const stub = stubs.find((a) => a.title === 'Ideal State: add a Custom verification to fill in');
    assert.ok(stub?.edit, `actions: ${stubs.map((a) => a.title).join(', ')}`);
    assert.ok(await vscode.workspace.applyEdit(stub.edit));
    assert.equal(document.lineAt(14).text, '- [ ] ISC-3: Settings page remembers the chosen theme after a window reload | Verify: Custom: describe how to check');
    await until(() => !prdDiagnostics(uri).some((d) => d.code === 'isc-no-verify'), 'the isc-no-verify finding to go after the fix');

    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('undo');
    assert.equal(document.lineAt(14).text, '- [ ] ISC-3: Settings page remembers the chosen theme after a window reload', 'undo takes the stub back');
    await until(() => prdDiagnostics(uri).some((d) => d.code === 'isc-no-verify'), 'the finding to come back after undo');
    await document.save();
  });

  it('offers the missing colon and checkbox as quick fixes', async () => {
    const uri = file('prd-malformed.md');
    created.push(uri);
    const lines = FIXTURE.split('\n');
    lines[13] = '- [ ] ISC-2 Settings page lists every theme the user can choose';
    lines[14] = '- ISC-3: Settings page remembers the chosen theme after a window reload | Verify: Custom';
    await write(uri, lines.join('\n'));
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document);
    await until(() => prdDiagnostics(uri).filter((d) => d.code === 'malformed-criterion').length === 2, 'two malformed-criterion findings');
    for (const [line, title] of [[13, 'Ideal State: add the colon'], [14, 'Ideal State: add a checkbox']] as const) {
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, document.lineAt(line).range);
      const fix = actions.find((a) => a.title === title);
      assert.ok(fix?.edit, `line ${line}: ${actions.map((a) => a.title).join(', ')}`);
      assert.ok(await vscode.workspace.applyEdit(fix.edit));
      await until(() => prdDiagnostics(uri).filter((d) => d.code === 'malformed-criterion' && d.range.start.line === line).length === 0, `the finding on line ${line} to go`);
    }
    assert.equal(document.lineAt(13).text, '- [ ] ISC-2: Settings page lists every theme the user can choose');
    assert.equal(document.lineAt(14).text, '- [ ] ISC-3: Settings page remembers the chosen theme after a window reload | Verify: Custom');
    await document.save();
  });

  it('checks open PRDs again when the effort table changes, without an edit', async () => {
    const uri = file('.ideal-state/prds/effort-change.md');
    created.push(uri);
    await write(uri, FIXTURE);
    await vscode.window.showTextDocument(uri);
    await until(() => summary(uri).length > 0 || undefined, 'the first findings');
    assert.ok(!summary(uri).some((s) => s.includes('isc-count')), 'INSTANT asks for no minimum');
    const override = file('.ideal-state/effort-levels.yaml');
    await write(override, 'version: 1\nlevels:\n  INSTANT:\n    minCriteria: 4\n');
    try {
      await until(() => summary(uri).some((s) => s.includes('isc-count')) || undefined, 'isc-count after the override');
    } finally {
      await vscode.workspace.fs.delete(override, { useTrash: false });
    }
    await until(() => !summary(uri).some((s) => s.includes('isc-count')) || undefined, 'isc-count gone with the override');
  });

  it('leaves other markdown alone and clears the findings when a PRD is deleted', async () => {
    const notes = file('notes.md');
    created.push(notes);
    await write(notes, '---\ntitle: notes\n---\n# Notes\n\n## Ideal State Criteria\n- [ ] ISC-1: Too short\n');
    await vscode.window.showTextDocument(notes);
    await new Promise((r) => setTimeout(r, 800));
    assert.deepEqual(summary(notes), []);

    const uri = file('prd-fixture.md');
    assert.ok(prdDiagnostics(uri).length > 0);
    const edit = new vscode.WorkspaceEdit();
    edit.deleteFile(uri);
    assert.ok(await vscode.workspace.applyEdit(edit));
    await until(() => prdDiagnostics(uri).length === 0, 'the findings of the deleted PRD to go');
  });

  it('"New PRD" with arguments writes a PRD that parses clean, never overwriting one', async () => {
    const args = { title: 'Dark mode for settings', effort: 'FAST', template: 'code.feature' };
    const first = await vscode.commands.executeCommand<vscode.Uri>('idealState.newPrd', args);
    const second = await vscode.commands.executeCommand<vscode.Uri>('idealState.newPrd', args);
    created.push(first, second);
    const day = new Date().toISOString().slice(0, 10).replace(/-/g, '');
    assert.equal(vscode.workspace.asRelativePath(first), `.ideal-state/prds/PRD-${day}-dark-mode-for-settings.md`);
    assert.equal(vscode.workspace.asRelativePath(second), `.ideal-state/prds/PRD-${day}-dark-mode-for-settings-2.md`);
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), second.toString(), 'the new PRD is open');

    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(first));
    const { document, diagnostics } = checkPrd(text);
    assert.deepEqual(diagnostics.filter((d) => d.severity === 'error'), []);
    assert.equal(document.meta.effort, 'FAST');
    assert.equal(document.meta.maxIterations, 1);
    assert.equal(document.meta.status, 'DRAFT');
    assert.ok(document.criteria.some((c) => c.id === 'ISC-FEAT-001'));
    assert.equal(new TextDecoder().decode(await vscode.workspace.fs.readFile(second)).includes(`id: PRD-${day}-dark-mode-for-settings-2`), true);
    // The editor checks it too: no errors in the Problems panel.
    await new Promise((r) => setTimeout(r, 800));
    assert.deepEqual(prdDiagnostics(second).filter((d) => d.severity === vscode.DiagnosticSeverity.Error), []);
  });
});
