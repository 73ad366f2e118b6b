import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import { codeCacheDir, requireWithCodeCache } from './code-cache';

/**
 * `ideal-state`, the bin (dist/cli.js): a few lines that pick the command line to load.
 * `gate` and `verify` load the lean one (dist/cli-lean.cjs, src/cli/start/lean.ts) with V8's code
 * cache (src/cli/start/code-cache.ts); every other command loads the whole one (dist/cli.mjs and its
 * chunks, split per subcommand).
 */
const command = process.argv[2] ?? '';

const LEAN = new Set(['gate', 'verify']);

/** Named, not written in the import, so the bundler leaves it to Node: the whole command line is its own ES module. */
const WHOLE = './cli.mjs';

function full(): void {
  keepModulesCompiled();
  import(WHOLE).catch((error: unknown) => {
    process.stderr.write(`ideal-state: cannot start: ${error instanceof Error && error.stack ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}

if (command === '--version' || command === '-v') {
  // Read from the package this bin came from, so an install says which release it runs.
  const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
  process.stdout.write(`${version}\n`);
} else if (LEAN.has(command)) {
  let run: ((argv: string[]) => void) | undefined;
  try {
    run = requireWithCodeCache(path.join(__dirname, 'cli-lean.cjs'), codeCacheDir()).exports.run as (argv: string[]) => void;
  } catch (error) {
    process.stderr.write(`ideal-state: the lean command line did not load (${error instanceof Error ? error.message : String(error)}); loading the whole one\n`);
  }
  if (run) run(process.argv.slice(2));
  else full();
} else {
  full();
}

/**
 * Node 22.1 and later keep V8's code cache for ES modules too (`module.enableCompileCache`), so
 * the whole command line's chunks compile from it at the next start: `mcp`, `run`, `loop` and the
 * rest start with less work (on Node 24, the MCP server started, answering tools/list and
 * ending: 0.32 → 0.25 s of CPU). Kept beside the lean file's cache, in the user's cache folder, made for the user alone;
 * `IDEAL_STATE_CODE_CACHE=0` turns it off too. Node 20 has no such cache: nothing changes there.
 * Child processes (a check's commands) do not inherit it.
 */
function keepModulesCompiled(): void {
  const enable = (Module as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  const dir = codeCacheDir();
  if (typeof enable !== 'function' || dir === undefined) return;
  try {
    const modules = path.join(dir, 'modules');
    fs.mkdirSync(modules, { recursive: true, mode: 0o700 });
    enable(modules);
  } catch {
    // No cache folder: the chunks compile as usual.
  }
}
