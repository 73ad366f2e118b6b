import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { lockCriteria } from '../../../../src/app/gate/lock';
import { withPathOutside } from '../../../../src/verify/run-command';
import { claudeStop, decision, DEMO_PRD, demoWorkspace, edit, runGate, stateDir } from '../../support/gate-lock-helpers';

/**
 * The agent puts a folder of its own first on the PATH the gate gets (its host's `env` setting),
 * with a `node` there that exits 0: the criteria's commands would then run the agent's program.
 */
describe('the gate and a PATH the agent set', function () {
  this.timeout(120_000);

  it('a fake node first on PATH does not make a locked CLI criterion pass: the stop stays blocked', async () => {
    const ws = demoWorkspace();
    const state = stateDir();
    // A CRITICAL criterion whose check runs node and fails until the work is done.
    edit(ws, DEMO_PRD, (t) => t.replace('| Verify: CLI: node --version', '| Verify: CLI: node -e "process.exit(require(\'fs\').existsSync(\'DONE\') ? 0 : 1)"'));
    fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n\n## 1.0.0\n- first\n');
    await lockCriteria(ws, { by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    const honest = decision(await runGate(['--host', 'claude-code', '--no-store', '--yes', '--workspace', ws], claudeStop(ws), { state }));
    assert.equal(honest.blocked, true, honest.text);
    assert.match(honest.text, /ISC-DEMO-005/);
    const bin = path.join(ws, '.tools');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'node'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const faked = decision(await runGate(['--host', 'claude-code', '--no-store', '--yes', '--workspace', ws], claudeStop(ws), { state, env: { PATH: `${bin}:${process.env.PATH}` } }));
    assert.equal(faked.blocked, true, `the fake node made the stop pass: ${faked.text}`);
    // Why: the command's program is an input of the lock; the one PATH finds now is another, in the workspace.
    assert.match(faked.text, /ISC-DEMO-005 FAIL .*exited 1/);
  });

  it("a check's PATH leaves out the folders inside the workspace and relative entries, and keeps the rest in order", () => {
    const env = { PATH: ['/ws/.tools', '/usr/local/bin', '', '.', 'bin', '/ws', '/wsother/bin', '/snap/copy/node_modules/.bin', '/usr/bin'].join(path.delimiter), HOME: '/home/x' };
    assert.deepEqual(withPathOutside(env, ['/ws', '/snap/copy']), { PATH: ['/usr/local/bin', '/wsother/bin', '/usr/bin'].join(path.delimiter), HOME: '/home/x' });
    assert.equal(withPathOutside(env, undefined), env);
  });
});
