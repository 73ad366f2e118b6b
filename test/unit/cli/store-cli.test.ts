import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { journalPathOf } from '../../../src/store/durable-database';
import { Store } from '../../../src/store/store';
import { aRun } from '../support/builders';
// Registers how a pending verification is folded in, as every process that verifies does.
import '../../../src/verify/store-verification';
import { REPO_ROOT } from '../support/repo-root';

const CLI = path.resolve(REPO_ROOT, 'dist/cli.js');
const DEMO = path.resolve(REPO_ROOT, 'demo/scripted-demo.yaml');

function cli(args: string[], home: string) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC)_/.test(k)));
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...clean, XDG_DATA_HOME: path.join(home, '.data') }, stdin: 'ignore' } as never);
  return { code: r.status, out: String(r.stdout), err: String(r.stderr) };
}

/** A workspace with a passing PRD, and a store beside it holding one run (id returned). */
async function setUp(): Promise<{ dir: string; ws: string; store: string; prd: string; runId: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-store-cli-'));
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'hello.txt'), 'hello\n');
  const prd = path.join(ws, 'PRD.md');
  fs.writeFileSync(prd, '---\ntitle: Hello\n---\n# Hello\n\n## IDEAL STATE CRITERIA\n\n- [ ] ISC-1: hello.txt says hello | Verify: Grep: hello\n');
  const store = path.join(dir, 'store.sqlite');
  const seed = await Store.open({ file: store });
  const run = aRun();
  seed.runs.save(run);
  seed.close();
  return { dir, ws, store, prd, runId: run.id };
}

describe('command line: the store busy, or damaged (dist/cli.js)', () => {
  it('refuses a second writer with its own exit code, naming the process that writes', async function () {
    this.timeout(120_000);
    const { dir, ws, store, prd } = await setUp();
    const holder = await Store.open({ file: store });
    try {
      const run = cli(['run', 'Create hello.txt greeting the world', '--effort', 'STANDARD', '--provider', 'scripted', '--script', DEMO, '--workspace', ws, '--store', store], dir);
      assert.equal(run.code, 5, run.err);
      assert.match(run.err, new RegExp(`store busy: .*process ${process.pid} on .* since \\d{4}-.*Nothing was run\\.`));
      assert.equal(run.out, '');
      const imported = cli(['ratings', 'import', prd, '--store', store], dir);
      assert.equal(imported.code, 5, imported.err);
      assert.match(imported.err, /Nothing was imported\./);
      // Reading commands still work; verify's exit code stays the criteria's verdict.
      const info = cli(['store', 'info', '--store', store, '--json'], dir);
      assert.equal(info.code, 0, info.err);
      assert.equal(JSON.parse(info.out).readOnly, true);
      // verify does not open the store: its report waits beside it for the writer's next open.
      const verify = cli(['verify', prd, '--workspace', ws, '--store', store, '--json'], dir);
      assert.equal(verify.code, 0, verify.err);
      const report = JSON.parse(verify.out);
      assert.equal(report.passed, true);
      assert.equal(report.stored.pending, true);
      assert.deepEqual(report.warnings, []);
      holder.close();
      const next = await Store.open({ file: store });
      try {
        assert.equal(next.reports.where('id = ?', [report.stored.reportId]).length, 1, 'the busy store got the report at its next open');
      } finally {
        next.close();
      }
    } finally {
      holder.close();
    }
  });

  it('tells every command that opens a damaged store what was moved where, on stderr and in --json', async function () {
    this.timeout(180_000);
    const commands: [string, (s: { ws: string; store: string; prd: string; runId: string }) => string[], boolean][] = [
      ['run', (s) => ['run', 'Create hello.txt greeting the world', '--effort', 'STANDARD', '--provider', 'scripted', '--script', DEMO, '--approve', 'edits', '--workspace', s.ws, '--store', s.store, '--json'], true],
      ['run --resume', (s) => ['run', '--resume', s.runId, '--provider', 'scripted', '--script', DEMO, '--workspace', s.ws, '--store', s.store], false],
      // (verify opens no store: it leaves its report beside it, and the next command that opens it says this.)
      ['store info', (s) => ['store', 'info', '--store', s.store, '--json'], true],
      ['undo', (s) => ['undo', s.runId, '--workspace', s.ws, '--store', s.store, '--json'], false],
      ['bundle', (s) => ['bundle', s.runId, '--out', path.join(s.ws, '..', 'bundle'), '--workspace', s.ws, '--store', s.store], false],
      ['ratings stats', (s) => ['ratings', 'stats', '--store', s.store], false],
    ];
    for (const [name, args, json] of commands) {
      const setup = await setUp();
      fs.truncateSync(setup.store, Math.floor(fs.statSync(setup.store).size / 2));
      const r = cli(args(setup), setup.dir);
      const moved = fs.readdirSync(setup.dir).find((n) => n.startsWith('store.sqlite.corrupt-'));
      assert.ok(moved, `${name}: the damaged file was moved aside`);
      assert.ok(r.err.includes(`warning: The Ideal State database ${setup.store} could not be read (it is cut short`), `${name}: ${r.err}`);
      assert.ok(r.err.includes(`was moved to ${path.join(setup.dir, moved)}`), `${name}: ${r.err}`);
      if (json) {
        const warnings = JSON.parse(r.out).warnings as { kind: string; movedTo: string }[];
        assert.deepEqual(warnings.map((w) => [w.kind, w.movedTo]), [['corrupt-database', path.join(setup.dir, moved)]], name);
      }
    }
  });

  it('opens a store whose header encoding field is damaged: moved aside, said, and no lock left', async function () {
    this.timeout(60_000);
    const { dir, store } = await setUp();
    const bytes = fs.readFileSync(store);
    bytes.writeUInt32BE(4, 56);
    fs.writeFileSync(store, bytes);
    const first = cli(['store', 'info', '--store', store], dir);
    assert.equal(first.code, 0, first.err);
    assert.match(first.err, /text encoding \(bytes 56–59\) is 4/);
    assert.equal(fs.existsSync(`${store}.lock`), false);
    const second = cli(['store', 'info', '--store', store], dir);
    assert.equal(second.code, 0, second.err);
    assert.equal(second.err, '', 'the next command finds a sound store');
  });

  it('says how much of a cut journal was dropped and where its copy is', async function () {
    this.timeout(60_000);
    const { dir, store } = await setUp();
    const writer = await Store.open({ file: store, checkpointIdleMs: 60_000 });
    for (let i = 0; i < 4; i++) writer.ratings.save({ id: `r${i}`, timestamp: '2026-11-01T10:00:00.000Z', rating: 7, sessionId: 's', type: 'explicit' });
    const journal = journalPathOf(store);
    fs.truncateSync(journal, fs.statSync(journal).size - 40);
    // The writer "dies": its lock goes with it.
    fs.rmSync(`${store}.lock`);
    const r = cli(['store', 'info', '--store', store, '--json'], dir);
    assert.equal(r.code, 0, r.err);
    const [warning] = JSON.parse(r.out).warnings as { kind: string; message: string; movedTo: string }[];
    assert.equal(warning!.kind, 'torn-journal');
    assert.match(warning!.message, /3 complete commits were recovered .* bytes after the last complete commit were dropped/);
    assert.ok(fs.existsSync(warning!.movedTo));
    assert.ok(r.err.includes(`A copy of the journal as found is at ${warning!.movedTo}`));
  });
});
