// The criteria lock as a person makes it with `ideal-state criteria lock` on a terminal: the
// lock's own function (src/app/gate/lock.ts, lockCriteria), bundled for this test process,
// writing into a state folder of the test's own (IDEAL_STATE_STATE_DIR), never the user's.
import { build } from 'esbuild';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { repoRoot } from '../harness/paths.mjs';
import { yamlData } from '../../build/yaml-data.mjs';

let bundled;

async function lockModule() {
  if (!bundled) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-hosts-lock-'));
    const outfile = path.join(dir, 'lock.cjs');
    // A failed build leaves no folder behind.
    await build({ entryPoints: [path.join(repoRoot, 'src', 'app', 'gate', 'lock.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, logLevel: 'error', external: ['vscode'], loader: { '.yaml': 'text' }, plugins: [yamlData] }).catch((error) => {
      fs.rmSync(dir, { recursive: true, force: true });
      throw error;
    });
    bundled = { module: createRequire(import.meta.url)(outfile), dir };
  }
  return bundled.module;
}

/** Locks every PRD of `workspace` as a person at a terminal would; returns the lock file. */
export async function lockAsAPerson(workspace, stateDir) {
  const { lockCriteria } = await lockModule();
  const result = await lockCriteria(workspace, { by: 'a person', how: 'terminal', now: new Date(), env: { ...process.env, IDEAL_STATE_STATE_DIR: stateDir } });
  return result.file;
}

export function removeLockBundle() {
  if (bundled) fs.rmSync(bundled.dir, { recursive: true, force: true });
  bundled = undefined;
}
