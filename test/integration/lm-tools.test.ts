import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateIdealState } from './ideal-state';

const PRD = 'lm-tools-prd.md';
const TEXT = [
  '---',
  'prd: true',
  'id: PRD-20261124-lm-tools',
  'status: CRITERIA_DEFINED',
  'effort_level: FAST',
  '---',
  '',
  '# LM tools',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: The greet module exports a greet function by name | Verify: Grep: ^export function greet',
  '- [ ] ISC-2: The greet module says hello in French to every caller | Verify: Grep: bonjour',
  '',
  '## LOG',
  '',
].join('\n');

/** The one text part a tool answers with, as JSON. */
const answer = async <T>(name: string, input: object): Promise<T> => {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
  return JSON.parse(text) as T;
};

interface Verified {
  prd: string;
  allCriticalPass: boolean;
  results: { id: string; priority: string; outcome: string; evidence: string; repairTarget?: string }[];
}
interface Listed {
  prd: string;
  criteria: { id: string; priority: string; verify: string | null; lastOutcome: { outcome: string } | null; stale: boolean | null }[];
}

describe('the language-model tools in the editor', () => {
  const uri = () => vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, PRD);

  before(async () => {
    await activateIdealState();
    await vscode.workspace.fs.writeFile(uri(), new TextEncoder().encode(TEXT));
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(uri(), { useTrash: false }).then(undefined, () => undefined);
  });

  it('are registered under their contributed names', () => {
    const names = vscode.lm.tools.map((t) => t.name);
    for (const name of ['ideal-state_criteria', 'ideal-state_verify', 'ideal-state_propose_criteria']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
  });

  it('verifies the named PRD: per criterion outcome with evidence, and a failing CRITICAL criterion means not done', async function () {
    this.timeout(120_000);
    const v = await answer<Verified>('ideal-state_verify', { prd: PRD });
    assert.equal(v.prd, PRD);
    const byId = Object.fromEntries(v.results.map((r) => [r.id, r]));
    assert.equal(byId['ISC-1']?.outcome, 'PASS');
    assert.match(byId['ISC-1']?.evidence ?? '', /greet/);
    assert.equal(byId['ISC-2']?.outcome, 'FAIL');
    assert.ok((byId['ISC-2']?.evidence ?? '').length > 0, 'a FAIL has evidence');
    assert.equal(v.allCriticalPass, false);
    // Some criteria only: one passing id never says the work is done while another CRITICAL one fails (issue 23, case 11).
    const one = await answer<Verified & { allCriticalPass: boolean | null; partial?: boolean }>('ideal-state_verify', { prd: PRD, criteria: ['ISC-1'] });
    assert.deepEqual(one.results.map((r) => [r.id, r.outcome]), [['ISC-1', 'PASS']]);
    assert.equal(one.allCriticalPass, null, 'no verdict on the whole PRD');
    assert.equal(one.partial, true);
    // Every CRITICAL id named: the verdict stands.
    const both = await answer<Verified & { partial?: boolean }>('ideal-state_verify', { prd: PRD, criteria: ['ISC-1', 'ISC-2'] });
    assert.equal(both.allCriticalPass, false);
    assert.equal(both.partial, false);
  });

  it('lists the criteria with the outcome the store last recorded', async function () {
    this.timeout(60_000);
    const listed = await answer<Listed>('ideal-state_criteria', { prd: PRD });
    assert.deepEqual(listed.criteria.map((c) => [c.id, c.priority, c.verify]), [['ISC-1', 'CRITICAL', 'Grep: ^export function greet'], ['ISC-2', 'CRITICAL', 'Grep: bonjour']]);
    assert.equal(listed.criteria.find((c) => c.id === 'ISC-2')?.lastOutcome?.outcome, 'FAIL');
  });

  it('refuses a PRD outside the workspace with a clear error and reads nothing', async () => {
    for (const name of ['ideal-state_criteria', 'ideal-state_verify', 'ideal-state_propose_criteria']) {
      await assert.rejects(
        Promise.resolve(vscode.lm.invokeTool(name, { input: { prd: '../outside/PRD-x.md', criteria: name.endsWith('propose_criteria') ? [{ text: 'x y z' }] : undefined }, toolInvocationToken: undefined })),
        /outside the workspace/,
        name,
      );
    }
  });

  it('verifies a PAI ISA under its own ids and writes its outcomes back as Verify Criteria does', async function () {
    this.timeout(60_000);
    // Only claims nothing here can prove (no command runs, so no confirmation): honest UNKNOWNs, never a pass.
    const isa = ['---', 'task: "greet warmly"', 'progress: 1/2   # checked / total', '---', '', '# Greet warmly', '', '## Claims', '', '- [x] C1: The greeting reads warmly to a first-time user of the module.', '- [ ] C2: The greeting page matches the approved design in every browser.', '', '## Test Strategy', '', '| isc | type | check | threshold | tool | anchors_to | severity |', '|---|---|---|---|---|---|---|', '| C1 | manual | greeting feels warm | | the principal reads it | literal | |', '| C2 | screenshot | landing page design | match | capture of / | literal | |', ''].join('\n');
    const isaUri = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, 'ISA-lm-tools.md');
    await vscode.workspace.fs.writeFile(isaUri, new TextEncoder().encode(isa));
    try {
      const v = await answer<Verified>('ideal-state_verify', { prd: 'ISA-lm-tools.md' });
      assert.deepEqual(v.results.map((r) => [r.id, r.priority, r.outcome]), [['C1', 'CRITICAL', 'UNKNOWN'], ['C2', 'CRITICAL', 'UNKNOWN']]);
      assert.equal(v.allCriticalPass, false);
      const after = new TextDecoder().decode(await vscode.workspace.fs.readFile(isaUri));
      const expected = isa.replace('progress: 1/2 ', 'progress: 0/2 ').replace('- [x] C1:', '- [ ] C1:');
      // Everything above the added Verification section is the file as it was, but for the checkbox and progress.
      assert.equal(after.slice(0, expected.length), expected);
      assert.match(after.slice(expected.length), /^\n## Verification\n\n- C1: UNKNOWN — .+ \(VS Code, \d{4}-\d{2}-\d{2}\)\n- C2: UNKNOWN — .+ \(VS Code, \d{4}-\d{2}-\d{2}\)\n$/);
    } finally {
      await vscode.workspace.fs.delete(isaUri, { useTrash: false }).then(undefined, () => undefined);
    }
  });

  it('refuses a PRD inside the workspace that is a symbolic link to one outside it, naming the path', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-lm-outside-'));
    fs.writeFileSync(path.join(outside, 'PRD-elsewhere.md'), TEXT);
    const link = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'lm-tools-link.md');
    fs.symlinkSync(path.join(outside, 'PRD-elsewhere.md'), link);
    try {
      for (const name of ['ideal-state_criteria', 'ideal-state_verify', 'ideal-state_propose_criteria']) {
        await assert.rejects(
          Promise.resolve(vscode.lm.invokeTool(name, { input: { prd: 'lm-tools-link.md', criteria: name.endsWith('propose_criteria') ? [{ text: 'x y z' }] : undefined }, toolInvocationToken: undefined })),
          (error: Error) => /"lm-tools-link\.md" goes through a symbolic link that points outside the workspace/.test(error.message),
          name,
        );
      }
      // Refused before anything was read or written: the file outside is as it was.
      assert.equal(fs.readFileSync(path.join(outside, 'PRD-elsewhere.md'), 'utf8'), TEXT);
    } finally {
      fs.unlinkSync(link);
    }
  });

  it('refuses to propose a criterion whose Verify spec is wrong, before asking and without writing', async () => {
    const before = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri()));
    await assert.rejects(
      Promise.resolve(vscode.lm.invokeTool('ideal-state_propose_criteria', { input: { prd: PRD, criteria: [{ text: 'The greet module is documented in the readme', verify: 'Telepathy: yes' }] }, toolInvocationToken: undefined })),
      /criteria\[0\]\.verify/,
    );
    assert.equal(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri())), before);
  });

  it('refuses a criteria list that is not ids, saying what is expected', async () => {
    await assert.rejects(Promise.resolve(vscode.lm.invokeTool('ideal-state_verify', { input: { prd: PRD, criteria: 'ISC-1' }, toolInvocationToken: undefined })), /criteria|schema|array/i);
  });
});
