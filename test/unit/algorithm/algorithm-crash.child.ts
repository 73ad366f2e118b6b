/**
 * Child process for the algorithm crash test: starts a run with a scripted model (a test
 * tool) whose specialist step waits a long time, and prints every committed event as
 * "event <kind> <message>" so the parent can kill it at a known point.
 */
import * as fs from 'node:fs';
import { harness } from '../support/algorithm-helpers';

async function main(): Promise<void> {
  const [workspace, storeFile, scriptFile] = process.argv.slice(2);
  const steps = JSON.parse(fs.readFileSync(scriptFile!, 'utf8'));
  const h = await harness(steps, { workspace: workspace!, storeFile: storeFile! });
  let announced = false;
  const original = h.events.push.bind(h.events);
  h.events.push = (...events) => {
    for (const e of events) {
      if (!announced) {
        fs.writeSync(1, `run ${e.runId}\n`);
        announced = true;
      }
      fs.writeSync(1, `event ${e.kind} ${e.message}\n`);
    }
    return original(...events);
  };
  await h.engine.start({ request: 'Write out.txt', effort: 'STANDARD' });
  fs.writeSync(1, 'finished\n');
}

main().catch((error) => {
  fs.writeSync(2, `${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
