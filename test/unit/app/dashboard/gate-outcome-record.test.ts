import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { aggregateDashboard } from '../../../../src/app/dashboard';
import { Store } from '../../../../src/store/store';
import { claudeStop, decision, runGate, stateDir } from '../../support/gate-lock-helpers';

/**
 * The gate leaves each verdict for the store (the dashboard's blocks and let-gos per host): a
 * block, a stop let through with every CRITICAL criterion passing, and one let go at the limit
 * of blocks with the criteria unmet, each folded in when the store is next opened.
 */
describe('the gate records its verdicts in the store', function () {
  this.timeout(120_000);

  it('blocked, passed and released, by host, from the gate command itself', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-gate-outcome-'));
    const prd = ['---', 'prd: true', 'id: PRD-20261129-notes', 'status: IN_PROGRESS', '---', '', '# Notes', '', '## Ideal State Criteria', '', '- [ ] ISC-1: The notes file exists | Verify: Read: NOTES.md', ''].join('\n');
    fs.mkdirSync(path.join(ws, '.ideal-state', 'prds'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.ideal-state', 'prds', 'PRD-20261129-notes.md'), prd);
    const storeFile = path.join(ws, '..', `${path.basename(ws)}-store.sqlite`);
    const state = stateDir();
    const gate = (extra: string[] = []) => runGate(['--host', 'claude-code', '--no-log', '--store', storeFile, '--workspace', ws, ...extra], claudeStop(ws, { stop_hook_active: true }), { state });

    assert.equal(decision(await gate()).blocked, true, 'NOTES.md is missing: blocked');
    assert.equal(decision(await gate(['--max-blocks', '1'])).blocked, false, 'the limit of blocks: let go, unmet');
    fs.writeFileSync(path.join(ws, 'NOTES.md'), 'notes\n');
    assert.equal(decision(await gate()).blocked, false, 'passes');

    const store = await Store.open({ file: storeFile, checkpointIdleMs: 60_000 });
    try {
      const rows = store.gateOutcomes.where('', [], 'at');
      assert.deepEqual(rows.map((r) => [r.host, r.verdict, r.prds.map((p) => p.path)]), [
        ['claude-code', 'blocked', ['.ideal-state/prds/PRD-20261129-notes.md']],
        ['claude-code', 'released', ['.ideal-state/prds/PRD-20261129-notes.md']],
        ['claude-code', 'passed', ['.ideal-state/prds/PRD-20261129-notes.md']],
      ]);
      assert.match(rows[0]!.session, /^session [0-9a-f]{8}$/);
      assert.deepEqual(aggregateDashboard(store).hosts, [{ host: 'claude-code', stops: 3, passed: 1, blocked: 1, released: 1 }]);
    } finally {
      store.close();
    }
  });
});
