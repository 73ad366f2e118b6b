import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkLauncherRuns, hookProblem, mcpLauncherFor, runHookCommand } from '../../../src/app/gate/hook-command';
import { gateDoctorCommand } from '../../../src/cli/gate/doctor';
import { gateInstallCommand } from '../../../src/cli/gate/install';
import { BUILT_CLI } from '../support/cli-helpers';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-hook-command-'));
const VERSION = (JSON.parse(fs.readFileSync(path.join(path.dirname(BUILT_CLI), '..', 'package.json'), 'utf8')) as { version: string }).version;
/** More than a pipe holds (64 KiB on Linux), so a program that never reads it leaves the write unfinished: EPIPE. */
const BIG = 'x'.repeat(4 << 20);
const options = (cwd: string, timeoutMs = 30_000) => ({ cwd, env: process.env, timeoutMs });

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
}

describe('a hook command run as the host runs it: every way it goes wrong is one line, never a crash', function () {
  this.timeout(60_000);

  it('the broken pipe, reproduced: a payload written to a hook that exits unread kills a process with no listener (Unhandled \'error\' event, EPIPE)', () => {
    // What the doctor did before: spawn through a shell, end stdin with the payload, no 'error' listener on stdin.
    const script = `const c = require('node:child_process').spawn('exit 0', { shell: true, stdio: ['pipe', 'ignore', 'ignore'] }); c.stdin.end('x'.repeat(${BIG.length}));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /EPIPE/);
    assert.match(r.stderr, /Unhandled 'error' event/);
  });

  it('runs through it: a hook that exits before reading its payload is a broken pipe with its exit code, said with what to do', async () => {
    const r = await runHookCommand('exit 3', BIG, options(tmp()));
    assert.equal(r.code, 3);
    assert.equal(r.brokenPipe, true);
    assert.match(hookProblem(r, 'exit 3') ?? '', /before it read the stop payload \(a broken pipe\).*npm install -g ideal-state/);
  });

  it('a missing program: exit 127, named, with the install to run', async () => {
    const r = await runHookCommand('/nowhere/ideal-state gate --host claude-code', '{}', options(tmp()));
    assert.equal(r.code, 127);
    assert.match(hookProblem(r, '/nowhere/ideal-state gate --host claude-code') ?? '', /^the hook's program `\/nowhere\/ideal-state` is not found \(exit 127.*\): the host lets every stop through; install the command line \(npm install -g ideal-state\)/);
  });

  it('a program that cannot start: not executable (126), and a command line whose files are gone', async () => {
    const ws = tmp();
    const file = path.join(ws, 'not-a-program');
    fs.writeFileSync(file, 'plain text', { mode: 0o644 });
    const r = await runHookCommand(`${file} gate`, '{}', options(ws));
    assert.equal(r.code, 126);
    assert.match(hookProblem(r, `${file} gate`) ?? '', /cannot be started \(exit 126/);
    const gone = await runHookCommand(`${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(ws, 'dist', 'cli.js'))} gate`, '{}', options(ws));
    assert.match(hookProblem(gone, 'node cli.js gate') ?? '', /cannot start \(.*Cannot find module.*\): the installed files are missing or incomplete/);
  });

  it('a hook that never answers is ended with what it started, and said', async () => {
    const started = Date.now();
    const r = await runHookCommand('sleep 30 & sleep 30; wait', '{}', options(tmp(), 1_000));
    assert.ok(Date.now() - started < 20_000, 'the run ended at its bound, not with the program');
    assert.equal(r.timedOut, true);
    assert.match(hookProblem(r, 'slow') ?? '', /no answer in 1 s: the host stops waiting/);
  });

  it('a hook that runs is no problem, whatever it answers', async () => {
    const r = await runHookCommand('cat', '{"decision":"block"}', options(tmp()));
    assert.equal(r.stdout, '{"decision":"block"}');
    assert.equal(hookProblem(r, 'cat'), undefined);
  });

  it('the launcher check: the built command line prints its version; anything else is said', async () => {
    const ok = await checkLauncherRuns(`${JSON.stringify(process.execPath)} ${JSON.stringify(BUILT_CLI)}`, options(tmp()));
    assert.deepEqual(ok, { ok: true, version: VERSION });
    const echo = await checkLauncherRuns('echo', options(tmp()));
    assert.equal(echo.ok, false);
    assert.match(echo.ok ? '' : echo.line, /did not print a version/);
  });

  it('the MCP entry names `ideal-state` only when that name on PATH is this command line', () => {
    const dir = tmp();
    const cli = path.join(dir, 'cli.js');
    fs.writeFileSync(cli, '');
    fs.symlinkSync(cli, path.join(dir, 'ideal-state'));
    assert.equal(mcpLauncherFor('node /x/cli.js', cli, dir).launcher, 'ideal-state');
    assert.equal(mcpLauncherFor('node /x/cli.js', BUILT_CLI, dir).launcher, 'node /x/cli.js');
    assert.equal(mcpLauncherFor('node /x/cli.js', cli, tmp()).launcher, 'node /x/cli.js');
  });

  it('gate install: a default launcher that does not start is refused and nothing is written; a --command that does not is written with a warning', async () => {
    const ws = tmp();
    const broken = path.join(tmp(), 'dist', 'cli.js');
    fs.mkdirSync(path.dirname(broken));
    fs.writeFileSync(broken, 'process.exit(1)\n');
    const r = io();
    assert.equal(await gateInstallCommand(['claude-code', '--yes', '--workspace', ws], r.io, { node: process.execPath, cli: broken }), 1);
    assert.match(r.err.join('\n'), /which does not start here: .*Nothing written\./);
    assert.equal(fs.existsSync(path.join(ws, '.claude')), false);

    const given = io();
    assert.equal(await gateInstallCommand(['claude-code', '--yes', '--no-mcp', '--workspace', ws, '--command', '/nowhere/ideal-state'], given.io), 0);
    assert.match(given.err.join('\n'), /warning: --command `\/nowhere\/ideal-state` does not start Ideal State here \(the hook's program `\/nowhere\/ideal-state` is not found/);

    const fine = io();
    assert.equal(await gateInstallCommand(['claude-code', '--yes', '--no-mcp', '--workspace', tmp()], fine.io, { node: process.execPath, cli: BUILT_CLI }), 0);
    assert.match(fine.out.join('\n'), new RegExp(`the hook starts Ideal State ${VERSION.replace(/\./g, '\\.')} as .*the Node and command line that ran this install, by absolute path; checked: it starts`));
  });

  it('gate doctor with a missing program says so with what to do, and does not crash', async () => {
    const ws = tmp();
    assert.equal(await gateInstallCommand(['claude-code', '--yes', '--no-mcp', '--workspace', ws, '--command', '/nowhere/ideal-state'], io().io), 0);
    const r = io();
    assert.equal(await gateDoctorCommand(['--workspace', ws], r.io), 0);
    assert.match(r.out.join('\n'), /^Claude Code: would let the agent stop/m);
    assert.match(r.out.join('\n'), /^ {2}the hook's program `\/nowhere\/ideal-state` is not found \(exit 127.*npm install -g ideal-state/m);
  });
});
