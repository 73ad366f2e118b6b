import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LoopEngine, readLoop } from '../../../../src/app/loop';
import { tempDir } from '../../support/algorithm-helpers';
import { goodPage, loopHarness, loopWorkspace, subRunSteps } from '../../support/loop-helpers';

describe('loop: a killed process loses no acknowledged result', () => {
  it('resumes after SIGKILL: pages acknowledged before the kill are kept, not worked again; the interrupted ones are', async function () {
    this.timeout(120_000);
    const { workspace, files } = loopWorkspace(6, 4);
    const storeFile = path.join(tempDir('loop-crash'), 'db.sqlite');
    // Pages 1 and 2 are fixed quickly; 3 and 4 are still being worked when the process dies.
    const slow = files.slice(2, 4);
    const proc = spawn(process.execPath, [path.join(__dirname, 'loop-crash.child.js'), workspace, storeFile, slow.join(',')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let loopId = '';
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      proc.stdout.on('data', (d: Buffer) => {
        buffer += d.toString();
        for (const line of buffer.split('\n').slice(0, -1)) {
          if (line.startsWith('loop ')) loopId = line.slice(5);
          if (line === 'passing 4 working 2') {
            proc.kill('SIGKILL');
            resolve();
          }
        }
        buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
      });
      proc.on('exit', () => reject(new Error(`the child ended before two pages were acknowledged and two claimed: ${stderr}`)));
    });
    await new Promise((r) => proc.once('close', r));
    assert.match(loopId, /^loop-/);

    const h = await loopHarness(workspace, (file) => subRunSteps(file, goodPage(path.posix.basename(file, '.md'))), { storeFile });
    try {
      const before = readLoop(h.store, loopId)!;
      assert.equal(before.loop.state, 'RUNNING');
      const acknowledged = before.artifacts.filter((a) => a.runId && a.status === 'PASSING');
      assert.deepEqual(acknowledged.map((a) => a.file), files.slice(0, 2), 'both quick pages were acknowledged before the kill');
      assert.deepEqual(before.artifacts.filter((a) => a.status === 'WORKING').map((a) => a.file), slow, 'the slow pages were claimed');
      const result = await new LoopEngine(h.ports).resume(loopId);
      assert.equal(result.state, 'COMPLETE', result.loop.reason);
      assert.deepEqual([...h.scriptsUsed.keys()].sort(), slow, 'only the interrupted pages are worked again');
      for (const a of acknowledged) assert.deepEqual(result.artifacts.find((x) => x.file === a.file)!.runIds, a.runIds);
      for (const f of files) assert.equal(fs.readFileSync(path.join(workspace, f), 'utf8'), goodPage(path.posix.basename(f, '.md')));
      assert.ok(result.artifacts.every((a) => a.claim === undefined));
    } finally {
      h.close();
    }
  });
});
