import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCommand } from '../../../src/verify/run-command';
import { WorkspaceTaskRunner } from '../../../src/verify/workspace-tasks';
import { isSecretValue, isSecretVariable, redactEvidence, scrubEnvironment } from '../../../src/verify/secret-env';

describe('verify: secrets by value, not only by name', () => {
  it('works the environment out again when it changes: a secret set later is scrubbed and redacted too', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/usr/bin', HOME: '/home/me' };
    assert.deepEqual(scrubEnvironment(env), { PATH: '/usr/bin', HOME: '/home/me' });
    const first = scrubEnvironment(env);
    first.PATH = 'changed by a caller';
    assert.equal(scrubEnvironment(env).PATH, '/usr/bin', 'a caller changing its copy changes nobody else\'s');
    env.LATE_API_TOKEN = 'late-token-value-0123456789';
    env.MIRROR = 'https://me:hunter2hunter2@mirror.example/';
    env.EDITOR = 'vim';
    assert.deepEqual(scrubEnvironment(env), { PATH: '/usr/bin', HOME: '/home/me', EDITOR: 'vim' });
    assert.equal(redactEvidence('saw late-token-value-0123456789 and hunter2hunter2', env).text.includes('late-token-value'), false);
    assert.equal(redactEvidence('saw hunter2hunter2', env).text.includes('hunter2hunter2'), false);
  });

  it('keeps DATABASE_URL=postgres://u:pw@… out of a PRD command, while PATH, HOME and the rest reach it', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'secret-env-'));
    const env = {
      PATH: process.env.PATH,
      HOME: root,
      LANG: 'C.UTF-8',
      NODE_ENV: 'test',
      DATABASE_URL: 'postgres://u:pw@db.example/db',
      HTTPS_PROXY: 'http://me:hunter2@proxy.example:8080',
      SENTRY_DSN: 'https://abcdef0123456789@o1.ingest.sentry.io/5',
      PG_CONNECTION: 'host=db.example user=u password=pw dbname=d',
      PASTED: 'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
      DEPLOY: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----',
      PUBLIC_URL: 'https://example.com/app',
    };
    const r = await runCommand({ command: 'env', cwd: root, timeoutMs: 10_000, env });
    assert.equal(r.kind, 'exited');
    const seen = new Set(r.output.split('\n').map((l) => l.split('=')[0]));
    for (const name of ['PATH', 'HOME', 'LANG', 'NODE_ENV', 'PUBLIC_URL']) assert.ok(seen.has(name), `${name} reaches the command`);
    for (const name of ['DATABASE_URL', 'HTTPS_PROXY', 'SENTRY_DSN', 'PG_CONNECTION', 'PASTED', 'DEPLOY']) assert.ok(!seen.has(name), `${name} does not reach the command`);
    assert.doesNotMatch(r.output, /pw@|hunter2|sk-proj|PRIVATE KEY/);
  });

  it('knows the usual key shapes and leaves ordinary values alone', () => {
    const secrets: [string, string][] = [
      ['X', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz'],
      ['X', `ghp_${'a1'.repeat(18)}`],
      ['X', `github_pat_${'A1b2'.repeat(10)}`],
      ['X', 'xoxb-1234567890-abcdefghij'],
      ['X', 'AKIAIOSFODNN7EXAMPLE'],
      ['X', `glpat-${'x'.repeat(20)}`],
      ['X', `npm_${'a'.repeat(36)}`],
      ['X', `AIza${'b'.repeat(35)}`],
      ['X', `sk_live_${'c'.repeat(24)}`],
      ['X', 'mysql://root:@localhost/db'],
      ['REDIS_URL', 'rediss://default@cache.example:6380'],
      ['MONGO_URI', 'mongodb+srv://app:s3cr3t@cluster0.example.net/db'],
      ['DB_DSN', 'Server=db;Database=x;User Id=u;Password=pw;'],
      ['PIP_EXTRA', 'https://pypi.org/simple https://u:tok@pkgs.example/simple'],
    ];
    for (const [name, value] of secrets) assert.equal(isSecretValue(name, value), true, `${name}=${value}`);
    const ordinary: [string, string][] = [
      ['PATH', '/usr/local/bin:/usr/bin:/bin'],
      ['HOME', '/home/u'],
      ['PWD', '/work'],
      ['LANG', 'sk_SK.UTF-8'],
      ['TERM', 'xterm-256color'],
      ['EDITOR', 'vim'],
      ['npm_config_registry', 'https://registry.npmjs.org/'],
      ['HTTP_PROXY', 'http://proxy.example:3128'],
      ['GIT_URL', 'ssh://github.com/org/repo.git'],
      ['NOTE', 'see https://user@example.com for details'],
      ['SHELL', '/bin/bash'],
      ['SK', 'sk-short'],
    ];
    for (const [name, value] of ordinary) assert.equal(isSecretValue(name, value), false, `${name}=${value}`);
    assert.equal(isSecretVariable('GITHUB_TOKEN', 'anything'), true, 'names still count');
    assert.deepEqual(Object.keys(scrubEnvironment({ PATH: '/bin', DATABASE_URL: 'postgres://u:pw@h/d', KEEP: 'x' })).sort(), ['KEEP', 'PATH']);
  });

  it('judges a 1 MB value, with and without a password at its end', () => {
    const long = `${'a'.repeat(97)}://`.repeat(10_000);
    assert.equal(isSecretValue('BLOB_URL', long), false);
    assert.equal(isSecretValue('BLOB', `${long}u:p@host`), true);
  });

  it('does not fill ${env:DATABASE_URL} into a task of tasks.json when the value holds a password', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'secret-task-'));
    fs.mkdirSync(path.join(root, '.vscode'));
    fs.writeFileSync(path.join(root, '.vscode', 'tasks.json'), JSON.stringify({ version: '2.0.0', tasks: [{ label: 'leak', type: 'shell', command: 'echo ${env:DATABASE_URL} > leak.txt' }, { label: 'fine', type: 'shell', command: 'echo ${env:IDEAL_STATE_TEST_PLAIN} > fine.txt' }] }));
    const saved = { db: process.env.DATABASE_URL, plain: process.env.IDEAL_STATE_TEST_PLAIN };
    process.env.DATABASE_URL = 'postgres://u:pw@db.example/db';
    process.env.IDEAL_STATE_TEST_PLAIN = 'plain-value';
    try {
      const runner = new WorkspaceTaskRunner(root);
      const leak = await runner.run('leak', { signal: new AbortController().signal, timeoutMs: 10_000 });
      assert.equal(leak.kind, 'cannot-run');
      assert.equal(fs.existsSync(path.join(root, 'leak.txt')), false);
      const fine = await runner.run('fine', { signal: new AbortController().signal, timeoutMs: 10_000 });
      assert.notEqual(fine.kind, 'cannot-run');
      assert.equal(fs.readFileSync(path.join(root, 'fine.txt'), 'utf8').trim(), 'plain-value');
    } finally {
      for (const [name, value] of [['DATABASE_URL', saved.db], ['IDEAL_STATE_TEST_PLAIN', saved.plain]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
