import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DurableDatabase, journalPathOf } from '../../../src/store/durable-database';
import { MIGRATIONS } from '../../../src/store/migrations';
import { Store } from '../../../src/store/store';
import { aRun } from '../support/builders';
import { tempStoreFile, useStores } from './store-helpers';

const tempFile = () => tempStoreFile('damage');

const rating = (i: number) => ({ id: `r${i}`, timestamp: '2026-11-01T10:00:00.000Z', rating: 7, sessionId: 's', type: 'explicit' as const });

/**
 * A store whose journal holds ten acknowledged commits (ratings r0–r9) and was never folded
 * into the file, as a crash leaves it; returns each record's offset in the journal.
 */
async function journalWithTenCommits(file: string): Promise<{ offsets: number[]; size: number }> {
  const store = await Store.open({ file, checkpointIdleMs: 60_000 });
  const offsets: number[] = [];
  for (let i = 0; i < 10; i++) {
    offsets.push(store.journalBytes);
    store.ratings.save(rating(i));
  }
  // The crash: the process is gone, its lock with it (a stale lock would be taken over the same way).
  fs.rmSync(`${file}.lock`);
  return { offsets, size: fs.statSync(journalPathOf(file)).size };
}

describe('store: damage is told, counted and kept', () => {
  const openStore = useStores();

  it('moves aside a database whose header names no text encoding, says why, and leaves no lock behind', async () => {
    const file = tempFile();
    const seed = await Store.open({ file });
    seed.runs.save(aRun());
    seed.close();
    // Bytes 56–59 hold the text encoding; 4 made every statement fail with "attached databases must use the same text encoding".
    const bytes = fs.readFileSync(file);
    bytes.writeUInt32BE(4, 56);
    fs.writeFileSync(file, bytes);
    const store = await Store.open({ file });
    const warning = store.warnings.find((w) => w.kind === 'corrupt-database');
    assert.ok(warning, JSON.stringify(store.warnings));
    assert.match(warning.message, /text encoding \(bytes 56–59\) is 4, not UTF-8 \(1\)/);
    assert.ok(warning.message.includes(`was moved to ${warning.movedTo}`), warning.message);
    assert.deepEqual(fs.readFileSync(warning.movedTo!), bytes, 'the damaged file is kept as it was');
    assert.equal(store.readOnly, false);
    store.runs.save(aRun());
    assert.equal(store.runs.count(), 1, 'the fresh store works');
    store.close();
    assert.equal(fs.existsSync(`${file}.lock`), false, 'the lock is released');
    const again = await openStore(file);
    assert.deepEqual(again.warnings, [], 'the next open finds a sound store');
  });

  it('says that a database cut short is cut short', async () => {
    const file = tempFile();
    const seed = await Store.open({ file });
    for (let i = 0; i < 100; i++) seed.runs.save(aRun({ id: `run-seed${String(i).padStart(4, '0')}`, request: 'x'.repeat(500) }));
    seed.close();
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    const store = await openStore(file);
    assert.match(store.warnings.find((w) => w.kind === 'corrupt-database')?.message ?? '', /could not be read \(it is cut short: its header says \d+ bytes, the file has \d+\) and was moved to /);
  });

  it('releases the lock when opening fails after taking it', async () => {
    const file = tempFile();
    await assert.rejects(DurableDatabase.open({ file, migrations: [{ version: 1, name: 'broken', sql: 'CREATE TABLE broken (' }] }), /incomplete input|syntax error/);
    assert.equal(fs.existsSync(`${file}.lock`), false, 'no lock left behind by the failed open');
    const next = await DurableDatabase.open({ file, migrations: MIGRATIONS });
    assert.equal(next.readOnly, false, 'the next opener becomes the writer');
    next.close();
  });

  it('keeps a copy of a journal cut mid-file and does not claim the loss was one unacknowledged commit', async () => {
    const file = tempFile();
    const { offsets, size } = await journalWithTenCommits(file);
    // Cut in the middle of the sixth commit: five survive whole, five acknowledged ones are gone.
    const cut = offsets[5]! + 30;
    fs.truncateSync(journalPathOf(file), cut);
    const asFound = fs.readFileSync(journalPathOf(file));
    const store = await openStore(file);
    assert.equal(store.ratings.count(), 5);
    const warning = store.warnings.find((w) => w.kind === 'torn-journal');
    assert.ok(warning, JSON.stringify(store.warnings));
    assert.match(warning.message, /ends in the middle of a commit \(#\d+\): 5 complete commits were recovered \(up to #\d+\)/);
    assert.ok(warning.message.includes(`the ${cut - offsets[5]!} bytes after the last complete commit were dropped`), warning.message);
    assert.match(warning.message, /that commit and any after it are lost, and how many cannot be told/);
    assert.doesNotMatch(warning.message, /interrupted before it was acknowledged\.$/);
    assert.match(path.basename(warning.movedTo!), /^ideal-state\.sqlite\.journal\.damaged-/);
    assert.deepEqual(fs.readFileSync(warning.movedTo!), asFound);
    assert.ok(size > cut);
  });

  it('counts exactly the commits lost when a piece is cut out of the middle of the journal', async () => {
    const file = tempFile();
    const { offsets } = await journalWithTenCommits(file);
    const journal = fs.readFileSync(journalPathOf(file));
    // Bytes from inside the fourth commit to inside the sixth are gone; seven, eight, nine and ten are whole but past a gap.
    fs.writeFileSync(journalPathOf(file), Buffer.concat([journal.subarray(0, offsets[3]! + 20), journal.subarray(offsets[5]! + 12)]));
    const store = await openStore(file);
    assert.equal(store.ratings.count(), 3);
    const warning = store.warnings.find((w) => w.kind === 'corrupt-journal');
    assert.ok(warning, JSON.stringify(store.warnings));
    const stated = /at least (\d+) commits are lost \(#(\d+)–#(\d+)\)/.exec(warning.message);
    assert.ok(stated, warning.message);
    assert.equal(Number(stated[1]), 7, 'ten acknowledged, three recovered: seven lost, and the message says so');
    assert.match(warning.message, /3 complete commits were recovered/);
    assert.ok(fs.existsSync(warning.movedTo!));
  });

  it('counts at least the commits past a damaged record', async () => {
    const file = tempFile();
    const { offsets } = await journalWithTenCommits(file);
    const journal = fs.readFileSync(journalPathOf(file));
    journal[offsets[8]! + 20] = journal[offsets[8]! + 20]! ^ 0xff;
    fs.writeFileSync(journalPathOf(file), journal);
    const store = await openStore(file);
    assert.equal(store.ratings.count(), 8);
    const warning = store.warnings.find((w) => w.kind === 'corrupt-journal');
    assert.match(warning?.message ?? '', /8 complete commits were recovered .* at least 2 commits are lost/);
  });

  it('lets a reader of a damaged file move nothing and blame nothing on the journal', async () => {
    const file = tempFile();
    const writer = await openStore(file);
    writer.ratings.save(rating(1));
    fs.writeFileSync(file, 'not a database '.repeat(100));
    const reader = await openStore(file);
    assert.equal(reader.readOnly, true);
    assert.deepEqual(reader.warnings.map((w) => w.kind), ['read-only', 'corrupt-database']);
    assert.match(reader.warnings[1]!.message, /could not be read \(it does not start with an SQLite header\); showing an empty store until its writer moves it aside/);
    assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), ['ideal-state.sqlite', 'ideal-state.sqlite.journal', 'ideal-state.sqlite.lock']);
  });

  it('does not call a commit the writer is appending damage when a reader opens meanwhile', async () => {
    const file = tempFile();
    const writer = await openStore(file);
    writer.ratings.save(rating(1));
    // What a reader can see while the writer's append is under way: a frame's first bytes.
    fs.appendFileSync(journalPathOf(file), Buffer.from([120, 0, 0, 0, 9, 9]));
    const reader = await openStore(file);
    assert.equal(reader.readOnly, true);
    assert.deepEqual(reader.warnings.map((w) => w.kind), ['read-only']);
    assert.equal(reader.ratings.count(), 1);
  });
});
