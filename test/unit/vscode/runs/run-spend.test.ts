import * as assert from 'node:assert/strict';
import type { RunEvent } from '../../../../src/model';
import { runUsage, usageLine } from '../../../../src/model/run-usage';
import { tableSnapshot } from '../../../../src/vscode/isc-table/snapshot';
import { spendWords } from '../../../../src/vscode/runs/runs-tree-model';
import { aCriterion, aRun } from '../../support/builders';

const at = '2026-11-28T10:00:00.000Z';
const model = (seq: number, phase: RunEvent['phase'], e: Partial<RunEvent>): RunEvent => ({ runId: 'r1', seq, at, phase, kind: 'model', message: 'call', inputTokens: 0, outputTokens: 0, costUsd: 0, ...e });

// Two EXECUTE turns (the second reading the first's prefix) and an OBSERVE call, at Sonnet 4.6's prices.
const events: RunEvent[] = [
  model(0, 'OBSERVE', { inputTokens: 400, outputTokens: 190, costUsd: 0.00406 }),
  model(1, 'EXECUTE', { inputTokens: 1101, cacheWriteTokens: 1101, outputTokens: 32, costUsd: 0.00460875 }),
  model(2, 'EXECUTE', { inputTokens: 1257, cachedInputTokens: 1101, cacheWriteTokens: 156, outputTokens: 35, costUsd: 0.0014403 }),
  { runId: 'r1', seq: 3, at, phase: 'EXECUTE', kind: 'tool', message: 'read_file', inputTokens: 0, outputTokens: 0, costUsd: 0 },
];

describe("a run's spending: tokens (fresh, cached, written, output) and dollars", () => {
  it('sums the model events per run and per phase', () => {
    const u = runUsage(events);
    assert.deepEqual({ fresh: u.fresh, cached: u.cached, written: u.written, output: u.output, usd: u.usd }, { fresh: 400, cached: 1101, written: 1257, output: 257, usd: 0.01010905 });
    assert.deepEqual(u.phases.EXECUTE, { fresh: 0, cached: 1101, written: 1257, output: 67, usd: 0.00604905 });
    assert.deepEqual(Object.keys(u.phases), ['OBSERVE', 'EXECUTE']);
    assert.equal(usageLine(u), '2,758 tokens in (1,101 cached, 1,257 written) / 257 out, $0.0101');
  });

  it('shows in the Runs view: dollars in the description, the run and each phase in the tooltip', () => {
    const words = spendWords(runUsage(events))!;
    assert.equal(words.short, '$0.0101');
    assert.deepEqual(words.lines, [
      'spent 2,758 tokens in (1,101 cached, 1,257 written) / 257 out, $0.0101',
      '  OBSERVE: 400 tokens in / 190 out, $0.0041',
      '  EXECUTE: 2,358 tokens in (1,101 cached, 1,257 written) / 67 out, $0.0060',
    ]);
    assert.equal(spendWords(runUsage([])), undefined, 'a run that called no model shows no spending');
    const free = spendWords(runUsage([model(0, 'OBSERVE', { inputTokens: 120, outputTokens: 18 })]))!;
    assert.equal(free.short, '', 'a free or unpriced run shows no dollars in the description');
    assert.equal(free.lines[0], 'spent 120 tokens in / 18 out, $0.0000');
  });

  it("shows in the ISC table's header with the cached and written tokens apart", () => {
    const abilities = { verify: true, edit: true, cancel: true, resume: false, rate: false };
    const header = tableSnapshot({ run: aRun({}), criteria: [aCriterion({ id: 'ISC-1' })], reports: [], events, abilities }).header;
    assert.equal(header.spent, '2,758 tokens in (1,101 cached, 1,257 written) / 257 out, $0.0101');
    assert.equal(header.budget.tokens.used, 2758 + 257);
    assert.equal(tableSnapshot({ run: aRun({}), criteria: [], reports: [], events: [], abilities }).header.spent, undefined);
  });
});
