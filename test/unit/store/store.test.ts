import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DurableDatabase, journalPathOf } from '../../../src/store/durable-database';
import { ReadOnlyStoreError } from '../../../src/store/errors';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../../src/store/migrations';
import { defaultCliStoreFile, Store } from '../../../src/store/store';
import { aCriterion, aRun } from '../support/builders';

function tempFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-store-')), 'ideal-state.sqlite');
}

describe('store', () => {
  const open: Store[] = [];
  async function openStore(file: string, options: { checkpointIdleMs?: number } = {}): Promise<Store> {
    const store = await Store.open({ file, checkpointIdleMs: options.checkpointIdleMs ?? 60_000 });
    open.push(store);
    return store;
  }
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  it('creates the latest schema from empty and round-trips a run', async () => {
    const store = await openStore(tempFile());
    assert.equal(store.schemaVersion, LATEST_SCHEMA_VERSION);
    assert.equal(store.readOnly, false);
    const run = aRun();
    store.runs.save(run);
    assert.deepEqual(store.runs.get(run.id), run);
    assert.equal(store.runs.count(), 1);
  });

  it('keeps a run\'s criteria and decisions when the run itself is saved again', async () => {
    const store = await openStore(tempFile());
    const run = aRun();
    store.runs.save(run);
    store.criteria.saveVersion(run.id, 1, [aCriterion({ id: 'ISC-1' })]);
    store.runs.save({ ...run, criteriaVersion: 1, iteration: 1 });
    assert.deepEqual(store.criteria.list(run.id).map((c) => c.id), ['ISC-1'], 'an update of the run is not a delete that cascades');
    assert.equal(store.runs.get(run.id)!.iteration, 1);
  });

  it('keeps criteria by version and updates one row in place', async () => {
    const store = await openStore(tempFile());
    const run = aRun();
    store.runs.save(run);
    const first = [aCriterion({ id: 'ISC-1' }), aCriterion({ id: 'ISC-2' }), aCriterion({ kind: 'anti-criterion', id: 'ISC-A-1' })];
    store.criteria.saveVersion(run.id, 1, first);
    store.criteria.saveVersion(run.id, 2, [...first, aCriterion({ id: 'ISC-3' })]);
    store.criteria.update(run.id, 2, { ...first[0]!, status: 'DONE', outcome: 'PASS' });
    assert.deepEqual(store.criteria.versions(run.id), [1, 2]);
    assert.equal(store.criteria.list(run.id, 1).length, 3);
    const latest = store.criteria.list(run.id);
    assert.equal(latest.length, 4);
    assert.equal(latest.find((c) => c.id === 'ISC-1')!.outcome, 'PASS');
    assert.equal(store.criteria.list(run.id, 1).find((c) => c.id === 'ISC-1')!.outcome, undefined, 'older version untouched');
  });

  it('deletes a run with everything that hangs off it', async () => {
    const store = await openStore(tempFile());
    const run = aRun();
    store.batch((tx) => {
      tx.runs.save(run);
      tx.criteria.saveVersion(run.id, 1, [aCriterion()]);
      tx.decisions.save({ id: 'd1', runId: run.id, at: run.createdAt, by: 'user', decision: 'Keep it small', rationale: 'Budget', alternatives: [] });
    });
    store.runs.delete(run.id);
    assert.equal(store.runs.count(), 0);
    assert.equal(store.criteria.list(run.id).length, 0);
    assert.equal(store.decisions.count(), 0);
  });

  it('commits a batch as one: a failing write leaves nothing behind', async () => {
    const store = await openStore(tempFile());
    const run = aRun();
    assert.throws(() =>
      store.batch((tx) => {
        tx.runs.save(run);
        tx.criteria.saveVersion('run-doesnotexist', 1, [aCriterion()]); // foreign key violation
      }),
    );
    assert.equal(store.runs.count(), 0);
  });

  it('rejects invalid entities before they reach the database', async () => {
    const store = await openStore(tempFile());
    assert.throws(() => store.runs.save({ ...aRun(), effort: 'HUGE' as never }), /effort/);
    assert.equal(store.runs.count(), 0);
  });

  it('survives reopening, with and without a checkpoint', async () => {
    const file = tempFile();
    const a = await Store.open({ file, checkpointIdleMs: 60_000 });
    a.runs.save(aRun({ id: 'run-aaaaaa1' }));
    a.checkpoint();
    a.runs.save(aRun({ id: 'run-aaaaaa2' }));
    assert.ok(a.journalBytes > 0, 'second commit only in the journal');
    a.close();
    const b = await openStore(file);
    assert.deepEqual(b.runs.list().map((r) => r.id).sort(), ['run-aaaaaa1', 'run-aaaaaa2']);
    assert.deepEqual(b.warnings, []);
  });

  it('migrates a database from each older schema version, keeping its data', async () => {
    for (let version = 1; version < LATEST_SCHEMA_VERSION; version++) {
      const file = tempFile();
      const old = await DurableDatabase.open({ file, migrations: MIGRATIONS.filter((m) => m.version <= version) });
      assert.equal(old.schemaVersion, version);
      const run = aRun();
      old.transact([{ sql: 'INSERT INTO runs (id, state, effort, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?, ?)', params: [run.id, run.state, run.effort, run.createdAt, run.updatedAt, JSON.stringify(run)] }]);
      old.close();
      const store = await openStore(file);
      assert.equal(store.schemaVersion, LATEST_SCHEMA_VERSION, `from v${version}`);
      assert.deepEqual(store.runs.get(run.id), run);
      store.ratings.save({ id: 'r1', timestamp: run.createdAt, rating: 7, sessionId: 's', type: 'explicit' });
      assert.equal(store.ratings.count(), 1);
    }
  });

  it('opens a database from a newer version without crashing, and says so', async () => {
    const file = tempFile();
    const newer = await DurableDatabase.open({ file, migrations: [...MIGRATIONS, { version: 99, name: 'future', sql: 'CREATE TABLE future (x)' }] });
    newer.close();
    const store = await openStore(file);
    assert.equal(store.schemaVersion, 99);
    assert.match(store.warnings.map((w) => w.message).join(), /newer than this version of the extension understands/);
  });

  for (const [name, damage] of [
    ['garbage', (file: string) => fs.writeFileSync(file, 'this is not a database at all '.repeat(200))],
    ['truncated', (file: string) => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2))],
    ['empty', (file: string) => fs.truncateSync(file, 0)],
  ] as const) {
    it(`moves a ${name} database file aside with a warning and starts fresh`, async () => {
      const file = tempFile();
      const seed = await Store.open({ file });
      for (let i = 0; i < 300; i++) seed.runs.save(aRun({ id: `run-seed${String(i).padStart(4, '0')}`, request: 'x'.repeat(500) }));
      seed.close();
      damage(file);
      const damaged = fs.readFileSync(file);
      const store = await openStore(file);
      const warning = store.warnings.find((w) => w.kind === 'corrupt-database');
      assert.ok(warning, JSON.stringify(store.warnings));
      assert.ok(warning.movedTo && fs.existsSync(warning.movedTo), 'the damaged file is kept');
      assert.deepEqual(fs.readFileSync(warning.movedTo), damaged);
      assert.match(warning.message, /was moved to .*corrupt-/);
      assert.equal(store.runs.count(), 0);
      store.runs.save(aRun());
      assert.equal(store.runs.count(), 1, 'the fresh store works');
    });
  }

  it('recovers the journal up to a damaged record and keeps a copy of it', async () => {
    const file = tempFile();
    const a = await Store.open({ file, checkpointIdleMs: 60_000 });
    a.runs.save(aRun({ id: 'run-keep0001' }));
    const cut = fs.statSync(journalPathOf(file)).size;
    a.runs.save(aRun({ id: 'run-lost0001' }));
    a.runs.save(aRun({ id: 'run-lost0002' }));
    // Simulate a crash: drop the process's hold without a checkpoint.
    fs.rmSync(`${file}.lock`);
    const journal = fs.readFileSync(journalPathOf(file));
    journal[cut + 20] = journal[cut + 20]! ^ 0xff;
    fs.writeFileSync(journalPathOf(file), journal);
    const b = await openStore(file);
    assert.deepEqual(b.runs.list().map((r) => r.id), ['run-keep0001']);
    const warning = b.warnings.find((w) => w.kind === 'corrupt-journal')!;
    assert.ok(warning, JSON.stringify(b.warnings));
    assert.deepEqual(fs.readFileSync(warning.movedTo!), journal);
    b.runs.save(aRun({ id: 'run-after001' }));
    assert.equal(b.runs.count(), 2);
  });

  it('drops a torn last record, keeps a copy, and does not claim it was never acknowledged', async () => {
    const file = tempFile();
    const a = await Store.open({ file, checkpointIdleMs: 60_000 });
    a.runs.save(aRun({ id: 'run-keep0001' }));
    fs.rmSync(`${file}.lock`);
    fs.appendFileSync(journalPathOf(file), Buffer.from([200, 0, 0, 0, 1, 2, 3, 4, 5]));
    const asFound = fs.readFileSync(journalPathOf(file));
    const b = await openStore(file);
    assert.deepEqual(b.runs.list().map((r) => r.id), ['run-keep0001']);
    assert.deepEqual(b.warnings.map((w) => w.kind), ['torn-journal']);
    const warning = b.warnings[0]!;
    assert.match(warning.message, /the 9 bytes after the last complete commit were dropped/);
    assert.match(warning.message, /if the journal was cut or damaged, that commit and any after it are lost/);
    assert.deepEqual(fs.readFileSync(warning.movedTo!), asFound, 'the journal as found is kept');
    assert.ok(warning.message.includes(`A copy of the journal as found is at ${warning.movedTo}.`), warning.message);
  });

  it('applies no journal record twice when a crash lands between checkpoint and journal reset', async () => {
    const file = tempFile();
    const counter = [{ version: 1, name: 'counter', sql: 'CREATE TABLE counter (n INTEGER NOT NULL); INSERT INTO counter VALUES (0);' }];
    const a = await DurableDatabase.open({ file, migrations: counter, checkpointIdleMs: 60_000 });
    a.transact([{ sql: 'UPDATE counter SET n = n + 1' }]);
    a.transact([{ sql: 'UPDATE counter SET n = n + 1' }]);
    const journal = fs.readFileSync(journalPathOf(file));
    a.checkpoint();
    a.close();
    fs.writeFileSync(journalPathOf(file), journal); // as if the reset never happened
    const b = await DurableDatabase.open({ file, migrations: counter, checkpointIdleMs: 60_000 });
    assert.deepEqual(b.query('SELECT n FROM counter'), [{ n: 2 }]);
    b.transact([{ sql: 'UPDATE counter SET n = n + 1' }]);
    b.close();
    const c = await DurableDatabase.open({ file, migrations: counter });
    assert.deepEqual(c.query('SELECT n FROM counter'), [{ n: 3 }]);
    c.close();
  });

  it('ignores a half-written checkpoint file left by a crash', async () => {
    const file = tempFile();
    const a = await Store.open({ file, checkpointIdleMs: 60_000 });
    a.runs.save(aRun({ id: 'run-keep0001' }));
    a.checkpoint();
    a.runs.save(aRun({ id: 'run-keep0002' }));
    fs.rmSync(`${file}.lock`);
    fs.writeFileSync(`${file}.tmp`, 'SQLite format 3\0 and then the crash');
    const b = await openStore(file);
    assert.deepEqual(b.runs.list().map((r) => r.id).sort(), ['run-keep0001', 'run-keep0002']);
    assert.equal(fs.existsSync(`${file}.tmp`), false);
    assert.deepEqual(b.warnings, []);
  });

  it('lets only one writer in: a second opener is read-only with a clear message', async () => {
    const file = tempFile();
    const writer = await openStore(file);
    writer.runs.save(aRun({ id: 'run-shared01' }));
    const reader = await openStore(file);
    assert.equal(reader.readOnly, true);
    assert.deepEqual(reader.runs.list().map((r) => r.id), ['run-shared01'], 'the reader sees committed data');
    assert.match(reader.warnings[0]!.message, /open for writing in another window or process \(process \d+/);
    assert.throws(() => reader.runs.save(aRun()), ReadOnlyStoreError);
  });

  it('takes over the lock of a writer process that died', async () => {
    const file = tempFile();
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']);
    assert.equal(dead.status, 0);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: dead.pid, host: os.hostname(), since: new Date().toISOString() }));
    const store = await openStore(file);
    assert.equal(store.readOnly, false);
  });

  it('keeps every acknowledged commit when the writer is killed at random instants', async function () {
    const kills = Number(process.env.IDEAL_STATE_CRASH_KILLS ?? 200);
    this.timeout(kills * 1500 + 30_000);
    const file = tempFile();
    const child = path.join(__dirname, 'crash-writer.child.js');
    let next = 0;
    let acknowledged = new Set<number>();
    let killedMidCheckpoint = 0;
    for (let k = 0; k < kills; k++) {
      const acked = await runAndKill(child, file, next, 5 + Math.random() * 150);
      for (const n of acked) acknowledged.add(n);
      if (fs.readdirSync(path.dirname(file)).some((n) => /^ideal-state\.sqlite\.\d+\.[0-9a-f]+\.tmp$/.test(n))) killedMidCheckpoint++;
      next += acked.length + 1;
      const store = await Store.open({ file, checkpointIdleMs: 60_000 });
      const present = new Set(store.runs.list().map((r) => parseInt(r.id.slice(4), 36)));
      const missing = [...acknowledged].filter((n) => !present.has(n));
      assert.deepEqual(missing, [], `after kill ${k + 1}: acknowledged commits lost`);
      assert.equal(store.events.count(), present.size, 'each run committed together with its event');
      assert.deepEqual(store.warnings.filter((w) => w.kind !== 'torn-journal'), []);
      store.close();
      acknowledged = present;
    }
    assert.ok(acknowledged.size >= kills, `expected at least one commit per round, got ${acknowledged.size} over ${kills} rounds`);
    // Not an assertion on timing: it tells whether kills also landed inside checkpoints.
    console.log(`      ${kills} kills, ${acknowledged.size} commits kept, ${killedMidCheckpoint} kills during a checkpoint write`);
  });
});

