import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { ApprovalRequest } from '../../../../src/agent/approvals';
import { LoopEngine } from '../../../../src/app/loop';
import { PersonWaits } from '../../../../src/app/loop/person-waits';
import type { LoopProgress } from '../../../../src/model/loop';
import { goodPage, loopHarness, loopWorkspace, subRunSteps } from '../../support/loop-helpers';

/** How long the test's person takes to approve the sub-run's edit. */
const PERSON_MS = 1500;

describe('loop: the time a person takes to answer is not the loop\'s budget, and its sub-runs show while they work', () => {
  it('stops the loop\'s clock while its only agent waits for an approval, and counts the sub-run from its start', async function () {
    this.timeout(120_000);
    const { workspace, files } = loopWorkspace(2, 1);
    const h = await loopHarness(workspace, (file) => subRunSteps(file, goodPage(path.posix.basename(file, '.md'))));
    const progress: LoopProgress[] = [];
    const asked: { request: ApprovalRequest; shown: LoopProgress; stored: readonly string[] }[] = [];
    let loopId = '';
    const approver = {
      ask: async (request: ApprovalRequest) => {
        // What the views hold while the person reads the request: the loop knows its sub-run.
        asked.push({ request, shown: progress[progress.length - 1]!, stored: h.store.loops.artifactsOf(loopId).flatMap((a) => a.runIds) });
        await new Promise((r) => setTimeout(r, PERSON_MS));
        return 'approve' as const;
      },
    };
    try {
      const engine = new LoopEngine({
        ...h.ports,
        run: { ...h.ports.run, approver, autoApproveEdits: false },
        onProgress: (p) => {
          loopId = p.loopId;
          progress.push(p);
        },
      });
      const began = Date.now();
      const result = await engine.start({ glob: 'docs/**/*.md', isc: 'test.loop-page', agents: 1, effort: 'STANDARD', maxIterations: 2 });
      const wall = Date.now() - began;
      assert.equal(result.state, 'COMPLETE', result.loop.reason);
      assert.equal(asked.length, 1, 'the sub-run asked once, for its edit');
      const subRun = asked[0]!.request.runId;
      assert.ok(subRun, 'the approval names the sub-run');
      // While the sub-run waits, the loop already holds it: the Runs view nests it, never "0 sub-runs".
      assert.equal(asked[0]!.shown.artifacts.find((a) => a.file === files[0])?.runId, subRun);
      assert.deepEqual(asked[0]!.stored, [subRun], 'the store has it too (the Runs view reads it after a reload)');
      assert.deepEqual(result.artifacts.find((a) => a.file === files[0])?.runIds, [subRun], 'the sub-run is counted once');
      // The budget: the wait is out of it, as the sub-run keeps it out of its own.
      assert.ok(result.loop.elapsedMs <= wall - PERSON_MS + 5, `used ${result.loop.elapsedMs} ms of a ${wall} ms loop that waited ${PERSON_MS} ms for a person`);
      const last = progress[progress.length - 1]!;
      assert.ok((last.budget.waitedMs ?? 0) >= PERSON_MS - 5, `waited ${last.budget.waitedMs} ms`);
    } finally {
      h.close();
    }
  });

  it('keeps the clock going while another agent still works, and stops it when every task waits', () => {
    let now = 0;
    const waits = new PersonWaits(() => now);
    const answers: ((a: 'approve') => void)[] = [];
    const person = waits.wrap({ ask: () => new Promise((r) => answers.push(r)) });
    const signal = new AbortController().signal;
    const request: ApprovalRequest = { kind: 'edit', title: 'Edit a.md', detail: '' };
    let endA!: () => void;
    let endB!: () => void;
    void waits.task(() => new Promise<void>((r) => (endA = r)));
    void waits.task(() => new Promise<void>((r) => (endB = r)));
    void person.ask(request, signal); // agent A waits, agent B works
    now = 1000;
    assert.equal(waits.total(), 0, 'one agent still works: the loop spends its time');
    void person.ask(request, signal); // both wait
    now = 3000;
    assert.equal(waits.total(), 2000);
    answers[0]!('approve');
    return Promise.resolve().then(async () => {
      await new Promise((r) => setImmediate(r));
      now = 4000;
      assert.equal(waits.total(), 2000, 'an answer starts the clock again');
      endA();
      endB();
    });
  });
});
