import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCron, type Cron } from '../../../../src/app/schedule/cron';
import { crontabLine, loopArgs, onCalendar } from '../../../../src/app/schedule/local';
import { ScheduleSpec } from '../../../../src/app/schedule/schedule';
import { Store } from '../../../../src/store/store';
import { defaultCliStoreFile } from '../../../../src/store/store-paths';
import { runCli } from '../../support/cli-helpers';

/**
 * What `schedule add --local` shows, read by the programs that will run it: systemd's own
 * checker (`systemd-analyze verify` on the unit files as the person saves them, `systemd-analyze
 * calendar` on each OnCalendar, https://www.freedesktop.org/software/systemd/man/latest/systemd-analyze.html)
 * and, for the crontab line, cron's rules (`%` ends the command unless written `\%`, the rest
 * is run by `/bin/sh -c`: crontab(5)) followed by a real `sh`. Both programs are Debian's
 * (systemd, bsdutils/dash): test/harness/setup.mjs installs them with the other test packages.
 */

const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze';

describe('a local schedule, as systemd and sh read it', function () {
  this.timeout(60_000);
  let root: string;
  let workspace: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-schedule-tools-'));
    // A workspace whose path has what each format must escape: a space, a quote, a `%` and a `$`.
    workspace = path.join(root, "it's 100% $HOME");
    fs.mkdirSync(path.join(workspace, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'docs', 'install.md'), '# Install\n\nRun the installer.\n');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const env = () => ({ XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), XDG_STATE_HOME: path.join(root, 'state'), IDEAL_STATE_STATE_DIR: path.join(root, 'state', 'ideal-state'), HOME: root });

  it('the service and timer it shows pass systemd-analyze verify as saved; a broken one does not', async () => {
    assert.ok(fs.existsSync(SYSTEMD_ANALYZE), `${SYSTEMD_ANALYZE} is missing: apt-get install systemd (node test/harness/setup.mjs installs it)`);
    const shown = await runCli(['schedule', 'add', '--workspace', workspace, '--local', '--cron', '*/20 9-17 1,15 * MON-FRI', '--glob', "docs/it's/*.md", '--isc', 'docs.page', '--name', 'office-hours', '--work'], { env: env() });
    assert.equal(shown.code, 0, shown.err);
    const units = path.join(root, 'config', 'systemd', 'user');
    const files = saveUnits(shown.out, units);
    assert.deepEqual(files.map((f) => path.basename(f)), ['ideal-state-office-hours.service', 'ideal-state-office-hours.timer']);
    const verify = (...paths: string[]) => spawnSync(SYSTEMD_ANALYZE, ['verify', '--man=no', ...paths], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, SYSTEMD_LOG_LEVEL: 'warning' } });
    const ok = verify(...files);
    assert.equal(ok.status, 0, `systemd-analyze verify:\n${ok.stderr}${ok.stdout}`);
    assert.doesNotMatch(ok.stderr, /ideal-state-office-hours/, 'no warning about our units');
    // Two calendar events: cron runs on the 1st and 15th or on weekdays, systemd on each event.
    const timer = fs.readFileSync(files[1]!, 'utf8');
    assert.equal((timer.match(/^OnCalendar=/gm) ?? []).length, 2);
    // The check can fail: a quoted WorkingDirectory (what an earlier version wrote) and a missing program are refused.
    const service = fs.readFileSync(files[0]!, 'utf8');
    fs.writeFileSync(files[0]!, service.replace(/^WorkingDirectory=(.*)$/m, 'WorkingDirectory="$1"'));
    const quoted = verify(files[0]!);
    assert.notEqual(quoted.status, 0);
    assert.match(quoted.stderr, /WorkingDirectory= path is not absolute/);
    fs.writeFileSync(files[0]!, service.replace(/^ExecStart="[^"]+"/m, 'ExecStart="/nonexistent/node"'));
    const missing = verify(files[0]!);
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /\/nonexistent\/node is not executable/);
  });

  it('each OnCalendar is an event systemd-analyze calendar reads, firing only at times the cron fires', () => {
    for (const text of ['0 3 * * 1', '*/20 * * * *', '30 2 * * *', '0 9 1 */6 *', '15 8,20 * * SAT,SUN', '0 9 1,15 * 5', '5 4 29 2 *']) {
      const read = parseCron(text);
      assert.ok(read.ok, text);
      for (const event of onCalendar(read.cron)) {
        const r = spawnSync(SYSTEMD_ANALYZE, ['calendar', '--iterations=6', event], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, TZ: 'UTC', LC_ALL: 'C' } });
        assert.equal(r.status, 0, `${text} → "${event}": ${r.stderr}`);
        const times = [...r.stdout.matchAll(/(?:Next elapse|Iter\. #\d+): \w{3} (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) UTC/g)].map((m) => new Date(`${m[1]!.replace(' ', 'T')}Z`));
        assert.equal(times.length, 6, `${event}: ${r.stdout}`);
        for (const t of times) assert.ok(cronFiresAt(read.cron, t), `"${event}" fires at ${t.toISOString()}, which the cron "${text}" does not`);
      }
    }
    const bad = spawnSync(SYSTEMD_ANALYZE, ['calendar', 'Fri *-*-* 25:00:00'], { encoding: 'utf8', timeout: 30_000 });
    assert.notEqual(bad.status, 0, 'the check can fail');
  });

  it('the crontab line, as cron hands it to sh, runs the loop with exactly the words it was given', () => {
    const spec = ScheduleSpec.parse({ name: 'nightly', cron: '30 2 * * *', glob: `docs/100%/it's $(touch pwned)/*.md`, isc: 'docs.page', verifyOnly: false });
    // A stand-in for the command line that writes the words it got, one JSON array.
    const argvScript = path.join(root, "argv 100%.js");
    fs.writeFileSync(argvScript, 'process.stdout.write(JSON.stringify(process.argv.slice(2)));\n');
    const log = path.join(root, 'logs', 'x 100%.log');
    fs.mkdirSync(path.dirname(log), { recursive: true });
    const line = crontabLine(spec, { node: process.execPath, cli: argvScript, workspace, logFile: log });
    const fields = line.split(/\s+/).slice(0, 5).join(' ');
    assert.equal(fields, '30 2 * * *');
    const command = cronCommand(line);
    assert.equal(command.stdin, '', 'no unescaped % cut the command');
    const sh = spawnSync('/bin/sh', ['-c', command.command], { cwd: root, encoding: 'utf8', timeout: 30_000 });
    assert.equal(sh.status, 0, sh.stderr);
    assert.deepEqual(JSON.parse(fs.readFileSync(log, 'utf8')), loopArgs(spec, workspace));
    assert.equal(fs.existsSync(path.join(root, 'pwned')), false, 'nothing in the glob ran');
  });

  it('the crontab line `schedule add --local` shows, run as cron runs it, runs the loop, recorded as started by that schedule', async () => {
    const add = await runCli(['schedule', 'add', '--workspace', workspace, '--local', '--cron', '30 2 * * *', '--glob', 'docs/*.md', '--isc', 'docs.page', '--name', 'nightly'], { env: env() });
    assert.equal(add.code, 0, add.err);
    const line = add.out.split('\n').find((l) => l.startsWith('30 2 * * * '));
    assert.ok(line, add.out);
    // cron runs the command with sh, in the person's home, with a small environment of its own.
    const command = cronCommand(line).command;
    const sh = spawnSync('/bin/sh', ['-c', command], { cwd: root, encoding: 'utf8', timeout: 50_000, env: { ...env(), PATH: '/usr/bin:/bin', SHELL: '/bin/sh' } });
    const log = command.match(/>> ('[^']*'|\S+)/)?.[1]?.replace(/^'|'$/g, '').replace(/'\\''/g, "'");
    assert.ok(log && fs.existsSync(log), `the line's log file: ${sh.stderr}\n${command}`);
    const said = fs.readFileSync(log, 'utf8');
    // The loop's own exit: 1 is a loop that ended short of COMPLETE (the page fails the template's criteria).
    assert.ok(sh.status === 0 || sh.status === 1, `exit ${sh.status}: ${sh.stderr}\n${said}`);
    const store = await Store.open({ file: defaultCliStoreFile(workspace, env()) });
    try {
      const loops = store.loops.list();
      assert.equal(loops.length, 1, said);
      assert.deepEqual(loops[0]!.startedBy, { who: 'schedule', schedule: 'nightly' });
    } finally {
      store.close();
    }
  });
});

