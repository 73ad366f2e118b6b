import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateIdealState } from './ideal-state';

const until = async (check: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

describe('effort levels and ISC definitions in the editor', () => {
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
  const write = (relative: string, text: string) => vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder(), relative), new TextEncoder().encode(text));
  const remove = (relative: string) => vscode.workspace.fs.delete(vscode.Uri.joinPath(folder(), relative), { recursive: true, useTrash: false });

  it('loads the shipped definitions from the installed extension', async () => {
    const { isc, effort } = await (await activateIdealState()).definitions();
    for (const type of ['code.feature', 'code.bugfix', 'code.refactor', 'test.suite', 'docs.page', 'summary.note.v1']) assert.ok(isc.get(type), type);
    assert.equal(effort.table.levels.STANDARD.budgetSeconds, 120);
  });

  it('picks up a workspace override and shows a broken file in the Problems panel with its line', async () => {
    const api = await activateIdealState();
    await write('.ideal-state/effort-levels.yaml', 'version: 1\nlevels:\n  STANDARD:\n    budgetSeconds: 300\n');
    await write('.ideal-state/isc/broken.yaml', 'artifactType: cli.tool\nversion: one\n');
    try {
      await until(async () => (await api.definitions()).effort.table.levels.STANDARD.budgetSeconds === 300, 'the effort override');
      const broken = vscode.Uri.joinPath(folder(), '.ideal-state/isc/broken.yaml');
      await until(() => vscode.languages.getDiagnostics(broken).length > 0, 'a diagnostic on broken.yaml');
      const version = vscode.languages.getDiagnostics(broken).find((d) => d.message.startsWith('version:'));
      assert.ok(version, vscode.languages.getDiagnostics(broken).map((d) => d.message).join('\n'));
      assert.equal(version.range.start.line, 1, 'on the line of the bad field (0-based)');
      assert.equal(version.source, 'Ideal State');
      assert.ok((await api.definitions()).isc.get('code.feature'), 'shipped definitions still load');
    } finally {
      await remove('.ideal-state/effort-levels.yaml');
      await remove('.ideal-state/isc');
    }
  });
});
