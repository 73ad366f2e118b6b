import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { aggregateDashboard } from '../../../src/app/dashboard';
import { writePending } from '../../../src/store/pending';
import { Store } from '../../../src/store/store';
import { defaultCliStoreFile } from '../../../src/store/store-paths';
import { runCli } from '../support/cli-helpers';
import { seedDashboardStore } from '../support/dashboard-seed';

const sha = (text: string) => `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;

describe('command line: ideal-state dashboard (dist/cli.js)', function () {
  this.timeout(120_000);
  let dir: string;
  let storeFile: string;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-dashboard-cli-'));
    storeFile = path.join(dir, 'ideal-state.sqlite');
    const store = await Store.open({ file: storeFile, checkpointIdleMs: 60_000 });
    seedDashboardStore(store);
    store.checkpoint();
    store.close();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes index.html and data.json with the store’s figures, the page under a CSP that allows only its own script and style', async () => {
    const out = path.join(dir, 'site');
    const r = await runCli(['dashboard', '--out', out, '--store', storeFile]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /index\.html: 4 runs, 2 PRDs, 2 days/);
    const data = JSON.parse(fs.readFileSync(path.join(out, 'data.json'), 'utf8'));
    const store = await Store.open({ file: storeFile, checkpointIdleMs: 60_000 });
    const expected = aggregateDashboard(store, { now: new Date(data.generatedAt) });
    store.close();
    assert.deepEqual(data, JSON.parse(JSON.stringify(expected)));
    assert.equal(data.totals.runs, 4);

    const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
    assert.match(csp, /^default-src 'none'; /);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:|\*/);
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
    assert.equal(scripts.length, 1, 'one script that runs');
    assert.equal(styles.length, 1);
    assert.ok(csp.includes(`script-src '${sha(scripts[0]!)}'`), 'the CSP names the inline script by its hash');
    assert.ok(csp.includes(`style-src '${sha(styles[0]!)}'`));
    assert.doesNotMatch(scripts[0]!, /sourceMappingURL|fetch\(|XMLHttpRequest/);
    // The figures travel in the page (file:// may not fetch data.json), the same as data.json.
    const block = /<script type="application\/json" id="dashboard-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    assert.deepEqual(JSON.parse(block), data);
  });

  it('with --store, also counts the gate’s verdicts from where the gate leaves them for the workspace, once each', async () => {
    const workspace = path.join(dir, 'ws');
    fs.mkdirSync(workspace);
    const env = { XDG_DATA_HOME: path.join(dir, 'data') };
    const read = async (out: string) => {
      const r = await runCli(['dashboard', '--out', out, '--store', storeFile, '--workspace', workspace], { env });
      assert.equal(r.code, 0, r.err);
      return JSON.parse(fs.readFileSync(path.join(out, 'data.json'), 'utf8')) as { totals: { gateStops: number; tampered: number } };
    };
    const before = await read(path.join(dir, 'before'));
    // The gate's verdict waits beside the command line's store for this workspace, as the stop hook leaves it.
    const gateStore = defaultCliStoreFile(workspace, env);
    writePending(gateStore, 'gate-outcome', { id: 'gate-elsewhere', at: '2026-11-02T15:00:00.000Z', host: 'codex', event: 'Stop', session: 'session 0a0b0c0d', verdict: 'blocked', before: 0, prds: [{ path: 'docs/PRD-login.md', tampered: ['ISC-2'] }] });
    const after = await read(path.join(dir, 'after'));
    assert.equal(after.totals.gateStops, before.totals.gateStops + 1);
    assert.equal(after.totals.tampered, before.totals.tampered + 1);
  });

  it('keeps a store’s text from ending the page’s data block', async () => {
    const store = await Store.open({ file: storeFile, checkpointIdleMs: 60_000 });
    const run = store.runs.get('run-cccccc1')!;
    store.runs.save({ ...run, request: '</script><script>alert(1)</script>' });
    store.checkpoint();
    store.close();
    const out = path.join(dir, 'site');
    assert.equal((await runCli(['dashboard', '--out', out, '--store', storeFile])).code, 0);
    const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
    assert.equal(html.match(/<script/g)?.length, 2, 'the data block and the bundle, nothing else');
    const data = JSON.parse(fs.readFileSync(path.join(out, 'data.json'), 'utf8'));
    assert.equal(data.recentRuns.find((r: { id: string }) => r.id === 'run-cccccc1').request, '</script><script>alert(1)</script>');
  });

  it('a --store that does not exist or is not a store is a clear error, and nothing is written or made', async () => {
    const out = path.join(dir, 'site');
    const missing = path.join(dir, 'nowhere', 'ideal-state.sqlite');
    const r = await runCli(['dashboard', '--out', out, '--store', missing]);
    assert.equal(r.code, 2);
    assert.match(r.err, new RegExp(`no store at ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; name the store with --store FILE`));
    assert.equal(fs.existsSync(missing), false, 'no empty store made in its place');
    assert.equal(fs.existsSync(out), false);

    const notStore = path.join(dir, 'notes.txt');
    fs.writeFileSync(notStore, 'just some notes\n');
    const r2 = await runCli(['dashboard', '--out', out, '--store', notStore]);
    assert.equal(r2.code, 2);
    assert.match(r2.err, /notes\.txt is not an Ideal State store \(not an SQLite database\)/);
    assert.equal(fs.readFileSync(notStore, 'utf8'), 'just some notes\n', 'never moved aside or changed');
    assert.equal(fs.existsSync(out), false);

    const r3 = await runCli(['dashboard', '--store', storeFile]);
    assert.equal(r3.code, 2);
    assert.match(r3.err, /--out DIR is required/);
  });
});
