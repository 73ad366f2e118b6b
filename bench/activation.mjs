// Activation time of the packaged extension in the real VS Code extension host, over
// several window loads, as VS Code itself measures it (Developer: Show Running
// Extensions, "Startup Activation: N ms"), plus the size of the .vsix.
// Last line: one JSON object with activate_ms_p50 and vsix_bytes.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../test/harness/paths.mjs';
import { packageVsix } from '../test/harness/vsix.mjs';
import { setup } from '../test/harness/setup.mjs';
import { Workbench } from '../test/harness/workbench.mjs';

const LOADS = Number(process.env.IDEAL_STATE_BENCH_LOADS ?? 5);

async function activationMs(workbench) {
  await workbench.commandTitles('Ideal State'); // the extension host is up and the commands registered
  await workbench.runCommand('Developer: Show Running Extensions');
  const row = workbench.page.locator('.monaco-list-row').filter({ hasText: 'Ideal State' });
  // The list is virtual and sorted slowest first: scroll until the row is rendered.
  for (let i = 0; i < 40 && (await row.count()) === 0; i++) {
    await workbench.page.mouse.move(640, 400);
    await workbench.page.mouse.wheel(0, 400);
    await workbench.page.waitForTimeout(150);
  }
  const match = /Activation: (\d+)\s*ms/.exec(await row.first().innerText());
  if (!match) throw new Error(`no activation time in the Running Extensions row: ${await row.first().innerText()}`);
  return Number(match[1]);
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * The alternative to the lazy engine: what activation would cost if the extension bundle
 * carried zod, yaml and sql.js. Measured as the median time to require each production
 * bundle in a fresh Node process (with `vscode` stubbed), same run, same machine.
 */
function requireMs(bundle, runs = 7) {
  // `vscode` is stubbed: every name the API exports (read from its type definitions) is a
  // proxy that answers any property, call or construction (and turns into '' in a string),
  // so module-level uses such as CodeActionKind.QuickFix load as they would in the host.
  const names = [...new Set([...readFileSync(join(repoRoot, 'node_modules/@types/vscode/index.d.ts'), 'utf8').matchAll(/^\t?export (?:namespace|class|enum|const|function) (\w+)/gm)].map((m) => m[1]))];
  const script = `const p=new Proxy(function(){},{get:(t,k)=>k==='then'?undefined:k===Symbol.toPrimitive?()=>'':p,apply:()=>p,construct:()=>p});` +
    `const api=Object.fromEntries(${JSON.stringify(names)}.map((n)=>[n,p]));` +
    `const M=require('module');const l=M._load;M._load=function(r,...a){return r==='vscode'?api:l.call(this,r,...a)};` +
    `const t=performance.now();require(${JSON.stringify(bundle)});process.stdout.write(String(performance.now()-t))`;
  const times = [];
  for (let i = 0; i < runs; i++) {
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    if (result.status !== 0 || !result.stdout) throw new Error(`requiring ${bundle} failed: ${result.stderr}`);
    times.push(Number(result.stdout));
  }
  return percentile(times, 50);
}

await setup();
const vsix = packageVsix();
const workbench = await Workbench.open({ trusted: true });
const samples = [];
try {
  for (let load = 1; load <= LOADS; load++) {
    if (load > 1) {
      await workbench.page.reload();
      await workbench.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    }
    samples.push(await activationMs(workbench));
    console.log(`window load ${load}: activation ${samples.at(-1)} ms`);
  }
} finally {
  await workbench.close();
}
const shellMs = requireMs(join(repoRoot, 'dist', 'extension.js'));
const engineMs = requireMs(join(repoRoot, 'dist', 'engine.js'));
console.log(`require: extension bundle ${shellMs.toFixed(1)} ms, engine bundle ${engineMs.toFixed(1)} ms`);
console.log(JSON.stringify({
  require_extension_bundle_ms: Math.round(shellMs * 10) / 10,
  require_engine_bundle_ms: Math.round(engineMs * 10) / 10,
  eager_over_lazy_require: Math.round(((shellMs + engineMs) / shellMs) * 10) / 10,
  activate_ms_p50: percentile(samples, 50),
  activate_ms_max: Math.max(...samples),
  activate_ms_samples: samples,
  vsix_bytes: vsix.bytes,
}));
