import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunLearning } from '../../../src/algorithm/ports';
import { runLearning } from '../../../src/algorithm/run-learning';
import { LearningService } from '../../../src/learning/service';
import type { AnyCriterion } from '../../../src/model';
import { parsePrd } from '../../../src/prd/parse';
import { harness, managerSteps, markerCriteria, markerFile, specialistSteps, type Harness, type Step } from '../support/algorithm-helpers';
import { openTempStore } from '../learning/learning-helpers';
import { storeFinishedRun } from '../support/learning-seed';

/**
 * Learning wired into the Algorithm (issue 9 §4, §7), with the scripted provider (a test
 * tool): the reflection after a run, memory of low-rated similar runs offered in OBSERVE
 * as INFERRED rows with their provenance, and learning failures that leave the run alone.
 */

const REFLECTION = { object: { q1Self: 'I would write the closing-line criterion in OBSERVE.', q2Workflow: 'THINK would check the whole output file.', q3System: 'A GREP verifier per line was enough.', category: 'ALGORITHM' } };

/** The closing line a past run missed: its criterion failed, and the user rated the run 3. */
const CLOSING = { text: 'Output file ends with the closing end line', verify: { type: 'GREP' as const, pattern: '^end$', glob: 'out.txt', expect: 'present' as const } };

/** A past STANDARD run that wrote marker lines but not the closing line, rated 3 with a comment. */
async function lowRatedPastRun(h: Harness): Promise<string> {
  // An unrelated past run too, so similarity has something to tell apart.
  storeFinishedRun(h.store, { request: 'Translate the German README into English prose', criteria: [{ text: 'README reads as English prose throughout', outcome: 'PASS' }] });
  const past = storeFinishedRun(h.store, {
    request: 'Write out.txt with marker lines and a closing line',
    criteria: [
      { text: 'Output file holds marker line number 1', outcome: 'PASS', verify: { type: 'GREP', pattern: '^marker-1$', glob: 'out.txt', expect: 'present' } },
      { ...CLOSING, outcome: 'FAIL', label: 'REQUIREMENT_COVERAGE' },
    ],
  });
  const rated = await new LearningService(h.store, { version: 'test' }).rateRun(past.id, { rating: 3, text: 'it forgot the closing line' });
  assert.equal(rated.rating?.rating, 3);
  return past.id;
}

function observePrompt(h: Harness): string {
  const request = h.model.requests.find((r) => r.messages.some((m) => typeof m.content === 'string' && m.content.includes('Reverse-engineer the request')));
  assert.ok(request, 'the manager was asked in OBSERVE');
  return request.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
}

const learnedRows = (criteria: readonly AnyCriterion[]) => criteria.filter((c) => c.source === 'INFERRED' && /^Learned from /.test(c.notes ?? ''));

