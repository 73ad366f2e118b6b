import * as assert from 'node:assert/strict';
import { defineCommand, USAGE_EXIT } from '../../../../src/cli/shared/command';
import { main } from '../../../../src/cli/start/main';

function captured() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
}

describe('command line: one definition for arguments, usage and exit codes', () => {
  const SAMPLE = defineCommand({ name: 'ideal-state sample', usage: '  sample [--count N]   a sample', options: { count: { type: 'string' } } });

  it('reads options and words', () => {
    const { io } = captured();
    const parsed = SAMPLE.parse(['--count', '3', 'word'], io);
    assert.ok(typeof parsed !== 'number');
    assert.equal(parsed.values.count, '3');
    assert.deepEqual(parsed.positionals, ['word']);
  });

  it('an unknown option: what is wrong and the usage on standard error, exit 2', () => {
    const { io, out, err } = captured();
    assert.equal(SAMPLE.parse(['--frob'], io), USAGE_EXIT);
    assert.deepEqual(out, []);
    assert.match(err.join('\n'), /^ideal-state sample: Unknown option '--frob'.*\n\n {2}sample \[--count N\]/s);
  });

  it('--help and -h: the usage on standard output under a Usage line, exit 0', () => {
    for (const flag of ['--help', '-h']) {
      const { io, out, err } = captured();
      assert.equal(SAMPLE.parse([flag], io), 0);
      assert.deepEqual(err, []);
      assert.equal(out.join('\n'), 'Usage:\n  sample [--count N]   a sample');
    }
  });

  it('a value it cannot take: what is wrong on standard error without the usage, exit 2', () => {
    const { io, out, err } = captured();
    assert.equal(SAMPLE.refuse(io, '--count takes a whole number, not "x"'), USAGE_EXIT);
    assert.deepEqual(out, []);
    assert.deepEqual(err, ['ideal-state sample: --count takes a whole number, not "x"']);
  });

  it('a command that takes no words refuses one as a usage error', () => {
    const NONE = defineCommand({ name: 'ideal-state none', usage: 'Usage: ideal-state none', options: {}, positionals: false });
    const { io, err } = captured();
    assert.equal(NONE.parse(['stray'], io), USAGE_EXIT);
    assert.match(err.join('\n'), /^ideal-state none: Unexpected argument 'stray'/);
  });
});

describe('command line: main dispatches through its table', () => {
  it('a command answers its own --help with its own usage, exit 0 (loop, models, trust, run, dashboard, schedule, notify)', async () => {
    const own = [['loop', /loop --glob GLOB --isc TYPE/], ['models', /models check \[--effort LEVEL\]/], ['trust', /trust --list/], ['run', /run --resume RUN_ID/], ['dashboard', /^Usage: ideal-state dashboard --out DIR/], ['schedule', /schedule add --cron CRON/], ['notify', /notify test \[--event EVENT\]/]] as const;
    for (const [command, line] of own) {
      const { io, out } = captured();
      assert.equal(await main([command, '--help'], io), 0, command);
      assert.match(out.join('\n'), line, command);
      assert.doesNotMatch(out.join('\n'), /Usage: ideal-state <command>/, `${command} prints its own usage, not the whole`);
    }
  });

  it('the gate, its install, doctor and blocked, verify, dashboard, schedule and notify answer --help with their own usage, exit 0', async () => {
    const cases = [
      [['gate'], /^Usage: ideal-state gate \[options\][\s\S]*Usage: ideal-state gate install <host>/],
      [['gate', 'install'], /^Usage: ideal-state gate install <host> \[options\]/],
      [['gate', 'doctor'], /^Usage: ideal-state gate doctor/],
      [['gate', 'blocked'], /^Usage: ideal-state gate blocked --reason TEXT/],
      [['verify'], /^Usage: ideal-state verify <PRD.md \| ISA.md>/],
      [['dashboard'], /^Usage: ideal-state dashboard --out DIR/],
      [['schedule'], /^Usage:\n {2}schedule add --cron CRON/],
      [['notify'], /^Usage:\n {2}notify check/],
    ] as const;
    for (const [words, usage] of cases) {
      const { io, out, err } = captured();
      assert.equal(await main([...words, '--help'], io), 0, words.join(' '));
      assert.match(out.join('\n'), usage, words.join(' '));
      assert.deepEqual(err, [], words.join(' '));
    }
  });

  it('the gate\'s commands read their own options: an unknown one is a usage error naming the command, exit 2', async () => {
    for (const words of [['gate'], ['gate', 'install'], ['gate', 'doctor'], ['gate', 'blocked'], ['verify']]) {
      const { io, out, err } = captured();
      assert.equal(await main([...words, '--frob'], io), USAGE_EXIT, words.join(' '));
      assert.deepEqual(out, []);
      assert.match(err.join('\n'), new RegExp(`^ideal-state ${words.join(' ')}: Unknown option '--frob'[\\s\\S]*\\n\\nUsage: ideal-state ${words.join(' ')}`), words.join(' '));
    }
  });

  it('dashboard, schedule and notify: an unknown option or a missing argument says so with the command\'s usage, exit 2', async () => {
    for (const [argv, said, usage] of [[['dashboard', '--frob'], /^ideal-state dashboard: Unknown option '--frob'/, /Usage: ideal-state dashboard/], [['dashboard'], /^ideal-state dashboard: --out DIR is required/, /Usage: ideal-state dashboard/], [['dashboard', '--out', 'x', 'stray'], /^ideal-state dashboard: Unexpected argument 'stray'/, /Usage: ideal-state dashboard/], [['schedule', '--frob'], /^ideal-state schedule: Unknown option '--frob'/, /schedule add --cron/], [['notify', 'shout'], /^ideal-state notify: say check or test/, /notify check/]] as const) {
      const { io, out, err } = captured();
      assert.equal(await main([...argv], io), USAGE_EXIT, argv.join(' '));
      assert.deepEqual(out, []);
      assert.match(err.join('\n'), said, argv.join(' '));
      assert.match(err.join('\n'), usage, argv.join(' '));
    }
  });


  it('two-word commands before one-word ones: criteria pending is its own command', async () => {
    const { io, out } = captured();
    assert.equal(await main(['criteria', 'pending', '--help'], io), 0);
    assert.match(out.join('\n'), /^Usage: ideal-state criteria pending/);
  });

  it('a look-up takes the whole command line\'s options before its words, and no more words than it names', async () => {
    const { io, out } = captured();
    assert.equal(await main(['--help'], io), 0);
    assert.match(out.join('\n'), /^Usage: ideal-state <command>/);
    const extra = captured();
    assert.equal(await main(['--json', 'effort', 'extra'], extra.io), USAGE_EXIT);
    assert.match(extra.err.join('\n'), /unknown command "effort extra"/);
    const none = captured();
    assert.equal(await main([], none.io), USAGE_EXIT);
    assert.match(none.err.join('\n'), /^Usage: ideal-state <command>/);
  });
});
