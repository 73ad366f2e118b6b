import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../harness/paths.mjs';

// `npm start` as a person uses it: it prints the URL and the workspace copy, and Ctrl-C stops
// the server without deleting what the person did there (files, PRDs, the store of runs) —
// it says where they are kept.
describe('npm start: stopping keeps the workspace copy and says where', () => {
  it('prints the workspace copy, and on Ctrl-C keeps it and says so', async function () {
    this.timeout(300_000);
    // No desktop `code` on PATH: the browser path (the one this machine has) is the one tested.
    const child = spawn(process.execPath, [join(repoRoot, 'test', 'harness', 'start.mjs')], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PATH: process.env.PATH.split(':').filter((p) => !existsSync(join(p, 'code'))).join(':') } });
    let out = '';
    const until = (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(out);
          if (m) resolve(m);
        };
        child.stdout.on('data', (d) => ((out += d), check()));
        child.stderr.on('data', (d) => (out += d));
        child.once('exit', (code) => (pattern.exec(out) ? resolve(pattern.exec(out)) : reject(new Error(`npm start exited ${code} before ${pattern}:\n${out}`))));
        check();
      });
    const [, workspace] = await until(/workspace: (\S+) \(a copy of test\/fixtures\/sample-workspace\)/);
    assert.ok(existsSync(join(workspace, 'src', 'greet.js')), out);
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    const [, kept] = await until(/are kept in (\S+); delete that folder/);
    assert.equal(await exited, 0, out);
    try {
      assert.match(out, /stopped\. Nothing was deleted: the workspace copy/);
      assert.ok(existsSync(join(workspace, 'src', 'greet.js')), 'the workspace copy is still there');
      assert.ok(workspace.startsWith(kept), `${workspace} is in ${kept}`);
    } finally {
      rmSync(kept, { recursive: true, force: true });
    }
  });
});
