import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lockCriteria } from '../../../../src/app/gate';
import { claudeStop, decision, runGate, stateDir } from '../../support/gate-lock-helpers';

/**
 * Locked means what runs is locked: a PRD a person locked whose CRITICAL criteria run
 * `npm test`, `make check`, a check script, `npx checker` and `npm run check`, all failing
 * before the work. The agent weakens what they execute instead of the criteria; each move
 * must leave the stop blocked, TAMPERED with the file it changed.
 */

const PRD_PATH = '.ideal-state/prds/PRD-20261128-farewell.md';

function write(dir: string, relative: string, text: string, mode?: number): void {
  const file = path.join(dir, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, mode === undefined ? undefined : { mode });
}

function farewellProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-executes-'));
  write(dir, 'package.json', JSON.stringify({ name: 'farewell', version: '1.0.0', scripts: { test: 'node --test', check: 'node scripts/check-farewell.mjs' } }, null, 2));
  write(dir, 'Makefile', 'check:\n\tnode scripts/check-farewell.mjs\n');
  write(dir, 'scripts/check-farewell.mjs', "import { farewell } from '../src/farewell.js';\nprocess.exit(farewell('Ann') === 'Goodbye, Ann!' ? 0 : 1);\n");
  write(dir, 'src/farewell.js', "export function farewell(name) {\n  return undefined;\n}\n");
  write(dir, 'src/farewell-test.js', "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { farewell } from './farewell.js';\ntest('says goodbye', () => assert.equal(farewell('Ann'), 'Goodbye, Ann!'));\n");
  write(dir, 'node_modules/.bin/checker', '#!/bin/sh\nnode scripts/check-farewell.mjs\n', 0o755);
  write(dir, '.ideal-state/verify-commands.yaml', 'commands:\n  - npm test\n  - make check\n  - node scripts/check-farewell.mjs\n  - npx checker\n  - npm run check\n');
  write(dir, PRD_PATH, ['---', 'prd: true', 'id: PRD-20261128-farewell', 'status: IN_PROGRESS', '---', '', '# Farewell', '', '## Ideal State Criteria', '',
    '- [ ] ISC-1: The project tests pass | Verify: CLI: npm test',
    '- [ ] ISC-2: The make check target passes | Verify: CLI: make check',
    '- [ ] ISC-3: The farewell check script passes | Verify: CLI: node scripts/check-farewell.mjs',
    '- [ ] ISC-4: The packaged checker passes | Verify: CLI: npx checker',
    '- [ ] ISC-5: The check script of the manifest passes | Verify: CLI: npm run check', ''].join('\n'));
  return dir;
}

const MOVES: { name: string; move: (dir: string) => void; tampered: RegExp }[] = [
  { name: "the Makefile's check recipe becomes `true`", move: (d) => write(d, 'Makefile', 'check:\n\ttrue\n'), tampered: /Makefile TAMPERED: the file a check runs Makefile was changed/ },
  { name: 'the check script becomes process.exit(0)', move: (d) => write(d, 'scripts/check-farewell.mjs', 'process.exit(0);\n'), tampered: /scripts\/check-farewell\.mjs TAMPERED/ },
  { name: 'node_modules/.bin/checker replaced', move: (d) => write(d, 'node_modules/.bin/checker', '#!/bin/sh\nexit 0\n', 0o755), tampered: /node_modules\/\.bin\/checker TAMPERED/ },
  { name: '.npmrc: script-shell=/bin/true', move: (d) => write(d, '.npmrc', 'script-shell=/bin/true\n'), tampered: /\.npmrc TAMPERED: the file a check runs \.npmrc was added/ },
  { name: '.npmrc: node-options=--require ./.hook.cjs', move: (d) => (write(d, '.hook.cjs', 'process.exit = () => {};\n'), write(d, '.npmrc', 'node-options=--require ./.hook.cjs\n')), tampered: /\.npmrc TAMPERED/ },
  { name: 'a node_modules/.bin/node shim that exits 0', move: (d) => write(d, 'node_modules/.bin/node', '#!/bin/sh\nexit 0\n', 0o755), tampered: /node_modules\/\.bin\/node TAMPERED: the file a check runs node_modules\/\.bin\/node was added/ },
  { name: 'src/farewell-test.js gutted (node --test finds it; the old globs missed it)', move: (d) => write(d, 'src/farewell-test.js', "import { test } from 'node:test';\ntest('says goodbye', () => {});\n"), tampered: /src\/farewell-test\.js TAMPERED: the protected file src\/farewell-test\.js was changed/ },
];

describe('locked means what runs is locked: the files a check executes', function () {
  this.timeout(120_000);

  for (const { name, move, tampered } of MOVES) {
    it(`${name}: the stop stays blocked, TAMPERED with that file`, async () => {
      const ws = farewellProject();
      const state = stateDir();
      const locked = await lockCriteria(ws, { files: [PRD_PATH], by: 'ana', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
      assert.deepEqual(locked.refused, []);
      move(ws);
      const stop = decision(await runGate(['--host', 'claude-code', '--no-store', '--no-log', '--workspace', ws, '--timeout', '30'], claudeStop(ws), { state }));
      assert.equal(stop.blocked, true, stop.text);
      assert.match(stop.text, tampered);
    });
  }

  it('the lock records what each command executes, and an honest fix changes none of it: let through at the first stop', async () => {
    const ws = farewellProject();
    const state = stateDir();
    const locked = await lockCriteria(ws, { files: [PRD_PATH], by: 'ana', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    const executes = locked.locked[0]!.inputs.filter((i) => i.kind === 'executes').map((i) => i.name);
    for (const file of ['Makefile', 'scripts/check-farewell.mjs', 'node_modules/.bin/checker', '.npmrc', 'node_modules/.bin/node', 'package.json']) assert.ok(executes.includes(file), `${file} in ${executes.join(', ')}`);
    write(ws, 'src/farewell.js', "export function farewell(name) {\n  return `Goodbye, ${name}!`;\n}\n");
    const stop = decision(await runGate(['--host', 'claude-code', '--no-store', '--no-log', '--workspace', ws, '--timeout', '60'], claudeStop(ws), { state }));
    assert.equal(stop.blocked, false, stop.text);
  });
});
