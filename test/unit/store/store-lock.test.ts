import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WriterLock } from '../../../src/store/writer-lock';
import { tempStoreFile, useStores } from './store-helpers';

const tempFile = () => tempStoreFile('lock');

function deadPid(): number {
  return spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
}

const token = (c: string) => c.repeat(32);
const lockText = (pid: number, t?: string, host = os.hostname()) => JSON.stringify({ pid, host, since: '2026-11-01T10:00:00.000Z', ...(t ? { token: t } : {}) });

describe('store: the writer lock', () => {
  const openStore = useStores();

  it('takes over a stale lock whose takeover was itself interrupted, and clears what the dead left', async () => {
    const file = tempFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const lock = `${file}.lock`;
    // A writer died; the process taking its lock over died too, holding the takeover guard; both left temporaries.
    fs.writeFileSync(lock, lockText(deadPid(), token('a')));
    fs.writeFileSync(`${lock}.takeover-${token('a')}`, lockText(deadPid(), token('b')));
    const hostHash = crypto.createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);
    fs.writeFileSync(`${lock}.${hostHash}-${deadPid()}-0123456789ab.tmp`, lockText(1));
    const store = await openStore(file);
    assert.equal(store.readOnly, false);
    const owner = JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number; token: string };
    assert.equal(owner.pid, process.pid);
    assert.match(owner.token, /^[0-9a-f]{32}$/);
    assert.deepEqual(
      fs.readdirSync(path.dirname(file)).filter((n) => n.includes('.takeover-') || n.endsWith('.tmp')),
      [],
    );
  });

  it('takes over a lock naming this very pid that this process never took (a restarted container)', async () => {
    const file = tempFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.lock`, lockText(process.pid, token('c')));
    const store = await openStore(file);
    assert.equal(store.readOnly, false);
  });

  it('respects a lock from another machine, and names it', async () => {
    const file = tempFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.lock`, lockText(deadPid(), token('d'), 'some-other-machine'));
    const store = await openStore(file);
    assert.equal(store.readOnly, true);
    assert.match(store.warnings[0]!.message, /open for writing in another window or process \(process \d+ on some-other-machine since 2026-11-01T10:00:00\.000Z\)/);
  });

  it('treats an unreadable lock as being written unless it is old', async () => {
    const file = tempFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.lock`, '{"pid": 12');
    const young = await openStore(file);
    assert.equal(young.readOnly, true);
    assert.match(young.warnings[0]!.message, /an unknown process/);
    const minuteAgo = new Date(Date.now() - 60_000);
    fs.utimesSync(`${file}.lock`, minuteAgo, minuteAgo);
    const old = await openStore(file);
    assert.equal(old.readOnly, false);
  });

  it('does not take pid 0 (a process group to the liveness check) for a live owner', async () => {
    const file = tempFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.lock`, lockText(0, token('f')));
    const minuteAgo = new Date(Date.now() - 60_000);
    fs.utimesSync(`${file}.lock`, minuteAgo, minuteAgo);
    const store = await openStore(file);
    assert.equal(store.readOnly, false);
  });

  it('gives one lock to one of many acquirers in this process, and releases only its own', async () => {
    const file = `${tempFile()}.lock`;
    const results = await Promise.all(Array.from({ length: 8 }, () => WriterLock.acquire(file)));
    const winners = results.filter((r) => r.acquired);
    assert.equal(winners.length, 1);
    const losers = results.filter((r) => !r.acquired);
    for (const r of losers) assert.equal(r.acquired === false && r.owner?.pid, process.pid);
    const winner = winners[0]!;
    if (!winner.acquired) throw new Error('unreachable');
    // Someone removed the lock by hand and another process took it: our release must not delete theirs.
    fs.writeFileSync(file, lockText(process.pid, token('e')));
    winner.lock.release();
    assert.equal(fs.existsSync(file), true);
  });

  it('still gives the lock to one where the file system has no hard links', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nodeFs = require('node:fs') as typeof fs;
    const link = nodeFs.linkSync;
    let refused = 0;
    nodeFs.linkSync = () => {
      refused++;
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    };
    try {
      const file = `${tempFile()}.lock`;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, lockText(deadPid()));
      const results = await Promise.all(Array.from({ length: 8 }, () => WriterLock.acquire(file)));
      assert.equal(results.filter((r) => r.acquired).length, 1);
      assert.ok(refused >= 8, 'every acquirer fell back to an exclusive create');
      assert.equal((JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number }).pid, process.pid);
      for (const r of results) if (r.acquired) r.lock.release();
      assert.equal(fs.existsSync(file), false);
    } finally {
      nodeFs.linkSync = link;
    }
  });

  it('removes checkpoint files half-written by a dead writer, whatever their name', async () => {
    const file = tempFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.${deadPid()}.0123456789ab.tmp`, 'SQLite format 3\0 and then the kill');
    const store = await openStore(file);
    assert.equal(store.readOnly, false);
    assert.deepEqual(fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp')), []);
  });
});