/** The files the output of `schedule add --local` says to save, saved where it says (its `# PATH` headings). */
function saveUnits(out: string, units: string): string[] {
  const parts = out.split(/^# (\/\S+\.(?:service|timer))\n/m);
  const files: string[] = [];
  for (let i = 1; i < parts.length; i += 2) {
    const file = parts[i]!;
    assert.equal(path.dirname(file), units);
    fs.mkdirSync(units, { recursive: true });
    fs.writeFileSync(file, parts[i + 1]!);
    files.push(file);
  }
  return files;
}

/**
 * What cron runs of a crontab entry (crontab(5)): the text after the five time fields; an
 * unescaped `%` becomes a line break and what follows it standard input; `\%` is a `%`.
 */
function cronCommand(line: string): { command: string; stdin: string } {
  const rest = line.replace(/^\s*(\S+\s+){5}/, '');
  let command = '';
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '\\' && rest[i + 1] === '%') {
      command += '%';
      i++;
    } else if (rest[i] === '%') return { command, stdin: rest.slice(i + 1) };
    else command += rest[i];
  }
  return { command, stdin: '' };
}

/** Whether cron would fire at `t` (UTC): minute, hour and month match, and the day of month or the day of week (either, when both are set). */
function cronFiresAt(cron: Cron, t: Date): boolean {
  const [minute, hour, dom, month, dow] = cron.fields;
  const has = (f: Cron['fields'][number], v: number) => f.any || f.values.includes(v);
  const days = dom!.any || dow!.any ? has(dom!, t.getUTCDate()) && has(dow!, t.getUTCDay()) : has(dom!, t.getUTCDate()) || has(dow!, t.getUTCDay());
  return t.getUTCSeconds() === 0 && has(minute!, t.getUTCMinutes()) && has(hour!, t.getUTCHours()) && has(month!, t.getUTCMonth() + 1) && days;
}
