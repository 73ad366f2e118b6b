// Tokens and dollars of one STANDARD run per provider, with prompt caching as built and with it
// off: the command line (`ideal-state run --json`, dist/cli.js) against contract fakes of the
// Anthropic Messages and OpenAI Responses APIs that implement each provider's documented
// caching rules and usage fields (test/unit/fixtures/llm/contract-cache.ts cites the pages) and
// bill each request at the catalogue's published prices. The run is the sample workspace's
// request with a ten-step EXECUTE (test/unit/fixtures/llm/token-run.ts). For each: requests,
// input tokens (fresh, cached, written), output tokens, cache share, dollars as the fake billed
// them and as the run's JSON answer reports them. Smoke mode runs Anthropic only.
// Last line: one JSON object with the figures.
import * as esbuild from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { smoke } from './harness/smoke.mjs';
import { yamlData } from '../build/yaml-data.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const cli = path.join(root, 'dist', 'cli.js');
// The command line measured is the one built from these sources.
if (!fs.existsSync(cli)) {
  const built = spawnSync(process.execPath, [path.join(root, 'esbuild.mjs')], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('node esbuild.mjs failed: the command line could not be built');
}
const outfile = path.join(root, 'out', 'bench', 'tokens-lib.js');
await esbuild.build({ entryPoints: [path.join(root, 'test', 'unit', 'fixtures', 'llm', 'token-run.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, loader: { '.yaml': 'text' }, plugins: [yamlData], logLevel: 'warning' });
const lib = createRequire(import.meta.url)(outfile);

// Each run's command line gets state and data folders of its own, never the user's.
const userRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bench-tokens-'));
process.on('exit', () => fs.rmSync(userRoot, { recursive: true, force: true }));
function runCli(args, env) {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC)_/.test(k)));
    const folders = { IDEAL_STATE_STATE_DIR: path.join(userRoot, 'state'), XDG_DATA_HOME: path.join(userRoot, 'data') };
    const proc = spawn(process.execPath, [cli, ...args], { env: { ...clean, ...folders, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (err += d));
    proc.on('close', (code) => resolve({ code, out, err }));
  });
}

const providers = [
  ['anthropic', 'claude-sonnet-4-6'],
  ['openai', 'gpt-5.6-terra'],
].slice(0, smoke ? 1 : 2);
const round = (x, digits = 6) => Math.round(x * 10 ** digits) / 10 ** digits;
const figures = {};
for (const [provider, model] of providers) {
  const row = {};
  for (const caching of [true, false]) {
    const r = await lib.tokenRun({ provider, model, caching, root, runCli });
    if (r.state !== 'COMPLETE' || r.refused > 0) throw new Error(`${provider} run ended ${r.state} with ${r.refused} refused request(s)`);
    const b = r.billed;
    const input = b.fresh + b.cached + b.written;
    const matches = ['fresh', 'cached', 'written', 'output'].every((k) => r.reported[k] === b[k]) && Math.round(r.reported.usd * 100) === Math.round(b.usd * 100);
    row[caching ? 'cached' : 'off'] = { requests: b.requests, input, fresh: b.fresh, cacheRead: b.cached, cacheWrite: b.written, output: b.output, cacheShare: round(lib.cacheShare(b), 4), usd: round(b.usd), reportedUsd: round(r.reported.usd), runsView: r.runsView?.short ?? null, reportMatchesBill: matches };
    console.log(
      `${provider} ${model}, caching ${caching ? 'as built' : 'off'}: ${b.requests} requests, ${input} input tokens (${b.fresh} fresh, ${b.cached} cache reads, ${b.written} cache writes), ${b.output} output; cache share ${(lib.cacheShare(b) * 100).toFixed(1)} %; $${b.usd.toFixed(6)} billed, $${r.reported.usd.toFixed(6)} in the run's JSON answer${matches ? '' : ' (DIFFERS)'}, ${r.runsView?.short ?? 'nothing'} in the Runs view`,
    );
  }
  row.costRatio = round(row.cached.usd / row.off.usd, 4);
  console.log(`${provider}: caching costs ${(row.costRatio * 100).toFixed(1)} % of the run without it`);
  figures[provider] = { model, ...row };
}
console.log(JSON.stringify({ bench: 'tokens', smoke, ...figures }));
