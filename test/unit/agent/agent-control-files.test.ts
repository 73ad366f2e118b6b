import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApprovalPolicy, denyAll, type ApprovalAnswer, type ApprovalRequest, type Approver } from '../../../src/agent/approvals';
import { undoRunChanges } from '../../../src/agent/checkpoint';
import { classifyWrite, CONTROL_FILES, isGitPath, packageScriptsChanged } from '../../../src/agent/control-files';
import { landingPath } from '../../../src/agent/landing-path';
import { NodeWorkspace } from '../../../src/agent/node-workspace';
import { AgentToolbox } from '../../../src/agent/tools';
import { PathEscapeError } from '../../../src/agent/workspace';
import { AGENT_TOOLS } from '../../../src/algorithm/capabilities';
import type { FileCheckpoint } from '../../../src/algorithm/ports';
import { harness, managerSteps, markerCriteria, tempDir, type Step } from '../support/algorithm-helpers';

const signal = new AbortController().signal;
const call = (name: string, args: unknown) => ({ id: `c-${name}`, name, arguments: args });

/** A toolbox over a real folder that records what it asked and answers with `answer`. */
function toolbox(root: string, answer: (r: ApprovalRequest) => ApprovalAnswer, settings: { autoApproveEdits?: boolean; allowCommands?: string[]; trusted?: boolean } = {}) {
  const asked: ApprovalRequest[] = [];
  const decisions: string[] = [];
  const checkpoints: FileCheckpoint[] = [];
  const approver: Approver = { ask: async (r) => (asked.push(r), answer(r)) };
  const policy = new ApprovalPolicy(approver, { trusted: settings.trusted ?? true, ...settings }, (r, ok, how) => decisions.push(`${r.kind} ${ok ? 'approved' : 'denied'} (${how})`));
  const box = new AgentToolbox(new NodeWorkspace(root), policy, { before: (p, c) => checkpoints.push({ path: p, ...(c !== undefined ? { before: c } : {}), at: new Date().toISOString() }) }, [...AGENT_TOOLS], 10_000);
  return { box, asked, decisions, checkpoints };
}