describe('algorithm: learning after the run (scripted provider)', () => {
  it('a finished STANDARD run gets the manager’s reflection, stored with the run, after its exit state', async function () {
    this.timeout(60_000);
    const h = await harness([...managerSteps(markerCriteria(4)), ...specialistSteps('out.txt', markerFile(4)), REFLECTION], { learning: true });
    try {
      const result = await h.engine.start({ request: 'Write out.txt with 4 marker lines', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      const reflections = h.store.reflections.where('run_id = ?', [result.run.id]);
      assert.equal(reflections.length, 1);
      assert.equal(reflections[0]!.author, 'manager');
      assert.equal(reflections[0]!.q1Self, REFLECTION.object.q1Self);
      assert.equal(reflections[0]!.criteriaCount, 4);
      assert.equal(reflections[0]!.criteriaPassed, 4);
      assert.equal(h.model.inner.stepsLeft, 0, 'the reflection asked the manager’s model');
      // The reflection comes after the committed exit state, recorded as a LEARN event.
      const stored = h.store.events.where('run_id = ?', [result.run.id], 'seq');
      const ended = stored.findIndex((e) => /^run ended COMPLETE/.test(e.message));
      const learned = stored.findIndex((e) => /^LEARN: reflection refl-.* written by the manager/.test(e.message));
      assert.ok(ended >= 0 && learned > ended, 'the LEARN event follows the exit');
      assert.equal(h.store.runs.get(result.run.id)!.state, 'COMPLETE');
    } finally {
      h.close();
    }
  });

  it('without a model answer the reflection is fact-based and labelled so', async function () {
    this.timeout(60_000);
    // No scripted step left for the reflection: the model call fails, the facts answer.
    const h = await harness([...managerSteps(markerCriteria(4)), ...specialistSteps('out.txt', markerFile(4))], { learning: true });
    try {
      const result = await h.engine.start({ request: 'Write out.txt with 4 marker lines', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      const [reflection] = h.store.reflections.where('run_id = ?', [result.run.id]);
      assert.equal(reflection?.author, 'facts');
      assert.match(reflection!.q1Self, /^\[fact-based, no model\]/);
      assert.ok(h.events.some((e) => /^LEARN: reflection .* written by the run's facts \(the manager model failed/.test(e.message)));
    } finally {
      h.close();
    }
  });

  it('an INSTANT run writes no reflection', async function () {
    this.timeout(60_000);
    const h = await harness([...managerSteps(markerCriteria(1)), ...specialistSteps('out.txt', markerFile(1))], { learning: true });
    try {
      const result = await h.engine.start({ request: 'Write out.txt with 1 marker line', effort: 'INSTANT' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.equal(h.store.reflections.where('run_id = ?', [result.run.id]).length, 0);
      assert.ok(h.events.some((e) => /^LEARN: no reflection below STANDARD/.test(e.message)));
    } finally {
      h.close();
    }
  });
});

describe('algorithm: memory of past runs in OBSERVE (scripted provider)', () => {
  it('a similar request after a run rated 3 gets the failed criterion as an INFERRED row with its provenance, in the PRD too', async function () {
    this.timeout(60_000);
    const steps: Step[] = [...managerSteps(markerCriteria(4)), ...specialistSteps('out.txt', `${markerFile(4)}end\n`), REFLECTION];
    // The learned row is ISC-5 (after the manager's four); the plan gives it to the packet too.
    (steps[2] as { object: { packets: { criterionIds: string[] }[] } }).object.packets[0]!.criterionIds.push('ISC-5');
    const h = await harness(steps, { learning: true });
    try {
      const pastId = await lowRatedPastRun(h);
      const result = await h.engine.start({ request: 'Write out.txt with 4 marker lines', effort: 'STANDARD' });
      // OBSERVE: the manager was told, with where it came from.
      const prompt = observePrompt(h);
      assert.match(prompt, /"learnedFromPastRuns":/);
      assert.match(prompt, new RegExp(`${CLOSING.text}.*Learned from ${pastId} \\(rated 3/10`));
      // The row: INFERRED, its provenance in the notes, the past run's verification method kept.
      const rows = learnedRows(result.criteria);
      assert.equal(rows.length, 1, JSON.stringify(result.criteria.map((c) => [c.id, c.source, c.notes])));
      const row = rows[0]!;
      assert.equal(row.id, 'ISC-5');
      assert.equal(row.text, CLOSING.text);
      assert.match(row.notes!, new RegExp(`^Learned from ${pastId} \\(rated 3/10, \\d+% similar\\): ISC-2 failed there\\.$`));
      assert.deepEqual(row.verify, CLOSING.verify);
      // Recorded with a decision, and worked and verified like any criterion.
      const decisions = h.store.decisions.where('run_id = ?', [result.run.id], 'at, id');
      assert.ok(decisions.some((d) => new RegExp(`^OBSERVE memory: added as INFERRED from similar past runs: ISC-5 "${CLOSING.text}" \\(Learned from ${pastId} `).test(d.decision)), JSON.stringify(decisions.map((d) => d.decision)));
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.equal(result.report!.results.find((r) => r.criterionId === 'ISC-5')?.outcome, 'PASS');
      // The PRD shows it, so the user can drop it there.
      const prd = fs.readFileSync(path.join(h.workspace, h.store.runs.get(result.run.id)!.prdPath!), 'utf8');
      assert.equal(parsePrd(prd).criteria.find((c) => c.id === 'ISC-5')?.text, CLOSING.text);
      assert.match(prd, new RegExp(`Learned from ${pastId}`));
    } finally {
      h.close();
    }
  });

  it('a dissimilar request is offered nothing', async function () {
    this.timeout(60_000);
    const criteria = [1, 2, 3, 4].map((i) => ({ text: `Invoice file lists line item ${i}`, verify: { type: 'GREP', pattern: `^item-${i}$`, glob: 'invoice.txt', expect: 'present' } }));
    const h = await harness([...managerSteps(criteria), ...specialistSteps('invoice.txt', 'item-1\nitem-2\nitem-3\nitem-4\n'), REFLECTION], { learning: true });
    try {
      await lowRatedPastRun(h);
      const result = await h.engine.start({ request: 'Draft an invoice with four priced items', effort: 'STANDARD' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.doesNotMatch(observePrompt(h), /"learnedFromPastRuns":/);
      assert.deepEqual(learnedRows(result.criteria), []);
      assert.ok(!result.criteria.some((c) => c.text === CLOSING.text));
      assert.ok(!h.store.decisions.where('run_id = ?', [result.run.id]).some((d) => /memory/.test(d.decision)));
    } finally {
      h.close();
    }
  });

  it('THINK cannot drop a learned row (the user can, in the PRD)', async function () {
    this.timeout(60_000);
    // The scripted THINK answer lists only the manager's four criteria: ISC-5 is not in it.
    const steps: Step[] = [...managerSteps(markerCriteria(4)), ...specialistSteps('out.txt', `${markerFile(4)}end\n`), REFLECTION];
    (steps[2] as { object: { packets: { criterionIds: string[] }[] } }).object.packets[0]!.criterionIds.push('ISC-5');
    const h = await harness(steps, { learning: true });
    try {
      await lowRatedPastRun(h);
      const result = await h.engine.start({ request: 'Write out.txt with 4 marker lines', effort: 'STANDARD' });
      assert.ok(h.events.some((e) => /^THINK tried to drop ISC-5, learned from past runs; kept/.test(e.message)));
      assert.equal(learnedRows(result.criteria).length, 1);
    } finally {
      h.close();
    }
  });
});

describe('algorithm: a failing learning service (scripted provider)', () => {
  it('does not change the exit state: memory and reflection failures are run events', async function () {
    this.timeout(60_000);
    const calls: string[] = [];
    const broken: RunLearning = {
      memoryFor: async () => {
        calls.push('memoryFor');
        throw new TypeError('memory store unreadable');
      },
      afterRun: async () => {
        calls.push('afterRun');
        throw new RangeError('reflection store full');
      },
    };
    const h = await harness([...managerSteps(markerCriteria(4)), ...specialistSteps('out.txt', markerFile(4))], { learning: broken });
    try {
      const result = await h.engine.start({ request: 'Write out.txt with 4 marker lines', effort: 'STANDARD' });
      assert.deepEqual(calls, ['memoryFor', 'afterRun']);
      assert.equal(result.state, 'COMPLETE', result.reason);
      assert.equal(h.store.runs.get(result.run.id)!.state, 'COMPLETE');
      const messages = h.store.events.where('run_id = ?', [result.run.id], 'seq').map((e) => e.message);
      assert.ok(messages.includes('memory of past runs unavailable (memory store unreadable); OBSERVE goes on without it'));
      assert.ok(messages.includes('LEARN: the reflection could not be written (reflection store full); the run stays COMPLETE'));
      assert.equal(h.model.inner.stepsLeft, 0);
    } finally {
      h.close();
    }
  });
});

describe('learning port: mining after every tenth finished run', () => {
  it('mines the reflections when the tenth run ends, not before', async function () {
    this.timeout(30_000);
    const store = await openTempStore();
    try {
      const service = new LearningService(store, { version: 'test' });
      const learning = runLearning(service);
      const signal = new AbortController().signal;
      const afterEach: string[][] = [];
      for (let i = 1; i <= 10; i++) {
        const run = storeFinishedRun(store, { request: `Write report ${i} with its summary table`, criteria: [{ text: 'Report holds a summary table', outcome: i % 2 === 0 ? 'FAIL' : 'PASS' }] });
        afterEach.push([...(await learning.afterRun(run, signal))]);
      }
      assert.ok(afterEach.slice(0, 9).every((lines) => !lines.some((l) => /^mined/.test(l))), 'no mining before the tenth run');
      assert.match(afterEach[9]!.at(-1)!, /^mined \d+ theme\(s\) from the reflections after 10 finished runs$/);
      assert.equal(service.reflections().length, 10);
      assert.ok(service.reflections().every((r) => r.theme), 'every reflection got its theme');
    } finally {
      store.close();
    }
  });
});
