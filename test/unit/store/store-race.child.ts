/**
 * Child process for the writer-race test: a long-lived worker that, on each `open` line
 * from the parent, waits for a shared instant (so every worker opens the store at once),
 * opens the store, says whether it became the writer, and if so commits numbered runs,
 * printing "ack ID" after each commit returns (is durable). It closes on `close`.
 *
 * stdin:  open FILE COMMITS START_AT_MS TAG | close | exit
 * stdout: ready | writer | reader MESSAGE | ack ID | done | closed | error MESSAGE
 */
import * as fs from 'node:fs';
import * as readline from 'node:readline';
import { loadSqlJs } from '../../../src/store/sqljs';
import { Store } from '../../../src/store/store';
import { aRun } from '../support/builders';

const say = (line: string) => fs.writeSync(1, `${line}\n`);

async function main(): Promise<void> {
  await loadSqlJs();
  let store: Store | undefined;
  const template = aRun();
  say('ready');
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const [verb, file, commitsText, startAtText, tag] = line.split(' ');
    if (verb === 'open') {
      // Spin rather than sleep: a timer would add its own jitter to the shared instant.
      while (Date.now() < Number(startAtText)) {
        // waiting for the common start
      }
      try {
        store = await Store.open({ file: file!, checkpointIdleMs: 1, checkpointJournalBytes: 1024 });
      } catch (error) {
        say(`error ${oneLine(error)}`);
        continue;
      }
      if (store.readOnly) {
        say(`reader ${oneLine(store.warnings.find((w) => w.kind === 'read-only')?.message ?? 'no read-only warning')}`);
        continue;
      }
      say('writer');
      for (let i = 0; i < Number(commitsText); i++) {
        const run = { ...template, id: `run-${tag}c${String(i).padStart(3, '0')}` };
        try {
          store.batch((tx) => {
            tx.runs.save(run);
            tx.events.save({ runId: run.id, seq: 0, at: run.createdAt, kind: 'note', message: `created ${run.id}`, inputTokens: 0, outputTokens: 0, costUsd: 0 });
          });
        } catch (error) {
          say(`error ${oneLine(error)}`);
          break;
        }
        say(`ack ${run.id}`);
        // Let idle checkpoints run between commits, so two writers (if the lock let them in) would collide there too.
        if (i % 3 === 2) await new Promise((resolve) => setTimeout(resolve, 2));
      }
      say('done');
    } else if (verb === 'close') {
      try {
        store?.close();
      } catch (error) {
        say(`error ${oneLine(error)}`);
      }
      store = undefined;
      say('closed');
    } else if (verb === 'exit') {
      process.exit(0);
    }
  }
}

function oneLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error).replace(/\s+/g, ' ');
}

// A checkpoint runs on a timer; if it throws (two writers renaming one temporary file), say so and stop.
process.on('uncaughtException', (error) => {
  say(`error uncaught: ${oneLine(error)}`);
  process.exit(1);
});

main().catch((error) => {
  say(`error ${oneLine(error)}`);
  process.exit(1);
});