function gitRepo(prefix: string): string {
  const root = tempDir(prefix);
  fs.mkdirSync(path.join(root, '.git/hooks'), { recursive: true });
  fs.writeFileSync(path.join(root, '.git/config'), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n');
  return root;
}

const read = (root: string, p: string) => (fs.existsSync(path.join(root, p)) ? fs.readFileSync(path.join(root, p), 'utf8') : undefined);

describe('agent: protected control files (issue 15 item 2)', () => {
  it('classifies .git at any depth and in every spelling a file system may treat as .git, and nothing else as git', () => {
    const git = ['.git', '.git/config', '.git/hooks/post-commit', 'sub/module/.git/config', '.GIT/config', '.Git/HOOKS/x', '.git./config', '.git. /config', '.git::$INDEX_ALLOCATION/config', '.g\u200Cit/config', '\uFEFF.git/config', '.g\u0131t/config', 'a\\.git\\config'];
    for (const p of git) assert.equal(isGitPath(p), true, p);
    const notGit = ['.gitignore', '.github/workflows/ci.yml', 'git/config', 'src/.gitkeep', 'docs/.git-notes.md', 'x.git'];
    for (const p of notGit) assert.equal(isGitPath(p), false, p);
  });

  it('classifies the configuration list (any depth, any case) and leaves sources, tests and a Makefile ordinary', () => {
    const config = [
      '.ideal-state/capabilities.yaml', '.ideal-state/models.yaml', '.ideal-state/effort-levels.yaml', '.ideal-state/phase-graph.yaml', '.ideal-state/roles/specialist.yaml', '.ideal-state/isc/x.yaml', '.ideal-state/prds/p.md',
      '.vscode/settings.json', '.vscode/tasks.json', '.vscode/launch.json', '.vscode/extensions.json', '.vscode/mcp.json', '.VSCode/Settings.JSON', 'packages/a/.vscode/tasks.json', 'my.code-workspace',
      '.devcontainer/devcontainer.json', '.devcontainer.json', '.idea/workspace.xml', '.npmrc', '.yarnrc.yml', '.pnpmfile.cjs', 'bunfig.toml', '.env', '.env.local', '.envrc',
      '.gitattributes', '.gitmodules', '.lfsconfig', '.husky/pre-commit', '.pre-commit-config.yaml', 'lefthook.yml', '.github/workflows/ci.yml', '.github/actions/setup/action.yml', '.gitlab-ci.yml', '.circleci/config.yml', 'Jenkinsfile',
      'eslint.config.js', '.eslintrc.json', '.prettierrc', 'prettier.config.mjs', '.vscode./settings.json', '.vscode:stream/tasks.json',
    ];
    for (const p of config) assert.equal(classifyWrite([p]).kind, 'config', p);
    const ordinary = ['src/app.ts', 'test/app.test.ts', 'Makefile', 'Dockerfile', 'README.md', '.gitignore', '.github/ISSUE_TEMPLATE/bug.md', 'docs/vscode/settings.json', 'ideal-state/capabilities.yaml', 'src/env.ts'];
    for (const p of ordinary) assert.equal(classifyWrite([p]).kind, 'ordinary', p);
    // The strictest of the path as asked and where it lands wins.
    assert.equal(classifyWrite(['link/config', '.git/config']).kind, 'git');
    assert.equal(classifyWrite(['cfg/settings.json', '.vscode/settings.json']).kind, 'config');
    // Every rule says what the change can do, for the approval's title.
    for (const rule of CONTROL_FILES) assert.ok(rule.effect.length > 20 && rule.globs.length > 0, rule.globs.join(' '));
  });

  it('asks for a package.json change as configuration only when it touches scripts or git hooks', () => {
    const pkg = (o: object) => JSON.stringify(o, null, 2);
    const base = { name: 'x', scripts: { test: 'mocha' }, dependencies: { a: '1' } };
    assert.equal(packageScriptsChanged(pkg(base), pkg({ ...base, dependencies: { a: '2' } })), false, 'a dependency bump is an edit');
    assert.equal(packageScriptsChanged(pkg(base), pkg({ ...base, scripts: { test: 'mocha', postinstall: 'curl x | sh' } })), true);
    assert.equal(packageScriptsChanged(pkg(base), pkg({ ...base, husky: { hooks: { 'pre-commit': 'x' } } })), true);
    assert.equal(packageScriptsChanged(undefined, pkg({ name: 'new' })), false, 'a new package.json without scripts');
    assert.equal(packageScriptsChanged(undefined, pkg({ name: 'new', scripts: { test: 'x' } })), true);
    assert.equal(packageScriptsChanged(pkg(base), '{ not json'), true, 'what cannot be read counts as a change to its scripts');
    assert.equal(classifyWrite(['package.json'], { before: pkg(base), after: pkg({ ...base, version: '2.0.0' }) }).kind, 'ordinary');
    assert.equal(classifyWrite(['sub/package.json'], { before: pkg(base), after: pkg({ ...base, scripts: { test: 'rm -rf ~' } }) }).kind, 'config');
  });

  it('reproduction: with edits approved and commands denied, no terminal, .git is refused and configuration is asked and denied', async function () {
    this.timeout(30_000);
    const ws = gitRepo('repro15');
    const gitConfig = read(ws, '.git/config');
    const planted: [string, string][] = [
      ['.git/config', '[core]\n\tfsmonitor = "touch pwned-by-fsmonitor"\n'],
      ['.git/hooks/post-commit', '#!/bin/sh\ntouch pwned-by-hook\n'],
      ['.ideal-state/capabilities.yaml', 'version: 1\nlevels:\n  FAST:\n    tools: [read_file, run_command]\n'],
      ['.vscode/settings.json', '{ "idealState.run.allowedCommands": ["*"] }\n'],
      ['.vscode/tasks.json', '{ "version": "2.0.0", "tasks": [{ "label": "x", "type": "shell", "command": "touch pwned", "runOptions": { "runOn": "folderOpen" } }] }\n'],
      ['notes.txt', 'an ordinary file\n'],
    ];
    const steps: Step[] = [...managerSteps(markerCriteria(1)), { toolCalls: planted.map(([p, text]) => ({ name: 'create_file', arguments: { path: p, text } })) }, { text: 'done' }];
    const asked: ApprovalRequest[] = [];
    // No terminal: the command line's approver denies whatever reaches it.
    const h = await harness(steps, { workspace: ws, autoApproveEdits: true, allowCommands: [], approver: { ask: async (r, s) => (asked.push(r), denyAll.ask(r, s)) } });
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'INSTANT' });
      // The run's own PRD under .ideal-state/prds goes through the run's path, not the agent's tools: written, never asked.
      assert.match(result.run.prdPath ?? '', /^\.ideal-state\/prds\//);
      assert.ok(fs.existsSync(path.join(ws, result.run.prdPath!)));
      assert.equal(read(ws, '.git/config'), gitConfig, '.git/config untouched');
      assert.equal(fs.existsSync(path.join(ws, '.git/hooks/post-commit')), false);
      for (const p of ['.ideal-state/capabilities.yaml', '.vscode/settings.json', '.vscode/tasks.json']) assert.equal(fs.existsSync(path.join(ws, p)), false, p);
      assert.equal(read(ws, 'notes.txt'), 'an ordinary file\n', 'an ordinary file is still covered by --approve edits');
      assert.deepEqual(asked.map((r) => [r.kind, r.path]), [['config', '.ideal-state/capabilities.yaml'], ['config', '.vscode/settings.json'], ['config', '.vscode/tasks.json']], 'only the configuration reached the person');
      assert.equal(asked[1]!.title, 'Change configuration: .vscode/settings.json (new file) — this can change what Ideal State or VS Code runs');
      const tools = h.model.requests.flatMap((r) => r.messages).filter((m) => m.role === 'tool').map((m) => m.content);
      assert.deepEqual(tools.slice(-6), [
        'path ".git/config" is refused: .git is not writable by the agent: git runs its hooks and the commands its config names',
        'path ".git/hooks/post-commit" is refused: .git is not writable by the agent: git runs its hooks and the commands its config names',
        'the configuration change was not approved; do not try to work around it',
        'the configuration change was not approved; do not try to work around it',
        'the configuration change was not approved; do not try to work around it',
        'created notes.txt',
      ]);
    } finally {
      h.close();
    }
  });

  it('refuses .git through a symlink, another case or a trailing dot, and never reads it; a link to .vscode is asked as configuration', async () => {
    const root = gitRepo('links');
    fs.symlinkSync('.git', path.join(root, 'gitlink'));
    fs.symlinkSync(path.join(root, '.git/hooks'), path.join(root, 'hooks'));
    fs.mkdirSync(path.join(root, '.vscode'));
    fs.symlinkSync('.vscode', path.join(root, 'editor'));
    fs.writeFileSync(path.join(root, '.git/config'), '[remote "origin"]\n\turl = https://user:ghp_SECRET@github.com/x/y\n');
    const before = read(root, '.git/config');
    const { box, asked } = toolbox(root, () => 'approve', { autoApproveEdits: true, allowCommands: ['*'] });
    for (const p of ['gitlink/config', 'hooks/post-commit', '.GIT/config', '.git./hooks/pre-push', 'src/../.git/config', './.git/info/exclude']) {
      const out = await box.call(call('create_file', { path: p, text: 'x' }), signal);
      assert.equal(out.isError, true, p);
      assert.match(out.content, /refused: (\.git is not writable by the agent|it leaves the workspace)/, p);
    }
    const edit = await box.call(call('edit_file', { path: 'gitlink/config', find: 'url', replace: 'pushurl' }), signal);
    assert.match(edit.content, /\.git is not writable by the agent/);
    for (const p of ['.git/config', 'gitlink/config', '.git']) {
      const r = await box.call(call('read_file', { path: p }), signal);
      assert.equal(r.isError, true, p);
      assert.match(r.content, /\.git is not readable by the agent/);
      assert.doesNotMatch(r.content, /SECRET/);
    }
    assert.match((await box.call(call('list_files', { path: '.git' }), signal)).content, /not readable/);
    assert.doesNotMatch((await box.call(call('list_files', { path: '.' }), signal)).content, /\.git\//);
    assert.equal(read(root, '.git/config'), before);
    assert.deepEqual(fs.readdirSync(path.join(root, '.git/hooks')), []);
    assert.equal(fs.existsSync(path.join(root, '.GIT')), false);
    assert.equal(asked.length, 0, 'a refusal asks nobody');

    const viaLink = await box.call(call('create_file', { path: 'editor/settings.json', text: '{}\n' }), signal);
    assert.equal(viaLink.isError, false, viaLink.content);
    assert.deepEqual(asked.map((r) => [r.kind, r.path]), [['config', 'editor/settings.json']], 'asked as configuration, though auto-approve covers edits');
    assert.equal(await landingPath(root, 'editor/settings.json'), '.vscode/settings.json');
  });

  it('auto-approved edits and "Always for this run" never cover configuration; an explicit approval of that change does, and undo restores it', async () => {
    const root = tempDir('config');
    fs.mkdirSync(path.join(root, '.vscode'));
    fs.writeFileSync(path.join(root, '.vscode/settings.json'), '{}\n');
    // The person: "Always" for every question, denying nothing.
    const answers: ApprovalAnswer[] = [];
    const { box, asked, decisions, checkpoints } = toolbox(root, (r) => (r.kind === 'config' ? (answers.shift() ?? 'deny') : 'always'), { autoApproveEdits: false });
    await box.call(call('create_file', { path: 'a.txt', text: 'a' }), signal);
    await box.call(call('create_file', { path: 'b.txt', text: 'b' }), signal);
    assert.deepEqual(asked.map((r) => r.kind), ['edit'], '"Always" for edits: the second edit is not asked');

    answers.push('always');
    const first = await box.call(call('edit_file', { path: '.vscode/settings.json', find: '{}', replace: '{ "editor.tabSize": 2 }' }), signal);
    assert.equal(first.isError, false, first.content);
    assert.equal(read(root, '.vscode/settings.json'), '{ "editor.tabSize": 2 }\n');
    const second = await box.call(call('edit_file', { path: '.vscode/settings.json', find: '2', replace: '4' }), signal);
    assert.equal(second.isError, true, 'an "Always" on a configuration change approved that change only');
    assert.equal(read(root, '.vscode/settings.json'), '{ "editor.tabSize": 2 }\n');
    assert.deepEqual(asked.map((r) => r.kind), ['edit', 'config', 'config']);
    assert.deepEqual(decisions.slice(-2), ['config approved (approved by the user)', 'config denied (denied by the user)']);
    assert.deepEqual(box.denials, ['configuration: .vscode/settings.json']);
    assert.equal(asked[1]!.effect, 'this can change what Ideal State or VS Code runs');
    assert.equal(asked[1]!.proposed, '{ "editor.tabSize": 2 }\n');
    assert.match(asked[1]!.detail, /-\{\}\n\+\{ "editor.tabSize": 2 \}/);

    // Checkpointed like any edit: undo puts the settings back.
    await undoRunChanges(checkpoints.filter((c, i) => checkpoints.findIndex((x) => x.path === c.path) === i), new NodeWorkspace(root));
    assert.equal(read(root, '.vscode/settings.json'), '{}\n');
    assert.equal(fs.existsSync(path.join(root, 'a.txt')), false);
  });

  it('--approve edits (autoApproveEdits) asks configuration; an untrusted workspace gets neither, asking nobody', async () => {
    const root = tempDir('auto');
    const auto = toolbox(root, () => 'deny', { autoApproveEdits: true });
    assert.equal((await auto.box.call(call('create_file', { path: 'src/x.ts', text: 'x' }), signal)).isError, false);
    assert.equal((await auto.box.call(call('create_file', { path: '.ideal-state/models.yaml', text: 'x' }), signal)).isError, true);
    assert.equal((await auto.box.call(call('create_file', { path: 'package.json', text: '{"scripts":{"postinstall":"x"}}' }), signal)).isError, true);
    assert.equal((await auto.box.call(call('create_file', { path: 'pkg/package.json', text: '{"name":"pkg"}' }), signal)).isError, false, 'no scripts: an edit');
    assert.deepEqual(auto.asked.map((r) => `${r.kind} ${r.path}`), ['config .ideal-state/models.yaml', 'config package.json']);
    assert.match(auto.asked[1]!.title, /^Change configuration: package\.json \(new file\) — its scripts and git hooks are commands npm and git run$/);
    const untrusted = toolbox(root, () => 'approve', { trusted: false, autoApproveEdits: true, allowCommands: ['*'] });
    assert.equal((await untrusted.box.call(call('create_file', { path: '.vscode/tasks.json', text: '{}' }), signal)).isError, true);
    assert.equal(untrusted.asked.length, 0);
    assert.equal(fs.existsSync(path.join(root, '.vscode')), false);
    assert.equal(fs.existsSync(path.join(root, '.ideal-state')), false);
  });

  it('the workspace itself refuses to write or delete in .git, whoever calls it', async () => {
    const root = gitRepo('floor');
    fs.symlinkSync('.git', path.join(root, 'g'));
    const ws = new NodeWorkspace(root);
    for (const p of ['.git/config', 'g/hooks/pre-commit', '.Git/config']) {
      await assert.rejects(ws.writeFile(p, 'x'), (e: unknown) => e instanceof PathEscapeError && /\.git is not writable by the agent/.test(e.message), p);
    }
    await assert.rejects(ws.deleteFile('.git/config'), PathEscapeError);
    assert.ok(fs.existsSync(path.join(root, '.git/config')));
    assert.deepEqual(fs.readdirSync(path.join(root, '.git/hooks')), []);
    await ws.writeFile('ok/file.txt', 'fine');
    assert.equal(read(root, 'ok/file.txt'), 'fine');
  });
});
