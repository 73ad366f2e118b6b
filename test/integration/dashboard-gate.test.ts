import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GateOutcomeRecord } from '../../src/model/gate-outcome';
import { writePending } from '../../src/store/pending';
import { defaultCliStoreFile } from '../../src/store/store-paths';
import type { DashboardPanel } from '../../src/vscode/dashboard/dashboard-panel';
import { activateIdealState, extensionEngine } from './ideal-state';

/**
 * "Ideal State: Open Dashboard" in the real editor shows the done gate's verdicts that the stop
 * hook left where it leaves them (the command line's store for this workspace folder, in the
 * user's data folder: one already folded in, one still pending), not only its own store's.
 */
const HOST = 'it-gate-host';

const verdict = (id: string, v: GateOutcomeRecord['verdict'], tampered: string[] = []): GateOutcomeRecord => ({
  id,
  at: new Date().toISOString(),
  host: HOST,
  event: 'Stop',
  session: 'session 0f0e0d0c',
  verdict: v,
  before: 0,
  prds: [{ path: '.ideal-state/prds/PRD-it-gate.md', tampered }],
});

describe('the dashboard in the editor, with the gate’s verdicts', function () {
  this.timeout(120_000);
  let root: string;
  let saved: string | undefined;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-it-dashboard-gate-'));
    // The person's data folder, the test's own (the extension host reads process.env as it goes).
    saved = process.env.XDG_DATA_HOME;
    process.env.XDG_DATA_HOME = path.join(root, 'data');
  });
  after(() => {
    if (saved === undefined) delete process.env.XDG_DATA_HOME;
    else process.env.XDG_DATA_HOME = saved;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('counts the verdicts the gate left for this folder, folded and pending, and leaves them where they are', async () => {
    await activateIdealState();
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const cliStore = defaultCliStoreFile(folder, process.env);
    const { Store } = extensionEngine();
    const writer = await Store.open({ file: cliStore });
    writer.gateOutcomes.save(verdict('gate-it-folded', 'blocked'));
    writer.close();
    const pending = writePending(cliStore, 'gate-outcome', verdict('gate-it-pending', 'released', ['ISC-1']));

    const panel = await vscode.commands.executeCommand<DashboardPanel>('idealState.openDashboard');
    try {
      for (let i = 0; i < 300 && !panel.ready; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(panel.ready, 'the dashboard view loaded');
      await panel.send();
      const shown = await panel.probe(30_000);
      const hosts = shown.tables.find((t) => t.caption === 'Gate verdicts per agent host');
      assert.ok(hosts, shown.tables.map((t) => t.caption).join(', '));
      assert.deepEqual(hosts.rows.find((r) => r[0] === HOST), [HOST, '2', '0', '1', '1']);
      const tampered = shown.tables.find((t) => t.caption.startsWith('Stops at which a locked criterion'));
      assert.ok(tampered?.rows.some((r) => r[1] === HOST && r[3] === 'ISC-1'), JSON.stringify(tampered));
      assert.ok(fs.existsSync(pending), 'the pending verdict is left for its writer');
    } finally {
      panel.dispose();
    }
  });
});
