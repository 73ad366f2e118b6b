/**
 * Child process for the loop crash test: runs a loop whose pages' sub-runs are quick except
 * for the ones named slow (their specialist waits a minute), printing "passing N working M" after every
 * acknowledged result so the parent can kill it at a known point.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LoopEngine } from '../../../../src/app/loop';
import { goodPage, loopHarness, subRunSteps } from '../../support/loop-helpers';

async function main(): Promise<void> {
  const [workspace, storeFile, slowList] = process.argv.slice(2);
  const slow = new Set(slowList!.split(','));
  const h = await loopHarness(workspace!, (file) => subRunSteps(file, goodPage(path.posix.basename(file, '.md')), { specialistDelayMs: slow.has(file) ? 60_000 : 0 }), { storeFile: storeFile! });
  let announced = false;
  const engine = new LoopEngine({
    ...h.ports,
    onProgress: (p) => {
      if (!announced) {
        fs.writeSync(1, `loop ${p.loopId}\n`);
        announced = true;
      }
      fs.writeSync(1, `passing ${p.passing} working ${p.artifacts.filter((a) => a.status === 'WORKING').length}\n`);
    },
  });
  await engine.start({ glob: 'docs/*.md', isc: 'test.loop-page', agents: 2, effort: 'STANDARD', maxIterations: 3 });
  fs.writeSync(1, 'finished\n');
}

main().catch((error) => {
  fs.writeSync(2, `${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
