// The workspace bench/gate.mjs times: a small source tree and a PRD of 10 criteria (4 Grep,
// 3 Read, 3 `node -e` commands) that all pass, the commands allowed in the committed
// allow-list (as CI and a stop hook have no terminal to ask). Also the same 10 checks as plain
// shell commands, and the generated tree of many small files the search is timed on.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PRD_FILE = '.ideal-state/prds/PRD-20261126-bench.md';

const GREPS = [
  { pattern: 'export function handler7\\b', glob: 'src/**' },
  { pattern: 'X-Request-Id', glob: 'src/**' },
  { pattern: 'class SettingsStore', glob: 'src/**' },
  { pattern: 'TODO\\(release\\)', glob: 'docs/**' },
];
const READS = [
  { path: 'README.md', contains: 'Install' },
  { path: 'docs/guide.md', contains: 'Configuration' },
  { path: 'package.json', contains: '"name": "bench-app"' },
];
const COMMANDS = [
  `node -e "require('fs').statSync('package.json')"`,
  `node -e "JSON.parse(require('fs').readFileSync('package.json','utf8'))"`,
  `node -e "process.exit(require('fs').existsSync('src') ? 0 : 1)"`,
];

/** A workspace of `files` source files with the PRD and the allow-list; returns its folder. */
export function makeGateWorkspace(dir, files) {
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  const body = Array.from({ length: 30 }, (_, i) => `export function handler${i}(request) { return request.body?.items?.map((x) => x * ${i}) ?? []; }`).join('\n');
  for (let i = 0; i < files; i++) {
    const extra = i === files - 1 ? '\nexport class SettingsStore {}\n// X-Request-Id set here\n' : '';
    write(`src/module-${Math.floor(i / 100)}/file-${i % 100}.ts`, `${body}${extra}\n`);
  }
  write('.gitignore', 'build/\n');
  for (let i = 0; i < 50; i++) write(`build/out-${i}.js`, `${body}\n// X-Request-Id in ignored output\n`);
  write('README.md', '# Bench app\n\n## Install\n\nnpm install\n');
  write('docs/guide.md', '# Guide\n\n## Configuration\n\nTODO(release): document the flags\n');
  write('package.json', `${JSON.stringify({ name: 'bench-app', version: '1.0.0' }, null, 2)}\n`);
  write('.ideal-state/verify-commands.yaml', `commands:\n${COMMANDS.map((c) => `  - ${JSON.stringify(c)}`).join('\n')}\n`);
  const lines = [
    ...GREPS.map((g, i) => `- [ ] ISC-${i + 1}: Source holds the expected marker number ${i + 1} | Verify: Grep: ${g.pattern} | glob: ${g.glob}`),
    ...READS.map((r, i) => `- [ ] ISC-${i + 5}: Document ${r.path} holds its expected section | Verify: Read: ${r.path} | contains: ${r.contains}`),
    ...COMMANDS.map((c, i) => `- [ ] ISC-${i + 8}: Package manifest check number ${i + 1} succeeds | Verify: CLI: ${c}`),
  ];
  write(
    PRD_FILE,
    `---\nprd: true\nid: PRD-20261126-bench\nstatus: IN_PROGRESS\neffort_level: STANDARD\ncreated: 2026-11-26\nupdated: 2026-11-26\niteration: 0\nmax_iterations: 2\n---\n\n# Bench app is done\n\n## Problem Space\nA stand-in workspace for the gate benchmark.\n\n## Ideal State Criteria\n${lines.join('\n')}\n\n## LOG\n`,
  );
  return dir;
}

/** The same 10 checks as plain shell commands (rg, grep, node -e), run in the workspace. */
export function plainChecks(rg) {
  const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
  return [
    ...GREPS.map((g) => `${q(rg)} -q --no-require-git -e ${q(g.pattern)} ${g.glob.split('/')[0]}`),
    ...READS.map((r) => `grep -qF -e ${q(r.contains)} ${q(r.path)}`),
    ...COMMANDS,
  ];
}

/**
 * The same 10 checks as the least a cold hook could do (bench/harness/gate-floor.cjs): the
 * commands through `sh -c` as the gate runs them, ripgrep started directly for each Grep
 * (scoped by its glob's folder), the Reads in the process. Commands first, as the gate starts them.
 */
export function floorJobs(rg) {
  return [
    ...COMMANDS.map((command) => ({ kind: 'command', command })),
    ...GREPS.map((g) => ({ kind: 'grep', rg, args: ['-q', '--no-require-git', '-e', g.pattern, g.glob.split('/')[0]] })),
    ...READS.map((r) => ({ kind: 'read', path: r.path, contains: r.contains })),
  ];
}

/**
 * `count` small files in folders of 100 (source-like lines), one in 997 with the marker,
 * a .gitignore'd folder with the marker in each file; returns the matching lines expected.
 */
export function makeSearchTree(dir, count, marker) {
  const body = Array.from({ length: 12 }, (_, i) => `export const value${i} = compute(${i}, 'setting-${i}');`).join('\n');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '.gitignore'), 'build/\n*.tmp\n');
  let matches = 0;
  for (let d = 0; d * 100 < count; d++) {
    const folder = path.join(dir, 'src', `m${d}`);
    fs.mkdirSync(folder, { recursive: true });
    for (let f = 0; f < 100 && d * 100 + f < count; f++) {
      const n = d * 100 + f;
      const hit = n % 997 === 0;
      if (hit) matches++;
      fs.writeFileSync(path.join(folder, `f${f}.ts`), hit ? `${body}\n// ${marker} (${n})\n` : `${body}\n`);
    }
  }
  fs.mkdirSync(path.join(dir, 'build'), { recursive: true });
  for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(dir, 'build', `o${i}.js`), `// ${marker}\n`);
  return matches;
}

