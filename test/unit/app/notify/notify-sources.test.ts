import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { exportRunBundle } from '../../../../src/agent/bundle';
import { LoopEngine } from '../../../../src/app/loop';
import { verifySignature } from '../../../../src/app/notify/sign';
import { runCli } from '../../support/cli-helpers';
import { goodPage, loopHarness, loopWorkspace, subRunSteps } from '../../support/loop-helpers';
import { REPO_ROOT } from '../../support/repo-root';

describe('a scheduled loop, recorded and told', function () {
  this.timeout(120_000);

  it("each sub-run's bundle says which schedule started its loop", async () => {
    const { workspace } = loopWorkspace(2, 1);
    const h = await loopHarness(workspace, (file) => subRunSteps(file, goodPage(path.posix.basename(file, '.md'))));
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-bundle-'));
    try {
      const scheduled = await new LoopEngine({ ...h.ports, startedBy: { who: 'schedule', schedule: 'nightly' } }).start({ glob: 'docs/**/*.md', isc: 'test.loop-page', agents: 1, effort: 'STANDARD', maxIterations: 2 });
      const runId = scheduled.artifacts.find((a) => a.runId)!.runId!;
      await exportRunBundle(h.store, runId, out, workspace);
      const manifest = JSON.parse(fs.readFileSync(path.join(out, runId, 'manifest.json'), 'utf8')) as { startedBy: unknown };
      assert.deepEqual(manifest.startedBy, { who: 'schedule', schedule: 'nightly' });
      assert.deepEqual(h.store.loops.get(scheduled.loop.id)?.startedBy, { who: 'schedule', schedule: 'nightly' });
    } finally {
      h.close();
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  describe('at a local receiver', () => {
    let root: string;
    let server: http.Server;
    const got: { event: string; body: string; signature: string }[] = [];
    before(async () => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-notify-sources-'));
      server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          got.push({ event: String(req.headers['x-ideal-state-event']), body, signature: String(req.headers['x-ideal-state-signature-256']) });
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const config = path.join(root, 'config', 'ideal-state', 'notifications.yaml');
      fs.mkdirSync(path.dirname(config), { recursive: true });
      fs.writeFileSync(config, `webhooks:\n  - url: http://127.0.0.1:${(server.address() as AddressInfo).port}/\n    events: [loop.finished, schedule.failed]\n    secretEnv: SOURCES_SECRET\n`);
    });
    after(() => {
      server.close();
      fs.rmSync(root, { recursive: true, force: true });
    });
    beforeEach(() => (got.length = 0));
    const env = () => ({ XDG_CONFIG_HOME: path.join(root, 'config'), SOURCES_SECRET: 'sources-secret-value' });

    it('a scheduled loop that ends FAILED sends loop.finished and schedule.failed, both naming the schedule', async () => {
      const ws = path.join(root, 'ws');
      fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
      fs.writeFileSync(path.join(ws, 'docs', 'a.md'), '# a\n');
      const run = await runCli(['loop', '--workspace', ws, '--glob', 'docs/*.md', '--isc', 'docs.page', '--verify-only', '--started-by', 'schedule:weekly', '--store', path.join(root, 'store.sqlite')], { env: env() });
      assert.equal(run.code, 1, run.err);
      assert.deepEqual(got.map((g) => g.event), ['loop.finished', 'schedule.failed']);
      for (const g of got) {
        assert.ok(verifySignature(g.body, 'sources-secret-value', g.signature));
        assert.deepEqual((JSON.parse(g.body) as { startedBy: unknown }).startedBy, { who: 'schedule', schedule: 'weekly' });
      }
      const failed = JSON.parse(got[1]!.body) as { data: { schedule: string; state: string } };
      assert.deepEqual([failed.data.schedule, failed.data.state], ['weekly', 'FAILED']);
    });

    it('a scheduled loop that cannot start (its glob matches nothing) is schedule.failed with why', async () => {
      const ws = path.join(root, 'empty');
      fs.mkdirSync(ws, { recursive: true });
      const run = await runCli(['loop', '--workspace', ws, '--glob', 'docs/*.md', '--isc', 'docs.page', '--verify-only', '--started-by', 'schedule:weekly', '--store', path.join(root, 'store2.sqlite')], { env: env() });
      assert.equal(run.code, 2);
      assert.deepEqual(got.map((g) => g.event), ['schedule.failed']);
      const data = (JSON.parse(got[0]!.body) as { data: { state: string; reason: string } }).data;
      assert.equal(data.state, 'NOT_STARTED');
      assert.match(data.reason, /matches no file/);
    });

    it('ideal-state run sends run.finished at its end, signed, with the run and its criteria', async () => {
      const sample = path.resolve(REPO_ROOT, 'test/fixtures/sample-workspace');
      const ws = path.join(root, 'sample');
      fs.cpSync(sample, ws, { recursive: true });
      const config = path.join(root, 'config', 'ideal-state', 'notifications.yaml');
      const before = fs.readFileSync(config, 'utf8');
      fs.writeFileSync(config, before.replace('events: [loop.finished, schedule.failed]', 'events: [run.finished]'));
      try {
        const request = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';
        const run = await runCli(['run', request, '--effort', 'STANDARD', '--workspace', ws, '--store', path.join(root, 'run.sqlite'), '--provider', 'scripted', '--script', path.join(ws, '.ideal-state/demo/demo-run.yaml'), '--approve', 'edits,commands', '--trust-workspace', '--json'], { env: env() });
        assert.equal(run.code, 0, run.err);
        const result = JSON.parse(run.out) as { runId: string; criteria: unknown[] };
        assert.deepEqual(got.map((g) => g.event), ['run.finished']);
        assert.ok(verifySignature(got[0]!.body, 'sources-secret-value', got[0]!.signature));
        const data = (JSON.parse(got[0]!.body) as { data: { runId: string; state: string; reason?: string; prd?: string; passing: number; total: number; failing: unknown[] } }).data;
        assert.match(data.prd ?? '', /^\.ideal-state\/prds\/PRD-/);
        assert.deepEqual(data, { runId: result.runId, state: 'COMPLETE', reason: 'every CRITICAL criterion verified PASS', prd: data.prd, passing: result.criteria.length, total: result.criteria.length, failing: [] } as typeof data);
      } finally {
        fs.writeFileSync(config, before);
      }
    });

    it("a person's loop that cannot start sends nothing", async () => {
      const ws = path.join(root, 'empty2');
      fs.mkdirSync(ws, { recursive: true });
      const run = await runCli(['loop', '--workspace', ws, '--glob', 'docs/*.md', '--isc', 'docs.page', '--verify-only', '--store', path.join(root, 'store3.sqlite')], { env: env() });
      assert.equal(run.code, 2);
      assert.deepEqual(got, []);
    });
  });
});
