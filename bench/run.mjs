// `npm run bench`: runs every bench/*.mjs except this one, each printing a JSON line last.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const dir = path.dirname(new URL(import.meta.url).pathname);
const only = process.argv.slice(2);
const benches = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs')
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)));
let failed = 0;
for (const bench of benches) {
  console.log(`== bench/${bench}`);
  const result = spawnSync(process.execPath, ['--max-old-space-size=4096', path.join(dir, bench)], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
