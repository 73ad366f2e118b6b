import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RunEvent } from '../../../../src/model';
import { shippedEffortTable } from '../../../../src/model/effort-table';
import { syncPrdToStore } from '../../../../src/prd';
import { Store } from '../../../../src/store/store';
import { TableInputCache } from '../../../../src/vscode/isc-table/table-inputs';
import type { StoreHost } from '../../../../src/vscode/store-host';

const PRD = ['---', 'prd: true', 'id: PRD-20261124-table', 'status: DRAFT', 'effort_level: FAST', '---', '# Table inputs fixture', '', '## Ideal State Criteria', '- [ ] ISC-1: Settings page shows a dark mode toggle switch to users | Verify: Grep: dark-mode', ''].join('\n');

describe('the ISC table’s inputs follow the run’s deltas (issue 16)', () => {
  it('reads the store once, applies a going run’s steps in memory, and reads again after any other write', async () => {
    const store = await Store.open({ file: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-table-inputs-')), 'ideal-state.sqlite'), checkpointIdleMs: 60_000 });
    try {
      const created = syncPrdToStore(store, { text: PRD, path: '.ideal-state/prds/t.md', effortTable: shippedEffortTable() });
      assert.equal(created.kind, 'created');
      const runId = created.kind === 'created' ? created.runId : '';
      let reads = 0;
      const cache = new TableInputCache({ get: async () => (reads++, store) } as unknown as StoreHost);
      const first = await cache.get(runId);
      assert.equal(first?.criteria.length, 1);
      assert.equal(reads, 1);

      const run = { ...first!.run, state: 'RUNNING' as const, phase: 'VERIFY' as const };
      const event: RunEvent = { runId, seq: 0, at: new Date().toISOString(), kind: 'phase', message: 'VERIFY started', inputTokens: 0, outputTokens: 0, costUsd: 0 };
      const report = { id: 'rep-1', runId, iteration: 1, criteriaVersion: 1, results: [{ criterionId: 'ISC-1', outcome: 'PASS' as const, evidence: 'found', durationMs: 1, locations: [] }], passed: true, summary: '1/1', createdAt: new Date().toISOString() };
      cache.apply({ kind: 'step', runId, run, criteria: first!.criteria, report, events: [event] });
      const stepped = await cache.get(runId);
      assert.equal(reads, 1, 'a step costs no store read');
      assert.deepEqual([stepped!.run.state, stepped!.run.phase, stepped!.reports[0]!.id, stepped!.events.at(-1)!.message], ['RUNNING', 'VERIFY', 'rep-1', 'VERIFY started']);
      cache.apply({ kind: 'step', runId, run, report: { ...report, summary: 'again' }, events: [] });
      assert.equal((await cache.get(runId))!.reports.filter((r) => r.id === 'rep-1').length, 1, 'a report committed again replaces itself');

      cache.apply({ kind: 'approvals', runId });
      await cache.get(runId);
      assert.equal(reads, 1, 'approvals are read live, not from the store');
      cache.apply({ kind: 'verification', runId });
      assert.equal((await cache.get(runId))!.run.state, 'PENDING', 'after another write the store is read again');
      assert.equal(reads, 2);
    } finally {
      store.close();
    }
  });
});