describe('command-line store location', () => {
  it('is one file per workspace under the user data folder', () => {
    const a = defaultCliStoreFile('/home/u/project', { XDG_DATA_HOME: '/data' }, 'linux');
    const b = defaultCliStoreFile('/home/u/other', { XDG_DATA_HOME: '/data' }, 'linux');
    assert.match(a, /^\/data\/ideal-state\/workspaces\/project-[0-9a-f]{16}\/ideal-state\.sqlite$/);
    assert.notEqual(path.dirname(a), path.dirname(b));
    assert.equal(defaultCliStoreFile('/home/u/project', { XDG_DATA_HOME: '/data' }, 'linux'), a, 'stable');
  });
});

/** Starts the crash writer, kills it `delayMs` after its first acknowledged commit, and returns the acknowledged numbers. */
function runAndKill(child: string, file: string, start: number, delayMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, file, String(start), String(1024 + Math.floor(Math.random() * 8192))], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked: number[] = [];
    let buffer = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (!line.startsWith('ack ')) continue;
        // The random instant counts from the first acknowledged commit, so a slow start on a
        // loaded machine cannot turn a round into one that never wrote anything.
        if (acked.length === 0) setTimeout(() => proc.kill('SIGKILL'), delayMs);
        acked.push(Number(line.slice(4)));
      }
    });
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`crash writer exited on its own: ${stderr}`));
    });
  });
}
