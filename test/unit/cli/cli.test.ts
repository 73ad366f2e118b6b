import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/repo-root';

const CLI = path.resolve(REPO_ROOT, 'dist/cli.js');

function cli(args: string[], cwd = os.tmpdir()) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, XDG_DATA_HOME: path.join(cwd, '.data') } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('command line (dist/cli.js)', () => {
  it('prints usage with --help and exits 2 on an unknown command', () => {
    assert.match(cli(['--help']).out, /Usage: ideal-state <command>/);
    const bad = cli(['frobnicate']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /unknown command "frobnicate"/);
  });

  it('opens the store given by --store and reports it as JSON', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-'));
    const file = path.join(dir, 'nested', 'db.sqlite');
    const r = cli(['store', 'info', '--store', file, '--json']);
    assert.equal(r.code, 0, r.err);
    const info = JSON.parse(r.out);
    assert.equal(info.path, file);
    assert.equal(info.runs, 0);
    assert.equal(info.readOnly, false);
    assert.ok(fs.existsSync(file), 'checkpointed on close');
  });

  it('defaults the store to a per-workspace file under the user data folder', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-'));
    const info = JSON.parse(cli(['store', 'info', '--json'], dir).out);
    assert.ok(info.path.startsWith(path.join(dir, '.data', 'ideal-state', 'workspaces')), info.path);
  });

  it('shows the effort table with a workspace override, and exits 1 with a located error for a bad one', () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-ws-'));
    fs.mkdirSync(path.join(ws, '.ideal-state'));
    fs.writeFileSync(path.join(ws, '.ideal-state', 'effort-levels.yaml'), 'version: 1\nlevels:\n  FAST:\n    budgetSeconds: 90\n');
    const good = cli(['effort', '--json', '--workspace', ws]);
    assert.equal(good.code, 0, good.err);
    assert.equal(JSON.parse(good.out).levels.FAST.budgetSeconds, 90);
    fs.writeFileSync(path.join(ws, '.ideal-state', 'effort-levels.yaml'), 'version: 1\nlevels:\n  FAST:\n    budgetSeconds: soon\n');
    const bad = cli(['effort', '--workspace', ws]);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /effort-levels\.yaml:4:\d+: levels\.FAST\.budgetSeconds:/);
    assert.match(bad.out, /FAST\s+60 s/, 'the shipped table is still shown');
  });

  it('lists the shipped ISC definitions', () => {
    const r = cli(['isc', 'list']);
    assert.equal(r.code, 0, r.err);
    for (const t of ['code.feature', 'code.bugfix', 'code.refactor', 'test.suite', 'docs.page', 'summary.note.v1']) assert.match(r.out, new RegExp(`^${t.replace(/\./g, '\\.')}\\s`, 'm'));
  });
});
