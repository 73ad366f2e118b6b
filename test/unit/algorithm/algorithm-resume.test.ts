import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { harness, managerSteps, markerCriteria, markerFile, specialistSteps, tempDir, type Step } from '../support/algorithm-helpers';

const TRANSITIONS = ['OBSERVE → THINK', 'THINK → PLAN', 'PLAN → BUILD', 'BUILD → EXECUTE', 'EXECUTE → VERIFY', 'VERIFY → LEARN'];

describe('algorithm: cancel, crash and resume', () => {
  it('cancels mid-phase at the next safe point (the model call), keeps the state, and resumes to COMPLETE', async function () {
    this.timeout(60_000);
    const m = managerSteps(markerCriteria(4));
    const storeFile = path.join(tempDir('store'), 'db.sqlite');
    const workspace = tempDir('ws');
    const slowPlan: Step = { ...(m[2] as object), delayMs: 30_000 } as Step;
    const a = await harness([m[0]!, m[1]!, slowPlan], { storeFile, workspace });
    const controller = new AbortController();
    const started = Date.now();
    const poll = setInterval(() => {
      if (a.model.requests.length >= 3) controller.abort();
    }, 5);
    let runId: string;
    try {
      const result = await a.engine.start({ request: 'Write out.txt', effort: 'STANDARD' }, controller.signal);
      runId = result.run.id;
      assert.equal(result.state, 'CANCELLED');
      assert.match(result.reason!, /cancelled during PLAN/);
      assert.ok(Date.now() - started < 20_000, 'the cancelled model call did not run to its end');
      const stored = a.store.runs.get(runId)!;
      assert.equal(stored.state, 'CANCELLED');
      assert.equal(stored.phase, 'PLAN');
      assert.equal(a.store.criteria.list(runId).length, 4, 'criteria kept');
    } finally {
      clearInterval(poll);
      a.close();
    }
    // A cancelled run can be resumed: it continues at PLAN.
    const b = await harness([m[2]!, m[3]!, ...specialistSteps('out.txt', markerFile(4))], { storeFile, workspace });
    try {
      const result = await b.engine.resume(runId);
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.equal(b.model.inner.stepsLeft, 0);
      const transitions = b.store.events.where('run_id = ?', [runId], 'seq').map((e) => e.message).filter((msg) => TRANSITIONS.includes(msg));
      assert.deepEqual(transitions, TRANSITIONS);
    } finally {
      b.close();
    }
  });

  it('survives a crash mid-EXECUTE: resume finishes the run with nothing lost or done twice', async function () {
    this.timeout(120_000);
    const m = managerSteps(markerCriteria(4));
    const dir = tempDir('crash');
    const workspace = path.join(dir, 'ws');
    fs.mkdirSync(workspace);
    const storeFile = path.join(dir, 'db.sqlite');
    const script = path.join(dir, 'script.json');
    // The specialist's first answer is slow: the child is killed while it waits.
    fs.writeFileSync(script, JSON.stringify([...m, { text: 'thinking', delayMs: 60_000 }]));
    const child = path.join(__dirname, 'algorithm-crash.child.js');
    const proc = spawn(process.execPath, [child, workspace, storeFile, script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let runId = '';
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      proc.stdout.on('data', (d: Buffer) => {
        buffer += d.toString();
        for (const line of buffer.split('\n').slice(0, -1)) {
          if (line.startsWith('run ')) runId = line.slice(4);
          if (/^event criterion .* claimed pkt-1-1/.test(line)) {
            proc.kill('SIGKILL');
            resolve();
          }
        }
        buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
      });
      proc.on('exit', () => reject(new Error(`the child ended before the claim was committed: ${stderr}`)));
    });
    await new Promise((r) => proc.once('close', r));
    assert.match(runId, /^run-/);

    const h = await harness(specialistSteps('out.txt', markerFile(4)), { workspace, storeFile });
    try {
      const before = h.store.runs.get(runId)!;
      assert.equal(before.state, 'RUNNING');
      assert.equal(before.phase, 'EXECUTE');
      assert.equal(h.store.packets.where('run_id = ?', [runId])[0]!.status, 'CLAIMED', 'the claim was committed before the crash');
      const result = await h.engine.resume(runId);
      assert.equal(result.state, 'COMPLETE', result.reason);
      // Nothing done twice: every manager phase ran once (the script has no steps to redo them).
      assert.equal(h.model.inner.stepsLeft, 0);
      const messages = h.store.events.where('run_id = ?', [runId], 'seq').map((e) => e.message);
      assert.deepEqual(messages.filter((msg) => TRANSITIONS.includes(msg)), TRANSITIONS);
      assert.equal(h.store.candidates.where('run_id = ?', [runId]).length, 1, 'one candidate for the one packet');
      assert.equal(h.store.criteria.versions(runId).length, 2, 'criteria versions from OBSERVE and BUILD (THINK changed nothing), none lost');
      assert.ok(messages.some((msg) => /run resumed at EXECUTE/.test(msg)));
      const seqs = h.store.events.where('run_id = ?', [runId], 'seq').map((e) => e.seq);
      assert.deepEqual(seqs, seqs.map((_, i) => i), 'no event lost or written twice');
      assert.equal(fs.readFileSync(path.join(workspace, 'out.txt'), 'utf8'), markerFile(4));
    } finally {
      h.close();
    }
  });
});
