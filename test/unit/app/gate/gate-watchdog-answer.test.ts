import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { blocksSoFar } from '../../../../src/app/gate/block-counter';
import { watchdogAnswer, type WatchState } from '../../../../src/app/gate/stop-watch';

/**
 * What the gate says when its host's deadline comes before its answer (src/app/gate/stop-watch.ts):
 * the command line only prints it and ends the process.
 */
describe('the watchdog answer: what the gate says when the deadline comes first', () => {
  const watch = (over: Partial<WatchState> = {}): WatchState => ({ before: 0, maxBlocks: 3, verifying: '', pending: new Map(), notes: [], ...over });
  const now = new Date('2026-11-29T04:00:00Z');

  it("a prompt hook says on standard error that the baseline was not recorded, and never blocks the person's prompt (exit 0)", () => {
    const said = watchdogAnswer(watch({ prompt: true }), 9.6, now);
    assert.deepEqual(said, { kind: 'stderr', text: 'Ideal State: the session baseline was not recorded within 10 s.', code: 0 });
  });

  it('before the payload is read there is no host format: the block on standard error, exit 2', () => {
    const said = watchdogAnswer(watch(), 12, now);
    assert.equal(said.kind, 'stderr');
    assert.equal(said.kind === 'stderr' && said.code, 2);
    assert.match(said.kind === 'stderr' ? said.text : '', /^Ideal State: verification did not finish within 12 s: the host's payload was still being read/);
  });

  it("once the payload is read: the host's blocking answer with what the gate ignored, and the block counted", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-watchdog-'));
    try {
      const counter = path.join(folder, 'gate-state.json');
      const request = { host: 'claude-code', event: 'Stop', sessionKey: 'session-a' };
      const said = watchdogAnswer(watch({ request, counter, before: 1, verifying: 'PRD-1.md', notes: ['ignored: NODE_OPTIONS'] }), 30, now);
      assert.equal(said.kind, 'host');
      if (said.kind !== 'host') return;
      const answer = JSON.parse(said.answer.stdout ?? '{}') as { decision?: string; reason?: string };
      assert.equal(answer.decision, 'block');
      assert.match(answer.reason ?? '', /PRD-1\.md was still being read or verified[\s\S]*ignored: NODE_OPTIONS/);
      await said.after;
      assert.equal(await blocksSoFar(counter, 'session-a', true, 3, now), 2, 'the block is counted after the one before');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('after --max-blocks stops kept from happening in a row, the agent may stop, unverified, and the count starts again', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-watchdog-'));
    try {
      const counter = path.join(folder, 'gate-state.json');
      const request = { host: 'claude-code', event: 'Stop', sessionKey: 'session-b' };
      const said = watchdogAnswer(watch({ request, counter, before: 3 }), 30, now);
      assert.equal(said.kind, 'host');
      if (said.kind !== 'host') return;
      assert.doesNotMatch(said.answer.stdout ?? '', /"decision":\s*"block"/);
      assert.match(`${said.answer.stdout ?? ''}${said.answer.stderr ?? ''}`, /may stop now, unverified/);
      await said.after;
      assert.equal(await blocksSoFar(counter, 'session-b', true, 3, now), 0);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
