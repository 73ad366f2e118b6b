// A large criteria proposal (issue 24: 3,000 criteria held the MCP server's thread 13.9 s,
// 4,000 took 23.5 s, growing with the square): proposeCriteria of N criteria into a PRD, for
// N = 500, 1,000, 2,000, 3,000, 4,000 (the MCP tool takes at most 50 a call; the editor's tool
// and the function have no cap). Last line: one JSON object with the milliseconds per N.
import * as esbuild from 'esbuild';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { yamlData } from '../build/yaml-data.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outfile = path.join(root, 'out', 'bench', 'propose-lib.js');
await esbuild.build({ stdin: { contents: "export { proposeCriteria } from './src/app/propose-criteria';", resolveDir: root, loader: 'ts' }, bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, loader: { '.yaml': 'text' }, plugins: [yamlData], logLevel: 'warning' });
const { proposeCriteria } = createRequire(import.meta.url)(outfile);

const prd = ['---', 'prd: true', 'id: PRD-20261126-bench', 'status: IN_PROGRESS', '---', '', '# Bench', '', '## Ideal State Criteria', '- [ ] ISC-1: The README exists | Verify: Read: README.md', '', '## LOG', ''].join('\n');
const figures = {};
for (const n of [500, 1000, 2000, 3000, 4000]) {
  const criteria = Array.from({ length: n }, (_, i) => ({ text: `Generated criterion number ${i} holds in the build`, verify: 'Read: README.md' }));
  const started = performance.now();
  const p = proposeCriteria(prd, 'p.md', criteria, { today: '2026-11-26', through: 'bench', accepted: 'bench' });
  // The MCP tool's own cap refuses more than 50; the function itself is what a large proposal costs.
  if (!p.ok && !/over the 50/.test(p.message)) throw new Error(p.message);
  figures[n] = Math.round(performance.now() - started);
  console.log(`${n} criteria: ${figures[n]} ms${p.ok ? '' : ' (refused by the cap)'}`);
}
console.log(JSON.stringify({ bench: 'propose', ms: figures }));
