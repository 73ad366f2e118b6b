import * as assert from 'node:assert/strict';
import type { TaskRunner } from '../../../../src/verify/types';
import { verifyTask, verifyTest } from '../../../../src/verify/verifiers/task';
import { WorkspaceTaskRunner } from '../../../../src/verify/workspace-tasks';
import { context, criterion, workspace } from '../../support/verify-helpers';

const TASKS = `{
  // VS Code writes tasks.json with comments
  "version": "2.0.0",
  "tasks": [
    { "label": "build", "type": "shell", "command": "echo built in \${workspaceFolderBasename} && exit 0", },
    { "label": "lint", "type": "shell", "command": "sh", "args": ["-c", "echo lint failed; exit 4"] },
    /* a process task: no shell */
    { "label": "list", "type": "process", "command": "ls", "args": ["-a"], "options": { "cwd": "\${workspaceFolder}/sub" } },
    { "label": "both", "dependsOn": ["build", "lint"] },
    { "label": "current file", "type": "shell", "command": "cat \${file}" },
    { "label": "gulp thing", "type": "gulp", "task": "default" },
    { "label": "npm build", "type": "npm", "script": "compile" },
  ],
}`;

const PACKAGE = JSON.stringify({ name: 'fixture', scripts: { compile: 'echo compiled', test: 'echo tests ran && exit 0', broken: 'exit 7' } });

describe('verify: TASK and TEST outside VS Code', () => {
  const root = workspace({ '.vscode/tasks.json': TASKS, 'package.json': PACKAGE, 'sub/marker.txt': '' });
  const host = { workspaceRoot: root };
  const task = async (name: string) => verifyTask({ type: 'TASK', task: name }, context(host, criterion({ type: 'TASK', task: name })));

  it('runs a shell task from tasks.json (with comments and trailing commas) and passes on exit 0', async () => {
    const v = await task('build');
    assert.equal(v.outcome, 'PASS');
    assert.match(v.evidence, /^task "build" exited 0\nbuilt in ideal-state-verify-/);
  });

  it('fails on a non-zero exit with the output', async () => {
    const v = await task('lint');
    assert.deepEqual([v.outcome, v.failureLabel, v.actual], ['FAIL', 'REQUIREMENT_COVERAGE', 'exit 4']);
    assert.match(v.evidence, /lint failed/);
    assert.equal(v.repairTarget, 'Task "lint" exits 0');
  });

  it('runs a process task in its cwd without a shell', async () => {
    const v = await task('list');
    assert.equal(v.outcome, 'PASS');
    assert.match(v.evidence, /marker\.txt/);
  });

  it('runs npm scripts as "npm: name", by bare name, and npm tasks of tasks.json', async () => {
    assert.equal((await task('npm: compile')).outcome, 'PASS');
    assert.equal((await task('compile')).outcome, 'PASS');
    assert.equal((await task('npm build')).outcome, 'PASS');
    const broken = await task('npm: broken');
    assert.deepEqual([broken.outcome, broken.actual], ['FAIL', 'exit 7']);
  });

  it('is UNKNOWN with the reason for what only VS Code can run', async () => {
    for (const [name, reason] of [
      ['both', /dependsOn/],
      ['current file', /\$\{file\}/],
      ['gulp thing', /type "gulp"/],
    ] as const) {
      const v = await task(name);
      assert.deepEqual([v.outcome, v.failureLabel], ['UNKNOWN', 'UNSUPPORTED_CLAIM'], name);
      assert.match(v.evidence, reason);
    }
  });

  it('fails for a task that does not exist, listing the ones that do', async () => {
    const v = await task('deploy');
    assert.equal(v.outcome, 'FAIL');
    assert.match(v.evidence, /there is no task `deploy`; tasks here: build, lint, list, both, current file, gulp thing, npm build, npm: compile, npm: test, npm: broken/);
  });

  it('TEST runs a task name as a task and anything else as a command', async () => {
    const asTask = await verifyTest({ type: 'TEST', test: 'npm: test' }, context(host, criterion({ type: 'TEST', test: 'npm: test' })));
    assert.match(asTask.evidence, /^task "npm: test" exited 0/);
    const asCommand = await verifyTest({ type: 'TEST', test: 'test -f sub/marker.txt' }, context(host, criterion({ type: 'TEST', test: 'x' })));
    assert.match(asCommand.evidence, /^`test -f sub\/marker\.txt` exited 0/);
    const failing = await verifyTest({ type: 'TEST', test: 'test -f nothing' }, context(host, criterion({ type: 'TEST', test: 'x' })));
    assert.equal(failing.outcome, 'FAIL');
  });

  it('uses the host task runner when there is one (the editor), falling back to a command for TEST', async () => {
    const asked: string[] = [];
    const tasks: TaskRunner = {
      async run(name) {
        asked.push(name);
        return name === 'watch' ? { kind: 'exited', exitCode: 0 } : name === 'slow' ? { kind: 'timeout', timeoutMs: 5 } : { kind: 'not-found', available: ['watch', 'slow'] };
      },
    };
    const h = { workspaceRoot: root, tasks };
    assert.equal((await verifyTask({ type: 'TASK', task: 'watch' }, context(h, criterion({ type: 'TASK', task: 'watch' })))).outcome, 'PASS');
    const slow = await verifyTask({ type: 'TASK', task: 'slow' }, context(h, criterion({ type: 'TASK', task: 'slow' })));
    assert.deepEqual([slow.outcome, slow.failureLabel], ['FAIL', 'EXECUTION_ERROR']);
    const cmd = await verifyTest({ type: 'TEST', test: 'true' }, context(h, criterion({ type: 'TEST', test: 'true' })));
    assert.equal(cmd.outcome, 'PASS');
    assert.deepEqual(asked, ['watch', 'slow', 'true']);
  });

  it('a broken tasks.json is named in the reason', async () => {
    const broken = workspace({ '.vscode/tasks.json': '{ "tasks": [ }' });
    const r = await new WorkspaceTaskRunner(broken).run('build', { signal: new AbortController().signal, timeoutMs: 5000 });
    assert.equal(r.kind, 'cannot-run');
    assert.match((r as { reason: string }).reason, /^\.vscode\/tasks\.json cannot be read/);
  });
});
