import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../../../src/store/store';

/**
 * Many processes opening one store at the same instant: on a fresh store, on a store whose
 * lock names a dead process, and on one whose writer was killed (`kill -9`) mid-commit.
 * Exactly one may become the writer each round, the others read-only and told who holds it,
 * and every commit a writer acknowledged must be in the store afterwards.
 *
 * IDEAL_STATE_RACE_ROUNDS and IDEAL_STATE_RACE_WORKERS raise the figures for a long run by hand.
 */
describe('store: processes racing to become the writer', () => {
  const rounds = Number(process.env.IDEAL_STATE_RACE_ROUNDS ?? 100);
  const workerCount = Number(process.env.IDEAL_STATE_RACE_WORKERS ?? 4);
  const child = path.join(__dirname, 'store-race.child.js');
  let workers: RaceWorker[] = [];
  let dir: string | undefined;

  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    // Hundreds of small stores: not left in the temporary folder.
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`lets exactly one of ${workerCount} processes write, ${rounds} rounds, and loses no acknowledged commit`, async function () {
    this.timeout(rounds * 3000 + 30_000);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-race-'));
    const shared = path.join(dir, 'shared', 'ideal-state.sqlite');
    workers = await Promise.all(Array.from({ length: workerCount }, () => RaceWorker.start(child)));
    let deadPid = deadProcessId();
    const started = Date.now();

    const figures = { rounds: 0, fresh: 0, plantedStale: 0, afterKill: 0, twoOrMoreWriters: 0, noWriter: 0, acknowledged: 0, lost: 0, errors: [] as string[], readersNotNamingWriter: 0, tmpLeft: 0 };
    const sharedAcked = new Set<string>();
    const lost = new Set<string>();
    let sharedEndedInKill = false;

    for (let round = 0; round < rounds; round++) {
      const fresh = round % 2 === 0;
      const file = fresh ? path.join(dir, `fresh-${round}`, 'ideal-state.sqlite') : shared;
      if (fresh) figures.fresh++;
      else if (sharedEndedInKill) figures.afterKill++;
      else {
        // A lock left by a process that is gone (the format older versions wrote).
        if (isAlive(deadPid)) deadPid = deadProcessId();
        fs.mkdirSync(path.dirname(shared), { recursive: true });
        if (fs.existsSync(shared)) fs.writeFileSync(`${shared}.lock`, JSON.stringify({ pid: deadPid, host: os.hostname(), since: new Date(Date.now() - 60_000).toISOString() }));
        figures.plantedStale++;
      }
      // Shared rounds alternate between a clean close and killing the writer mid-commit.
      const kill = !fresh && round % 4 === 3;
      const startAt = Date.now() + 25;
      const commits = 3 + (round % 4);
      // A writer is killed only once every process has opened: killed earlier, its lock would be
      // stale for a slow opener, which would then rightly take over (two writers, one after the other).
      let opened = 0;
      let allOpened!: () => void;
      const gate = new Promise<void>((resolve) => (allOpened = resolve));
      const onRole = () => ++opened === workers.length && allOpened();
      const outcomes = await Promise.all(
        workers.map((w, i) => w.open(`open ${file} ${commits} ${startAt} r${String(round).padStart(4, '0')}w${i}`, onRole, kill ? { gate, afterMs: Math.random() * 20 } : undefined)),
      );
      figures.rounds++;
      const writers = outcomes.filter((o) => o.role === 'writer');
      if (writers.length > 1) {
        figures.twoOrMoreWriters++;
        console.log(`      round ${round} (${fresh ? 'fresh' : kill ? 'kill' : 'shared'}): ${writers.length} writers`);
      }
      if (writers.length === 0) figures.noWriter++;
      for (const o of outcomes) figures.errors.push(...o.errors.map((e) => `round ${round}: ${e}`));
      const writerPids = new Set(outcomes.filter((o) => o.role === 'writer').map((o) => o.pid));
      for (const o of outcomes) {
        if (o.role === 'reader' && ![...writerPids].some((pid) => new RegExp(`process ${pid} on .* since \\d{4}-`).test(o.message))) figures.readersNotNamingWriter++;
      }
      const acked = outcomes.flatMap((o) => o.acks);
      figures.acknowledged += acked.length;

      for (const [i, w] of workers.entries()) {
        if (!w.exited) figures.errors.push(...(await w.close()).map((e) => `round ${round} close: ${e}`));
        if (w.exited) workers[i] = await RaceWorker.start(child);
      }

      if (fresh) for (const id of await missing(file, acked)) lost.add(id);
      else {
        for (const id of acked) sharedAcked.add(id);
        sharedEndedInKill = kill;
        // A killed writer's lock is left for the next shared round to take over; check the rest now.
        if (!kill) for (const id of await missing(shared, [...sharedAcked])) lost.add(id);
      }
      if (!kill) figures.tmpLeft += fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp')).length;
    }
    if (sharedEndedInKill) for (const id of await missing(shared, [...sharedAcked])) lost.add(id);
    figures.lost = lost.size;

    // Not an assertion on timing: the figures of the run, for the record.
    console.log(`      ${JSON.stringify({ ...figures, errors: figures.errors.length, seconds: Math.round((Date.now() - started) / 1000) })}`);
    assert.deepEqual(figures.errors.slice(0, 5), [], 'no process failed');
    assert.equal(figures.twoOrMoreWriters, 0, 'rounds with two or more writers');
    assert.equal(figures.noWriter, 0, 'rounds where nobody could write');
    assert.equal(figures.lost, 0, `acknowledged commits lost (of ${figures.acknowledged})`);
    assert.equal(figures.readersNotNamingWriter, 0, 'read-only openers told which process writes');
    assert.equal(figures.tmpLeft, 0, 'no temporary file left behind after a clean close');
    assert.ok(figures.acknowledged >= rounds, 'every round committed something');
  });
});

