import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeServer, openAiCompletion } from '../fixtures/llm/fake-server';
import { runCli } from '../support/cli-helpers';
import { managerSteps, markerCriteria, markerFile, specialistSteps, tempDir, type Step } from '../support/algorithm-helpers';
import { REPO_ROOT } from '../support/repo-root';

const CLI = path.resolve(REPO_ROOT, 'dist/cli.js');

const cli = (args: string[], env: Record<string, string>) => runCli(args, { env });

/** The scripted steps as an OpenAI-compatible server answers them. */
function replies(server: FakeServer, steps: Step[]): void {
  steps.forEach((s, i) => {
    if (s.object !== undefined) server.reply(openAiCompletion({ content: JSON.stringify(s.object) }, 'stop'));
    else if (s.toolCalls) server.reply(openAiCompletion({ content: s.text ?? null, tool_calls: s.toolCalls.map((c, j) => ({ id: `call_${i}_${j}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) }, 'tool_calls'));
    else server.reply(openAiCompletion({ content: s.text ?? '' }, 'stop'));
  });
}

describe('command line: ideal-state run (against a fake OpenAI-compatible server)', () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await new FakeServer().start();
  });
  afterEach(async () => {
    await server.stop();
  });

  const env = () => ({ OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-test-cli-0123456789' });

  it('runs to COMPLETE with --approve edits: exit 0 and the final criteria as JSON', async function () {
    this.timeout(60_000);
    const ws = tempDir('cli-ws');
    replies(server, [...managerSteps(markerCriteria(2)), ...specialistSteps('out.txt', markerFile(2))]);
    const r = await cli(['run', 'Write out.txt with two markers', '--effort', 'INSTANT', '--workspace', ws, '--store', path.join(ws, '..', `${path.basename(ws)}.sqlite`), '--json', '--approve', 'edits', '--model', 'local-model'], env());
    assert.equal(r.code, 0, r.err);
    const json = JSON.parse(r.out);
    assert.equal(json.state, 'COMPLETE');
    assert.equal(json.effort, 'INSTANT');
    assert.deepEqual(json.criteria.map((c: { id: string; outcome: string }) => [c.id, c.outcome]), [['ISC-1', 'PASS'], ['ISC-2', 'PASS']]);
    assert.deepEqual(json.unmet, []);
    assert.equal(fs.readFileSync(path.join(ws, 'out.txt'), 'utf8'), markerFile(2));
    assert.ok(fs.existsSync(path.join(ws, json.prd)));
    assert.equal(server.received.length, 6);
    assert.equal(server.received[0]!.body.model, 'local-model');
    assert.ok(server.received[0]!.body.response_format, 'structured output asked of the server');
    assert.ok(server.received[4]!.body.tools.some((t: { function: { name: string } }) => t.function.name === 'create_file'));
    assert.doesNotMatch(r.out + r.err, /sk-test-cli/);
  });

  it('without a terminal and without --approve, denies the edit: BLOCKED, exit 4, file untouched', async function () {
    this.timeout(60_000);
    const ws = tempDir('cli-ws');
    replies(server, [...managerSteps(markerCriteria(2)), ...specialistSteps('out.txt', markerFile(2))]);
    const r = await cli(['run', 'Write out.txt with two markers', '--effort', 'INSTANT', '--workspace', ws, '--store', path.join(ws, '..', `${path.basename(ws)}.sqlite`), '--json', '--model', 'local-model'], env());
    assert.equal(r.code, 4, r.err);
    const json = JSON.parse(r.out);
    assert.equal(json.state, 'BLOCKED');
    assert.match(json.reason, /not approved: edit: out.txt/);
    assert.deepEqual(json.unmet, ['ISC-1', 'ISC-2']);
    assert.equal(fs.existsSync(path.join(ws, 'out.txt')), false);
  });

  it('exits 2 on a usage error and 3 on BUDGET_EXHAUSTED; exports a bundle with hashes; undoes the run', async function () {
    this.timeout(60_000);
    const ws = tempDir('cli-ws');
    const store = path.join(ws, '..', `${path.basename(ws)}.sqlite`);
    const bad = await cli(['run', 'x', '--effort', 'HUGE', '--workspace', ws, '--store', store], env());
    assert.equal(bad.code, 2);
    assert.match(bad.err, /unknown effort level "HUGE"/);
    replies(server, [...managerSteps(markerCriteria(2)), ...specialistSteps('out.txt', 'marker-1\n')]);
    const r = await cli(['run', 'Write out.txt with two markers', '--effort', 'INSTANT', '--workspace', ws, '--store', store, '--json', '--approve', 'edits', '--model', 'local-model'], env());
    assert.equal(r.code, 3, r.err);
    const json = JSON.parse(r.out);
    assert.equal(json.state, 'BUDGET_EXHAUSTED');
    assert.deepEqual(json.unmet, ['ISC-2']);
    assert.ok(json.bestReportId);
    const out = tempDir('bundle');
    const b = await cli(['bundle', json.runId, '--out', out, '--workspace', ws, '--store', store], env());
    assert.equal(b.code, 0, b.err);
    const folder = path.join(out, json.runId);
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8'));
    assert.equal(manifest.state, 'BUDGET_EXHAUSTED');
    assert.equal(manifest.runId, json.runId);
    const artifacts = JSON.parse(fs.readFileSync(path.join(folder, 'artifacts.json'), 'utf8'));
    for (const a of artifacts.bundle) assert.equal(crypto.createHash('sha256').update(fs.readFileSync(path.join(folder, a.path))).digest('hex'), a.sha256, a.path);
    assert.deepEqual(artifacts.bundle.map((a: { path: string }) => a.path).sort(), ['criteria.json', 'decisions.json', 'events.jsonl', 'manifest.json', 'prd.md', 'reports.json']);
    assert.deepEqual(artifacts.workspaceChanges.map((c: { path: string }) => c.path), [json.prd, 'out.txt']);
    // Undo Run Changes: out.txt and the run's PRD did not exist before the run, so they go.
    const u = await cli(['undo', json.runId, '--workspace', ws, '--store', store, '--json'], env());
    assert.equal(u.code, 0, u.err);
    const undone = JSON.parse(u.out);
    assert.deepEqual([undone.runId, undone.restored, undone.left], [json.runId, [json.prd, 'out.txt'], []]);
    assert.equal(fs.existsSync(path.join(ws, 'out.txt')), false);
    assert.equal(fs.existsSync(path.join(ws, json.prd)), false);
  });

  it('runs the shipped scripted demo (labelled scripted) to COMPLETE', async function () {
    this.timeout(60_000);
    const ws = tempDir('cli-ws');
    const r = await cli(['run', 'Create hello.txt greeting the world', '--effort', 'STANDARD', '--provider', 'scripted', '--script', path.resolve(REPO_ROOT, 'demo/scripted-demo.yaml'), '--approve', 'edits', '--workspace', ws, '--store', path.join(ws, '..', `${path.basename(ws)}.sqlite`)], {});
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^COMPLETE/);
    assert.match(fs.readFileSync(path.join(ws, 'hello.txt'), 'utf8'), /Hello, world/);
  });
});

describe('command line: Ctrl-C and --resume (scripted provider)', () => {
  it('cancels on SIGINT with exit 130, keeps the run, and --resume finishes it', async function () {
    this.timeout(90_000);
    const ws = tempDir('cli-ws');
    const store = path.join(ws, '..', `${path.basename(ws)}.sqlite`);
    const m = managerSteps(markerCriteria(4));
    const first = path.join(ws, '..', `${path.basename(ws)}-1.json`);
    fs.writeFileSync(first, JSON.stringify({ name: 'slow-plan', steps: [m[0], m[1], { ...(m[2] as object), delayMs: 60_000 }] }));
    const proc = spawn(process.execPath, [CLI, 'run', 'Write out.txt', '--effort', 'STANDARD', '--provider', 'scripted', '--script', first, '--workspace', ws, '--store', store], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let sent = false;
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => {
      proc.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (!sent && /THINK → PLAN/.test(err)) {
          sent = true;
          proc.kill('SIGINT');
        }
      });
      proc.on('close', resolve);
    });
    assert.equal(code, 130, err);
    // At PLAN's start (the PRD is written after THINK, an await where Ctrl-C lands) or inside its model call.
    assert.match(out, /^CANCELLED: cancelled (during|at) PLAN/);
    const runId = /run (run-[0-9a-z]+)/.exec(out)![1]!;
    const second = path.join(ws, '..', `${path.basename(ws)}-2.json`);
    fs.writeFileSync(second, JSON.stringify({ name: 'rest', steps: [m[2], m[3], ...specialistSteps('out.txt', markerFile(4))] }));
    const r = await cli(['run', '--resume', runId, '--provider', 'scripted', '--script', second, '--workspace', ws, '--store', store, '--json', '--approve', 'edits'], {});
    assert.equal(r.code, 0, r.err);
    const json = JSON.parse(r.out);
    assert.equal(json.runId, runId);
    assert.equal(json.state, 'COMPLETE');
    assert.equal(fs.readFileSync(path.join(ws, 'out.txt'), 'utf8'), markerFile(4));
  });
});
