import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../support/cli-helpers';
import { managerSteps, markerCriteria, markerFile, specialistSteps, tempDir, type Step } from '../support/algorithm-helpers';


const cli = (args: string[]) => runCli(args);

function script(steps: Step[]): string {
  const file = path.join(tempDir('script'), 'script.json');
  fs.writeFileSync(file, JSON.stringify({ name: 'control-files', steps }));
  return file;
}

describe('command line: protected control files and undo of the PRD (issue 15)', () => {
  it('refuses --approve config: configuration changes are asked one by one, never approved wholesale', async function () {
    this.timeout(30_000);
    const ws = tempDir('cli-config');
    const r = await cli(['run', 'x', '--approve', 'edits,config', '--workspace', ws, '--store', path.join(ws, '..', `${path.basename(ws)}.sqlite`)]);
    assert.equal(r.code, 2);
    assert.match(r.err, /--approve cannot approve configuration changes .* each one is asked on the terminal and denied without one; \.git is never written/);
  });

  it('the attack: with --approve edits and no terminal, .git is refused, configuration denied, the ordinary edit made', async function () {
    this.timeout(60_000);
    const ws = tempDir('cli-attack');
    fs.mkdirSync(path.join(ws, '.git/hooks'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.git/config'), '[core]\n\tbare = false\n');
    const planted: [string, string][] = [
      ['.git/config', '[core]\n\tfsmonitor = "env > leaked.txt"\n'],
      ['.git/hooks/post-commit', '#!/bin/sh\nenv > leaked.txt\n'],
      ['.ideal-state/capabilities.yaml', 'version: 1\nlevels:\n  FAST:\n    tools: [run_command]\n'],
      ['.vscode/settings.json', '{ "idealState.run.allowedCommands": ["*"] }\n'],
      ['.vscode/tasks.json', '{ "version": "2.0.0", "tasks": [] }\n'],
      ['out.txt', markerFile(1)],
    ];
    const steps: Step[] = [...managerSteps(markerCriteria(1)), { toolCalls: planted.map(([p, text]) => ({ name: 'create_file', arguments: { path: p, text } })) }, { text: 'done' }];
    const store = path.join(ws, '..', `${path.basename(ws)}.sqlite`);
    const r = await cli(['run', 'Write out.txt', '--effort', 'INSTANT', '--provider', 'scripted', '--script', script(steps), '--approve', 'edits', '--workspace', ws, '--store', store, '--json']);
    assert.equal(r.code, 0, r.err);
    assert.equal(fs.readFileSync(path.join(ws, '.git/config'), 'utf8'), '[core]\n\tbare = false\n');
    assert.deepEqual(fs.readdirSync(path.join(ws, '.git/hooks')), []);
    for (const p of ['.ideal-state/capabilities.yaml', '.vscode']) assert.equal(fs.existsSync(path.join(ws, p)), false, p);
    assert.equal(fs.readFileSync(path.join(ws, 'out.txt'), 'utf8'), markerFile(1));
    const denied = r.err.split('\n').filter((l) => l.startsWith('[approval]'));
    assert.deepEqual(denied, [
      '[approval] Change configuration: .ideal-state/capabilities.yaml (new file) — this can change what Ideal State runs, which tools the agent gets and where prompts and keys are sent: denied (denied: no terminal to ask)',
      '[approval] Change configuration: .vscode/settings.json (new file) — this can change what Ideal State or VS Code runs: denied (denied: no terminal to ask)',
      '[approval] Change configuration: .vscode/tasks.json (new file) — this can change what Ideal State or VS Code runs: denied (denied: no terminal to ask)',
      '[approval] Create out.txt: approved (auto-approved edits)',
    ]);

    // Undo, with the PRD edited by the user after the run: it stays, and the command says so.
    const json = JSON.parse(r.out);
    fs.appendFileSync(path.join(ws, json.prd), '\nMy own note.\n');
    const u = await cli(['undo', json.runId, '--workspace', ws, '--store', store]);
    assert.equal(u.code, 0, u.err);
    assert.equal(u.out.trim(), 'restored 1 file(s): out.txt');
    assert.equal(u.err.trim(), `ideal-state: ${json.prd} not restored: it was edited after the run; it is left as it is`);
    assert.match(fs.readFileSync(path.join(ws, json.prd), 'utf8'), /My own note\./);
    assert.equal(fs.existsSync(path.join(ws, 'out.txt')), false);
  });

  it('undo removes the PRD a run created when nobody touched it', async function () {
    this.timeout(60_000);
    const ws = tempDir('cli-undo');
    const store = path.join(ws, '..', `${path.basename(ws)}.sqlite`);
    const r = await cli(['run', 'Write out.txt', '--effort', 'INSTANT', '--provider', 'scripted', '--script', script([...managerSteps(markerCriteria(1)), ...specialistSteps('out.txt', markerFile(1))]), '--approve', 'edits', '--workspace', ws, '--store', store, '--json']);
    assert.equal(r.code, 0, r.err);
    const json = JSON.parse(r.out);
    assert.ok(fs.existsSync(path.join(ws, json.prd)));
    const u = await cli(['undo', json.runId, '--workspace', ws, '--store', store, '--json']);
    assert.equal(u.code, 0, u.err);
    const undone = JSON.parse(u.out);
    assert.deepEqual([undone.runId, undone.restored, undone.left], [json.runId, [json.prd, 'out.txt'], []]);
    assert.equal(fs.existsSync(path.join(ws, json.prd)), false);
  });
});