/**
 * A tree of the same shape as microsoft/vscode-extension-samples (about 1,200 files): about a
 * hundred sample folders, each with package.json, tsconfig.json, README.md, a .vscode folder, an
 * eslint config and a src folder of TypeScript; a root README, .gitignore'd node_modules and out
 * folders. Generated, never committed. Returns the PRD (12 criteria: 8 Grep, 4 Read) that
 * `verify` is timed on, relative to the tree; every criterion passes.
 */
export function makeSamplesTree(dir, samples = 120) {
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  write('.gitignore', 'node_modules/\nout/\n*.vsix\n');
  write('README.md', `# VS Code Extension Samples\n\n| Sample | API |\n| --- | --- |\n${Array.from({ length: samples }, (_, i) => `| sample-${i} | vscode.commands |`).join('\n')}\n\n## Prerequisites\n\nnpm install\n`);
  write('.github/workflows/ci.yml', 'name: CI\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm run compile\n');
  const apis = ['commands', 'window', 'workspace', 'languages', 'debug', 'tasks', 'scm', 'authentication'];
  for (let s = 0; s < samples; s++) {
    const name = `sample-${s}`;
    const api = apis[s % apis.length];
    write(`${name}/package.json`, `${JSON.stringify({ name, displayName: `Sample ${s}`, version: '0.0.1', engines: { vscode: '^1.74.0' }, activationEvents: [], main: './out/extension.js', contributes: { commands: [{ command: `${name}.helloWorld`, title: 'Hello World' }] }, scripts: { compile: 'tsc -p ./', lint: 'eslint' }, devDependencies: { '@types/vscode': '^1.74.0', typescript: '^5.4.0' } }, null, 2)}\n`);
    write(`${name}/tsconfig.json`, `${JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'ES2022', outDir: 'out', lib: ['ES2022'], sourceMap: true, rootDir: 'src', strict: true } }, null, 2)}\n`);
    write(`${name}/README.md`, `# Sample ${s}\n\nThis sample shows the vscode.${api} API.\n\n## Running the Sample\n\n- Run \`npm install\`\n- F5 to start debugging\n`);
    write(`${name}/.vscode/launch.json`, `${JSON.stringify({ version: '0.2.0', configurations: [{ name: 'Run Extension', type: 'extensionHost', request: 'launch', args: ['--extensionDevelopmentPath=${workspaceFolder}'] }] }, null, 2)}\n`);
    write(`${name}/.vscode/tasks.json`, `${JSON.stringify({ version: '2.0.0', tasks: [{ type: 'npm', script: 'watch', problemMatcher: '$tsc-watch', isBackground: true }] }, null, 2)}\n`);
    write(`${name}/eslint.config.mjs`, `export default [{ files: ['**/*.ts'], rules: { curly: 'warn', eqeqeq: 'warn' } }];\n`);
    write(`${name}/src/extension.ts`, `import * as vscode from 'vscode';\n\nexport function activate(context: vscode.ExtensionContext) {\n  const disposable = vscode.commands.registerCommand('${name}.helloWorld', () => {\n    vscode.window.showInformationMessage('Hello World from ${name}!');\n  });\n  context.subscriptions.push(disposable);\n}\n\nexport function deactivate() {}\n`);
    const extra = s % 3 === 0 ? 4 : s % 3 === 1 ? 2 : 1;
    for (let f = 0; f < extra; f++) {
      const body = Array.from({ length: 40 }, (_, i) => `  const value${i} = vscode.workspace.getConfiguration('${name}').get<number>('setting${i}') ?? ${i};`).join('\n');
      write(`${name}/src/provider-${f}.ts`, `import * as vscode from 'vscode';\n\nexport class Provider${f} implements vscode.Disposable {\n  update(): void {\n${body}\n  }\n  dispose(): void {}\n}\n`);
    }
    // What a developer's machine has and the search must leave out.
    if (s % 8 === 0) write(`${name}/out/extension.js`, `"use strict";\n// registerTreeDataProvider compiled\n`);
  }
  for (let i = 0; i < 40; i++) write(`node_modules/pkg-${i}/index.js`, `module.exports = function registerTreeDataProvider() {};\n`);
  const criteria = [
    'Grep: registerCommand | glob: **/*.ts',
    'Grep: showInformationMessage\\(',
    'Grep: "engines"',
    'Grep: extensionHost | glob: **/launch.json',
    'Grep: implements vscode\\.Disposable',
    'Grep: \\$tsc-watch',
    'Grep: getConfiguration\\(.sample-95.\\)',
    'Grep: runs-on: ubuntu',
    'Read: README.md | contains: Prerequisites',
    'Read: sample-0/README.md | contains: Running the Sample',
    `Read: sample-${samples - 1}/package.json | contains: "compile"`,
    'Read: sample-7/tsconfig.json | contains: "strict": true',
  ];
  const prd = '.ideal-state/prds/PRD-20261126-samples.md';
  write(prd, `---\nprd: true\nid: PRD-20261126-samples\nstatus: IN_PROGRESS\neffort_level: STANDARD\n---\n\n# Samples hold together\n\n## Ideal State Criteria\n${criteria.map((c, i) => `- [ ] ISC-${i + 1}: Samples tree check number ${i + 1} holds | Verify: ${c}`).join('\n')}\n`);
  return prd;
}
