import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { aggregateDashboard } from '../../../../src/app/dashboard';
import { readGateOutcomes } from '../../../../src/app/dashboard/gate-outcomes';
import type { GateOutcomeRecord } from '../../../../src/model/gate-outcome';
import { pendingFolder, writePending } from '../../../../src/store/pending';
import { Store } from '../../../../src/store/store';
import { defaultCliStoreFile } from '../../../../src/store/store-paths';
import { LOGIN_PRD, seedDashboardStore } from '../../support/dashboard-seed';

/**
 * The editor's dashboard counts the done gate's verdicts from where the gate leaves them: the
 * command line's store for the workspace (in the user's data folder) and the pending records
 * beside it, read without writing anything; never from a path inside the workspace.
 */

const verdict = (id: string, host: string, v: GateOutcomeRecord['verdict'], tampered: string[] = []): GateOutcomeRecord => ({
  id,
  at: '2026-11-02T15:00:00.000Z',
  host,
  event: 'Stop',
  session: 'session 0a0b0c0d',
  verdict: v,
  before: 0,
  prds: [{ path: LOGIN_PRD, tampered }],
});

/** Every file under `dir` with its size and modification time: what a read must leave as it was. */
function tree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).map((e) => {
    const file = path.join(e.parentPath, e.name);
    const stat = fs.statSync(file);
    return `${path.relative(dir, file)} ${stat.isFile() ? stat.size : 'dir'} ${stat.mtimeMs}`;
  }).sort();
}

describe('the gate’s verdicts where the gate leaves them', () => {
  let root: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;
  let cliStore: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-dashboard-gate-'));
    workspace = path.join(root, 'ws');
    fs.mkdirSync(workspace);
    env = { XDG_DATA_HOME: path.join(root, 'data') };
    cliStore = defaultCliStoreFile(workspace, env);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('reads the folded verdicts and the pending ones, writes nothing, and skips what the gate did not write', async () => {
    // One verdict already folded into the command line's store, one still pending beside it.
    const writer = await Store.open({ file: cliStore });
    writer.gateOutcomes.save(verdict('gate-folded', 'claude-code', 'blocked'));
    writer.close();
    writePending(cliStore, 'gate-outcome', verdict('gate-pending', 'codex', 'released', ['ISC-2']));
    // Not verdicts: a damaged file, a record of another kind, one that fails the schema.
    fs.writeFileSync(path.join(pendingFolder(cliStore), '000000000000001-1-0-gate-outcome.json'), '{ not json');
    writePending(cliStore, 'verification-report', { id: 'r' });
    writePending(cliStore, 'gate-outcome', { ...verdict('gate-forged', 'codex', 'passed'), verdict: 'waved-through' });
    // A lookalike inside the workspace (where a hook's --store could point): never read.
    writePending(path.join(workspace, '.ideal-state', 'ideal-state.sqlite'), 'gate-outcome', verdict('gate-in-workspace', 'agent', 'passed'));
    const before = tree(root);

    const read = await readGateOutcomes(workspace, { env });
    assert.equal(read.storeFile, cliStore);
    assert.deepEqual(read.records.map((r) => r.id).sort(), ['gate-folded', 'gate-pending']);
    assert.equal(read.skipped, 2, 'the damaged one and the forged one');
    assert.deepEqual(tree(root), before, 'nothing made, moved or folded: the pending records wait for their writer');
  });

  it('reads a store whose writer is busy (a command running now), and a workspace with no store at all', async () => {
    const writer = await Store.open({ file: cliStore });
    try {
      writer.gateOutcomes.save(verdict('gate-live', 'gemini', 'passed'));
      const read = await readGateOutcomes(workspace, { env });
      assert.deepEqual(read.records.map((r) => r.id), ['gate-live']);
    } finally {
      writer.close();
    }
    const other = path.join(root, 'other');
    fs.mkdirSync(other);
    const none = await readGateOutcomes(other, { env });
    assert.deepEqual([none.records, none.skipped], [[], 0]);
    assert.equal(fs.existsSync(path.dirname(defaultCliStoreFile(other, env))), false, 'no folder made for it');
  });

  it('the figures count them with the editor store’s own, a verdict in both once', async () => {
    const editor = await Store.open({ file: path.join(root, 'editor', 'ideal-state.sqlite') });
    try {
      seedDashboardStore(editor);
      const alone = aggregateDashboard(editor);
      assert.equal(alone.totals.gateStops, 3);
      const gate = [verdict('gate-pending', 'codex', 'released', ['ISC-2']), verdict('gate-folded', 'claude-code', 'blocked'), verdict('gate-1', 'claude-code', 'passed')];
      const data = aggregateDashboard(editor, { gateOutcomes: gate });
      // gate-1 is the editor store's own (seeded): counted once.
      assert.equal(data.totals.gateStops, 5);
      assert.deepEqual(data.hosts, [
        { host: 'claude-code', stops: 3, passed: 1, blocked: 2, released: 0 },
        { host: 'codex', stops: 2, passed: 0, blocked: 0, released: 2 },
      ]);
      assert.equal(data.totals.tampered, 2);
      assert.deepEqual(data.tampered.map((t) => [t.host, t.what]), [['codex', ['ISC-2']], ['claude-code', ['ISC-2']]]);
      const login = data.prds.find((p) => p.prd === LOGIN_PRD)!;
      assert.deepEqual([login.gatePassed, login.gateBlocked, login.gateReleased, login.tampered], [1, 2, 2, 2]);
      const day = data.days.find((d) => d.day === '2026-11-02')!;
      assert.deepEqual([day.gateBlocked, day.gateReleased], [1, 2]);
    } finally {
      editor.close();
    }
  });
});
