import * as assert from 'node:assert/strict';
import { executedFiles, segments } from '../../../../src/app/gate/check-inputs';

/** A workspace as a map of files: what the lock would read. */
function files(map: Record<string, string>) {
  return {
    read: async (relative: string) => map[relative],
    exists: async (relative: string) => relative in map,
  };
}

describe('what a check executes: the files a lock holds besides the command line', () => {
  it('splits a shell line into simple commands, quotes removed', () => {
    assert.deepEqual(segments(`FOO=1 node -e "process.exit(0)" && make check; npm run 'lint' | tee out.txt`), [['FOO=1', 'node', '-e', 'process.exit(0)'], ['make', 'check'], ['npm', 'run', 'lint'], ['tee', 'out.txt']]);
  });

  it('make check: the Makefile and the files it includes', async () => {
    const ws = files({ Makefile: 'include rules.mk\n-include local.mk\ncheck:\n\tnode scripts/check.mjs\n', 'rules.mk': '' });
    assert.deepEqual(await executedFiles(['make check'], ws.read, ws.exists), ['Makefile', 'local.mk', 'rules.mk']);
  });

  it('node scripts/check-farewell.mjs: the script itself', async () => {
    const ws = files({ 'scripts/check-farewell.mjs': 'process.exit(1)' });
    assert.deepEqual(await executedFiles(['node scripts/check-farewell.mjs', 'node ./scripts/missing.mjs'], ws.read, ws.exists), ['scripts/check-farewell.mjs']);
  });

  it('npm run check: the manifest, the runner configuration, the scripts it runs and the shims their words would find', async () => {
    const manifest = JSON.stringify({ scripts: { precheck: 'tsc', check: 'node scripts/check.mjs && mocha', postcheck: 'echo done', test: 'node --test' } });
    const ws = files({ 'package.json': manifest, 'scripts/check.mjs': '' });
    assert.deepEqual(await executedFiles(['npm run check'], ws.read, ws.exists), ['.npmrc', '.pnpmfile.cjs', '.yarnrc', '.yarnrc.yml', 'bunfig.toml', 'node_modules/.bin/echo', 'node_modules/.bin/mocha', 'node_modules/.bin/node', 'node_modules/.bin/tsc', 'package.json', 'scripts/check.mjs']);
  });

  it('npm test and npx checker: the test script and its node shim; the binary npx runs', async () => {
    const ws = files({ 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }) });
    const test = await executedFiles(['npm test'], ws.read, ws.exists);
    assert.ok(test.includes('node_modules/.bin/node'), test.join(', '));
    assert.ok(test.includes('.npmrc'));
    const npx = await executedFiles(['npx checker --strict'], ws.read, ws.exists);
    assert.ok(npx.includes('node_modules/.bin/checker'), npx.join(', '));
  });

  it('a script that runs itself is followed once; a plain command names nothing', async () => {
    const ws = files({ 'package.json': JSON.stringify({ scripts: { loop: 'npm run loop' } }) });
    assert.ok((await executedFiles(['npm run loop'], ws.read, ws.exists)).includes('package.json'));
    assert.deepEqual(await executedFiles(['node --version', 'true'], ws.read, ws.exists), []);
  });
});
