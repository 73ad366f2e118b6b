import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { LoopResult } from '../../src/vscode/loop/loop-service';
import { activateIdealState, type IdealStateApi } from './ideal-state';
import { COLUMNS, copyLoopFixture, FAILING, LOOP_GLOB, onceLoop, pages, removeLoopFixture } from './loop-fixture';

// Loop mode in the real editor over the fixture's twelve pages (three hold a TODO), driven
// through "Run Algorithm over Files…" with its automation arguments (the prompts a person
// answers). In Restricted Mode the loop verifies only: no model is needed, and nothing may change.

describe('loop mode in the editor: Run Algorithm over Files… over 12 pages, 3 failing', function () {
  this.timeout(120_000);
  let api: IdealStateApi;

  before(async () => {
    api = await activateIdealState();
    await copyLoopFixture(api);
  });

  afterEach(() => api.loops.service.simulateTrust(undefined));

  after(() => removeLoopFixture());

  it('in Restricted Mode verifies every page, stores each outcome, changes no file, and shows the matrix and the Runs view node', async () => {
    api.loops.service.simulateTrust(false);
    const before = pages();
    const result = await vscode.commands.executeCommand<LoopResult | undefined>('idealState.runLoop', { glob: LOOP_GLOB, isc: 'loop.docs', effort: 'STANDARD', agents: 4 });
    assert.ok(result, 'the loop ran');
    // Verify only: the failing pages are reported, not worked.
    assert.equal(result.state, 'FAILED');
    assert.equal(result.total, 12);
    assert.equal(result.passing, 9);
    assert.deepEqual(pages(), before, 'no page changed');

    // The store has every artifact's outcome on every criterion of the template.
    const store = await api.store();
    const stored = store.loops.artifactsOf(result.loopId);
    assert.equal(stored.length, 12);
    assert.deepEqual(stored.filter((a) => a.status === 'FAILING').map((a) => a.file), FAILING);
    for (const a of stored) {
      assert.deepEqual(Object.keys(a.outcomes).sort(), [...COLUMNS].sort(), a.file);
      assert.equal(a.outcomes['ISC-A-LD-001'], FAILING.includes(a.file) ? 'FAIL' : 'PASS', a.file);
      assert.equal(a.outcomes['ISC-LD-001'], 'PASS', a.file);
      assert.deepEqual(a.runIds, [], 'verified only: no sub-run');
    }
    assert.equal(store.loops.get(result.loopId)?.spec.verifyOnly, true);

    // The matrix opened with the loop: 12 rows × the template's criteria, its header, updated by deltas.
    const shown = await api.loops.matrices.shown(result.loopId);
    assert.deepEqual(shown.columns, COLUMNS);
    assert.equal(shown.rows.length, 12);
    assert.match(shown.header, /^9\/12 artifacts passing · iteration 1 of \d+ · \d+% budget$/);
    assert.deepEqual(shown.rows.find((r) => r.file === 'loop-docs/page-07.md')?.cells, ['PASS', 'PASS', 'FAIL']);
    const sent = api.loops.matrices.sent(result.loopId);
    assert.equal(sent.filter((s) => s === 'snapshot').length, 1, `one snapshot, then deltas: ${sent.join(', ')}`);

    // The Runs view has the loop under Finished with its passing/total.
    const groups = await api.iscTable.runs.getChildren();
    const loopNode = groups.flatMap((g) => (g.kind === 'group' ? g.loops : [])).find((l) => l.id === result.loopId);
    assert.ok(loopNode, 'the loop is in the Runs view');
    assert.equal(`${loopNode.passing}/${loopNode.total}`, '9/12');
  });

  it('cancelled after its first result, it keeps that result and Resume verifies the rest to the end', async () => {
    api.loops.service.simulateTrust(false);
    // INSTANT verifies one page at a time: the cancel lands after the first acknowledged result.
    // The loop is told from its start (no result yet): cancel once a page has its result.
    const cancelling = onceLoop(
      api,
      (change) => void vscode.commands.executeCommand('idealState.cancelLoop', change.loopId),
      (change) => change.artifacts.some((a) => a.status !== 'PENDING'),
    );
    const first = await vscode.commands.executeCommand<LoopResult | undefined>('idealState.runLoop', { glob: LOOP_GLOB, isc: 'loop.docs', effort: 'INSTANT', agents: 1 });
    cancelling.dispose();
    assert.ok(first);
    assert.equal(first.state, 'CANCELLED');
    const store = await api.store();
    const kept = store.loops.artifactsOf(first.loopId).filter((a) => a.status !== 'PENDING');
    assert.ok(kept.length >= 1 && kept.length < 12, `some pages verified before the cancel, not all: ${kept.length}`);
    assert.equal(api.loops.service.activeLoops().length, 0, 'nothing goes on');

    const resumed = await vscode.commands.executeCommand<LoopResult | undefined>('idealState.resumeLoop', first.loopId);
    assert.ok(resumed);
    assert.equal(resumed.loopId, first.loopId);
    assert.equal(resumed.state, 'FAILED', 'verified only, three pages fail');
    assert.equal(resumed.passing, 9);
    const after = store.loops.artifactsOf(first.loopId);
    assert.equal(after.filter((a) => a.status === 'PENDING').length, 0, 'every page has its result');
    for (const k of kept) assert.equal(after.find((a) => a.file === k.file)?.updatedAt, k.updatedAt, `${k.file}: its acknowledged result was kept, not redone`);
  });

  it('refuses a glob reaching outside the workspace with a message, and starts nothing', async () => {
    const loopsBefore = (await api.store()).loops.list().length;
    const result = await vscode.commands.executeCommand<LoopResult | undefined>('idealState.runLoop', { glob: '../outside/*.md', isc: 'loop.docs', effort: 'FAST', agents: 1 });
    assert.equal(result, undefined);
    assert.equal((await api.store()).loops.list().length, loopsBefore);
  });
});
