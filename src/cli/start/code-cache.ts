import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';

/**
 * V8's code cache for the lean command line: a stop hook starts `ideal-state gate`
 * cold at every stop, and on Node 20 an ES module cannot use a code cache, so most of its start
 * was V8 compiling the same code again. The lean commands are one CommonJS file compiled here
 * with the cache V8 made for it the first time (its bytecode), which V8 takes only for the same
 * V8 version, flags and source length, and otherwise rejects (then the file is compiled as usual
 * and the cache made again).
 *
 * The cache is keyed by the file's size and modification time, the Node version and the
 * architecture, so a rebuilt or updated file never meets an older cache. It lives in the user's
 * own cache folder (never the workspace an agent works in), created for the user alone.
 * `IDEAL_STATE_CODE_CACHE=0` turns it off; `IDEAL_STATE_CACHE_DIR` moves it (benchmarks, tests).
 */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.IDEAL_STATE_CODE_CACHE === '0') return undefined;
  if (env.IDEAL_STATE_CACHE_DIR) return path.join(env.IDEAL_STATE_CACHE_DIR, 'code-cache');
  const home = os.homedir();
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'ideal-state', 'code-cache');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'ideal-state', 'code-cache');
  return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'ideal-state', 'code-cache');
}

export type CodeCacheUse = 'hit' | 'miss' | 'rejected' | 'off';

/**
 * Runs a CommonJS file as `require` would and returns its exports, compiled with the code cache
 * kept for it in `dir` (none: compiled as usual). On a miss or a rejected cache, a new one is
 * written when the process exits (so it also holds the functions the command ran), through a
 * temporary file and a rename, so a reader never sees half a cache. A cache that cannot be read
 * or written only costs the compile it would have saved.
 */
export function requireWithCodeCache(file: string, dir: string | undefined): { exports: Record<string, unknown>; cache: CodeCacheUse } {
  const source = fs.readFileSync(file, 'utf8');
  const key = dir === undefined ? undefined : cacheFile(file, dir);
  let cachedData: Buffer | undefined;
  if (key !== undefined) {
    try {
      cachedData = fs.readFileSync(key);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new vm.Script(Module.wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
  const module = new Module(file);
  module.filename = file;
  const require = Module.createRequire(file);
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, require, module, file, path.dirname(file));
  const cache: CodeCacheUse = key === undefined ? 'off' : !cachedData ? 'miss' : script.cachedDataRejected ? 'rejected' : 'hit';
  if (key !== undefined && cache !== 'hit') process.once('exit', () => writeCache(key, script));
  return { exports: module.exports as Record<string, unknown>, cache };
}

function cacheFile(file: string, dir: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    return path.join(dir, `${path.basename(file)}-${stat.size}-${Math.trunc(stat.mtimeMs)}-${process.version}-${process.arch}.bin`);
  } catch {
    return undefined;
  }
}

function writeCache(key: string, script: vm.Script): void {
  const dir = path.dirname(key);
  const temporary = `${key}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Caches of older builds of the same file go: one per file, Node version and architecture.
    // Another Node's cache stays: a hook run by one Node and a CI job by another would otherwise
    // throw each other's away and compile again at every start.
    const own = /^(.*)-\d+-\d+-(v[\d.]+-\w+)\.bin$/.exec(path.basename(key));
    const older = (name: string) => own !== null && name !== path.basename(key) && name.startsWith(`${own[1]}-`) && name.endsWith(`-${own[2]}.bin`);
    for (const old of fs.readdirSync(dir)) if (older(old)) fs.rmSync(path.join(dir, old), { force: true });
    fs.writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(temporary, key);
  } catch {
    try {
      fs.rmSync(temporary, { force: true });
    } catch {
      // No folder to leave it in: nothing was written.
    }
  }
}