/** Which of `ids` the store lacks, read by this process once nobody else has it open. */
async function missing(file: string, ids: readonly string[]): Promise<string[]> {
  const store = await Store.open({ file, checkpointIdleMs: 60_000 });
  try {
    assert.equal(store.readOnly, false, `the checker could not open ${file} for writing: ${store.warnings.map((w) => w.message).join(' ')}`);
    const present = new Set(store.runs.list().map((r) => r.id));
    return ids.filter((id) => !present.has(id));
  } finally {
    store.close();
  }
}

function deadProcessId(): number {
  const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']);
  return dead.pid!;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface OpenOutcome {
  readonly pid: number;
  readonly role: 'writer' | 'reader' | 'failed';
  readonly message: string;
  readonly acks: string[];
  readonly errors: string[];
}

/** One long-lived child (see store-race.child.ts), so a round costs an open, not a process start. */
class RaceWorker {
  private buffer = '';
  private readonly lines: string[] = [];
  private wake: (() => void) | undefined;
  private stderr = '';
  exited = false;

  private constructor(private readonly proc: ChildProcessWithoutNullStreams) {
    proc.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        this.lines.push(this.buffer.slice(0, newline));
        this.buffer = this.buffer.slice(newline + 1);
      }
      this.wake?.();
    });
    proc.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    proc.on('exit', () => {
      this.exited = true;
      this.wake?.();
    });
    proc.stdin.on('error', () => undefined);
  }

  static async start(child: string): Promise<RaceWorker> {
    const worker = new RaceWorker(spawn(process.execPath, [child], { stdio: ['pipe', 'pipe', 'pipe'] }));
    const first = await worker.next();
    if (first !== 'ready') throw new Error(`race worker did not start: ${first} ${worker.stderr}`);
    return worker;
  }

  /**
   * Sends `open …` and calls `onRole` once it knows whether this process writes. With `kill`, a
   * writer is killed `afterMs` after both its first acknowledged commit and the `gate`.
   */
  async open(command: string, onRole: () => void, kill: { gate: Promise<void>; afterMs: number } | undefined): Promise<OpenOutcome> {
    const outcome = await this.openUnannounced(command, onRole, kill);
    if (outcome.role === 'failed') onRole();
    return outcome;
  }

  private async openUnannounced(command: string, onRole: () => void, kill: { gate: Promise<void>; afterMs: number } | undefined): Promise<OpenOutcome> {
    const pid = this.proc.pid!;
    this.proc.stdin.write(`${command}\n`);
    const errors: string[] = [];
    const acks: string[] = [];
    for (;;) {
      const line = await this.next();
      if (line === undefined) return { pid, role: 'failed', message: 'exited', acks, errors: [...errors, `exited before opening: ${this.stderr}`] };
      if (line.startsWith('error ')) errors.push(line.slice(6));
      if (line.startsWith('error ')) return { pid, role: 'failed', message: line, acks, errors };
      if (line.startsWith('reader ')) {
        onRole();
        return { pid, role: 'reader', message: line.slice(7), acks, errors };
      }
      if (line === 'writer') break;
    }
    onRole();
    for (;;) {
      const line = await this.next();
      if (line === undefined) return { pid, role: 'writer', message: '', acks, errors: kill ? errors : [...errors, `writer exited: ${this.stderr}`] };
      if (line.startsWith('ack ')) {
        if (acks.length === 0 && kill) void kill.gate.then(() => setTimeout(() => this.proc.kill('SIGKILL'), kill.afterMs));
        acks.push(line.slice(4));
      } else if (line.startsWith('error ')) errors.push(line.slice(6));
      else if (line === 'done') {
        // A writer that finished before its kill is still killed, so its lock is left behind.
        if (kill) {
          await kill.gate;
          this.proc.kill('SIGKILL');
          while ((await this.next()) !== undefined) {
            // drain until it is gone
          }
        }
        return { pid, role: 'writer', message: '', acks, errors };
      }
    }
  }

  /** Closes its store; returns what went wrong. */
  async close(): Promise<string[]> {
    this.proc.stdin.write('close\n');
    const errors: string[] = [];
    for (;;) {
      const line = await this.next();
      if (line === undefined) return [...errors, `exited while closing: ${this.stderr}`];
      if (line.startsWith('error ')) errors.push(line.slice(6));
      if (line === 'closed') return errors;
    }
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    this.proc.stdin.write('exit\n');
    while ((await this.next()) !== undefined) {
      // until it exits
    }
  }

  /** The next line, or undefined once the process has exited and every line was read. */
  private async next(): Promise<string | undefined> {
    while (this.lines.length === 0 && !this.exited) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    return this.lines.shift();
  }
}
