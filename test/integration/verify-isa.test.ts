import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CriterionResult } from '../../src/model';
import { activateIdealState } from './ideal-state';

/** A PAI ISA (ISAFormat v2) for the sample workspace: its probes are node commands, one claim is manual. */
const FIXTURE = fs.readFileSync(path.resolve(__dirname, '../../../test/fixtures/isa/ISA-editor-greet.md'), 'utf8');
/** The commands of its Test Strategy (the tool column), allowed for this suite so no approval dialog waits. */
const COMMANDS = [...FIXTURE.matchAll(/\| `(node -e [^`]+)` \|/g)].map((m) => m[1]!);

interface Verification {
  set: { results: CriterionResult[] };
  shown: { results: CriterionResult[]; passed: boolean };
  written: boolean;
}

describe('Verify Criteria on a PAI ISA in the editor', () => {
  const name = 'ISA-editor-greet.md';
  const uri = () => vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, name);
  const read = async () => new TextDecoder().decode(await vscode.workspace.fs.readFile(uri()));

  before(async () => {
    await activateIdealState();
    assert.equal(COMMANDS.length, 5, 'the fixture’s five runnable probes');
    await vscode.workspace.getConfiguration('idealState.verify').update('allowedCommands', COMMANDS, vscode.ConfigurationTarget.Global);
    await vscode.workspace.fs.writeFile(uri(), new TextEncoder().encode(FIXTURE));
  });

  after(async () => {
    await vscode.workspace.getConfiguration('idealState.verify').update('allowedCommands', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(uri(), { useTrash: false }).then(undefined, () => undefined);
  });

  it('writes the outcomes back as the command line does: checkboxes, progress and Verification lines, every other byte as it was', async function () {
    this.timeout(120_000);
    const v = await vscode.commands.executeCommand<Verification | undefined>('idealState.verifyCriteria', uri());
    assert.ok(v, 'the command returned a verification');
    const outcomes = Object.fromEntries(v.shown.results.map((r) => [r.criterionId, r.outcome]));
    assert.deepEqual(outcomes, { C1: 'PASS', C2: 'FAIL', 'ISC-3': 'FAIL', 'ISC-3.1': 'PASS', 'ISC-3.2': 'FAIL', A4: 'PASS', C5: 'UNKNOWN' }, JSON.stringify(v.shown.results, null, 2));
    assert.equal(v.shown.passed, false);
    assert.equal(v.written, true);

    const after = (await read()).split('\n');
    const before = FIXTURE.split('\n');
    const verification = before.indexOf('## Verification');
    // Above the Verification section only these lines change: C2 was checked and fails now.
    const expected = before.slice(0, verification + 1).map((line) =>
      line
        .replace(/^progress: 1\/6 /, 'progress: 3/6 ')
        .replace(/^- \[ \] C1: /, '- [x] C1: ')
        .replace(/^- \[x\] C2: /, '- [ ] C2: ')
        .replace(/^ {2}- \[ \] ISC-3\.1: /, '  - [x] ISC-3.1: ')
        .replace(/^- \[ \] A4: /, '- [x] A4: '),
    );
    assert.deepEqual(after.slice(0, verification + 1), expected);
    // The section's "not yet verified" line is replaced and one line per claim follows, in document order.
    const section = after.slice(verification + 1).filter((l) => l.startsWith('- '));
    assert.deepEqual(
      section.map((l) => /^- ([\w.-]+): (PASS|FAIL|PARTIAL|UNKNOWN) — .+ \(VS Code, \d{4}-\d{2}-\d{2}\)$/.exec(l)?.slice(1, 3).join(' ') ?? l),
      ['C1 PASS', 'C2 FAIL', 'ISC-3 FAIL', 'ISC-3.1 PASS', 'ISC-3.2 FAIL', 'A4 PASS', 'C5 UNKNOWN'],
    );
    assert.deepEqual(after.slice(verification + 1, verification + 2), before.slice(verification + 1, verification + 2), 'the blank line after the heading stays');
    assert.equal(after.at(-1), '', 'the file still ends with one newline');
    // The document the editor holds is saved: what is on disk is what the user sees.
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri().toString());
    assert.ok(!open || !open.isDirty, 'the ISA is saved');
  });
});

/** The ISAs people write (after LifeOS's examples): an HTML comment before the frontmatter, invented check types, loose YAML. */
describe('LifeOS-shaped ISAs in the editor', () => {
  const fixtures = ['lifeos-invented-types.md', 'lifeos-loose-yaml.md', 'lifeos-minimal.md', 'lifeos-v218.md'];
  const uri = (name: string) => vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, name);
  const findings = (u: vscode.Uri) => vscode.languages.getDiagnostics(u).filter((d) => d.source === 'Ideal State');

  before(async () => {
    await activateIdealState();
    for (const name of fixtures) {
      const text = fs.readFileSync(path.resolve(__dirname, '../../../test/fixtures/isa', name), 'utf8');
      await vscode.workspace.fs.writeFile(uri(name), new TextEncoder().encode(text));
    }
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const name of fixtures) await vscode.workspace.fs.delete(uri(name), { useTrash: false }).then(undefined, () => undefined);
  });

  for (const name of fixtures) {
    it(`${name}: the Problems panel shows its located warnings and no error, though the file opens with a comment`, async function () {
      this.timeout(30_000);
      await vscode.window.showTextDocument(uri(name));
      const deadline = Date.now() + 15_000;
      while (findings(uri(name)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const list = findings(uri(name));
      assert.ok(list.length > 0, `${name} was read as an ISA and checked (its fixture has warnings)`);
      assert.deepEqual(list.filter((d) => d.severity === vscode.DiagnosticSeverity.Error).map((d) => d.message), []);
      assert.ok(list.every((d) => d.range.start.line > 0), 'every finding is located below the leading comment');
    });
  }
});
