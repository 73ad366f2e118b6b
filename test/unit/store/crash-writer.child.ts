/**
 * Child process for the crash test: commits numbered runs as fast as it can and
 * prints "ack N" after each commit returns (is durable). The parent kills it at a
 * random instant and checks that every acknowledged run survived.
 */
import * as fs from 'node:fs';
import { Store } from '../../../src/store/store';
import { aRun } from '../support/builders';

async function main(): Promise<void> {
  const [file, startText, journalBytes] = process.argv.slice(2);
  const store = await Store.open({ file: file!, checkpointIdleMs: 5, checkpointJournalBytes: Number(journalBytes ?? 4096) });
  if (store.readOnly) throw new Error('child could not become the writer');
  const template = aRun();
  fs.writeSync(1, 'ready\n');
  for (let n = Number(startText); ; n++) {
    const run = { ...template, id: `run-${n.toString(36).padStart(8, '0')}`, request: `request ${n} ${'x'.repeat(n % 200)}` };
    store.batch((tx) => {
      tx.runs.save(run);
      tx.events.save({ runId: run.id, seq: 0, at: run.createdAt, kind: 'note', message: `created ${n}`, inputTokens: 0, outputTokens: 0, costUsd: 0 });
    });
    fs.writeSync(1, `ack ${n}\n`);
    // Let idle checkpoints run now and then, so kills also land inside them.
    if (n % 7 === 0) await new Promise((resolve) => setTimeout(resolve, 6));
  }
}

main().catch((error) => {
  fs.writeSync(2, `${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
