import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lockCriteria } from '../../../../src/app/gate/lock';
import { claudeStop, decision, demoWorkspace, runGate } from '../../support/gate-lock-helpers';

/**
 * The agent puts a FIFO where tasks.json was: the tasks' commands can no longer be read, so the
 * files they run are no longer named by them. Those files are still compared with the lock where
 * they are, never reported deleted while they are there (a false TAMPERED that also made the
 * answer longer than Claude Code passes on, cutting off its last notes).
 */
describe('the gate when tasks.json cannot be read', function () {
  this.timeout(60_000);

  it('blocks on the FIFO, says nothing of a file that is still there, and still says the state folder variable was refused', async () => {
    const ws = demoWorkspace();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-fifo-home-'));
    const state = path.join(home, '.local', 'state', 'ideal-state');
    await lockCriteria(ws, { by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, HOME: home, IDEAL_STATE_STATE_DIR: state } });
    fs.rmSync(path.join(ws, '.vscode', 'tasks.json'));
    execFileSync('mkfifo', [path.join(ws, '.vscode', 'tasks.json')]);
    // The person set no state folder variable; the agent's one names a folder in the workspace.
    // The default it falls back to is the one of this home (XDG_STATE_HOME set to it: a test tier sets its own).
    const run = await runGate(['--host', 'claude-code', '--no-store', '--workspace', ws], claudeStop(ws), { state: path.join(ws, '.state'), env: { HOME: home, XDG_STATE_HOME: path.join(home, '.local', 'state') } });
    const d = decision(run);
    assert.equal(d.blocked, true, d.text);
    assert.match(d.text, /TAMPERED: the task \.vscode\/tasks\.json is not a regular file \(a FIFO\)/);
    assert.ok(fs.existsSync(path.join(ws, 'src', 'greet.js')));
    assert.doesNotMatch(d.text, /src\/greet\.js TAMPERED|src\/greet\.js was deleted/, d.text);
    assert.match(d.text, /IDEAL_STATE_STATE_DIR .* names a folder inside the workspace .* the gate ignores it/);
  });
});
