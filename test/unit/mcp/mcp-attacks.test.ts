import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { BUILT_CLI, runCli } from '../support/cli-helpers';
import { lockCriteria } from '../../../src/app/gate/lock';

/**
 * The MCP server under attack (issues 23 case 10–11, 24 item 4, 25 item 4), each through the
 * SDK's own client over stdio against the built server: what an agent (or a client it wrote)
 * can send, and what a person must still decide.
 */

const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261126-attacks',
  'status: IN_PROGRESS',
  'effort_level: INSTANT',
  '---',
  '',
  '# MCP attacks',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: The workspace has a README | Verify: Read: README.md',
  '- [ ] ISC-2: The readme names the product | Verify: Grep: Ideal | glob: README.md',
  '',
  '## Anti-Criteria',
  '- [ ] ISC-A-1: No TODO is left in the source | Verify: Grep: TODO | glob: src/** | expect: absent',
  '',
  '## LOG',
  '',
].join('\n');

/** What the proposed criterion's command would leave behind if it ran. */
const MARKER = 'released.txt';
const RELEASE = 'node release.js';

interface Workspace {
  dir: string;
  prd: string;
  state: string;
  store: string;
}

/** Where release.js leaves its marker when it runs. */
function released(dir: string): string {
  return `${dir}-${MARKER}`;
}

function workspace(): Workspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-mcp-attack-'));
  fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'README.md'), '# Ideal State\n');
  fs.writeFileSync(path.join(dir, 'src', 'app.js'), 'module.exports = 1; // TODO\n');
  // The marker goes beside the workspace, not into it: the checks run in a snapshot of it, whose writes are removed with it.
  fs.writeFileSync(path.join(dir, 'release.js'), `require('fs').writeFileSync(${JSON.stringify(released(dir))}, 'released');\n`);
  // The allow-list lets every `node` command run where there is no terminal.
  fs.writeFileSync(path.join(dir, '.ideal-state', 'verify-commands.yaml'), 'commands:\n  - node *\n');
  const prd = path.join(dir, '.ideal-state', 'prds', 'PRD-20261126-attacks.md');
  fs.writeFileSync(prd, PRD);
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-mcp-attack-state-'));
  return { dir, prd, state: path.join(outside, 'state'), store: path.join(outside, 'store.sqlite') };
}

interface Connected {
  client: Client;
  stderr: () => string;
  elicited: ElicitRequest['params'][];
}

async function connect(ws: Workspace, options: { elicit?: 'accept' | 'decline' } = {}): Promise<Connected> {
  const client = new Client({ name: 'attack-client', version: '1.0.0' }, options.elicit ? { capabilities: { elicitation: {} } } : {});
  const elicited: ElicitRequest['params'][] = [];
  if (options.elicit) {
    // The person's answer in the client's own dialog (https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation).
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params);
      return options.elicit === 'accept' ? { action: 'accept', content: { accept: true } } : { action: 'decline' };
    });
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BUILT_CLI, 'mcp', '--workspace', ws.dir, '--store', ws.store],
    stderr: 'pipe',
    env: { ...(getDefaultEnvironment() as Record<string, string>), IDEAL_STATE_STATE_DIR: ws.state },
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  await client.connect(transport);
  return { client, stderr: () => stderr, elicited };
}

async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    return { code: (error as { code: number }).code, message: (error as Error).message };
  }
  assert.fail('the call answered instead of failing with a JSON-RPC error');
}

type Structured = { structuredContent?: Record<string, any>; isError?: boolean; content: { text: string }[] };
async function structured(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = (await client.callTool({ name, arguments: args })) as Structured;
  assert.notEqual(r.isError, true, r.content.map((c) => c.text).join('\n'));
  assert.ok(r.structuredContent, `${name} answers with structuredContent`);
  assert.deepEqual(JSON.parse(r.content[0]!.text), r.structuredContent, 'the text is the same answer');
  return r.structuredContent!;
}

const releaseCriterion = { text: 'The release script has run once', verify: `CLI: ${RELEASE}` };

describe('ideal-state mcp under attack (the SDK’s client over stdio)', function () {
  this.timeout(90_000);
  let ws: Workspace;
  let c: Connected | undefined;

  beforeEach(() => {
    ws = workspace();
  });
  afterEach(async () => {
    await c?.client.close();
    c = undefined;
  });

  it('refuses a line break, paragraph separator or control character in any free-text field with -32602, writing nothing', async () => {
    c = await connect(ws, { elicit: 'accept' });
    // A newline and a code fence in `text` once hid ISC-A-1 from verification behind a preview of one clean line.
    const hiding = 'Docs are done\n```\n## Notes';
    const attempts: Record<string, unknown>[] = [
      { criteria: [{ text: hiding }], confirm: true },
      { criteria: [{ text: 'Two lines\u2028- [x] ISC-9: forged' }], confirm: true },
      { criteria: [{ text: 'A paragraph\u2029break' }], confirm: true },
      { criteria: [{ text: 'Carriage\rreturn' }], confirm: true },
      { criteria: [{ text: 'Escape \u001b[2K hides the line' }], confirm: true },
      { criteria: [{ text: 'Fine text', verify: 'Read: README.md\n- [ ] ISC-8: injected' }], confirm: true },
      { criteria: [{ text: 'Fine text', verify: 'Read: README.md\u2028x' }], confirm: true },
      { prd: '.ideal-state/prds/PRD-20261126-attacks.md\u2029', criteria: [{ text: 'Fine text' }], confirm: true },
    ];
    for (const args of attempts) {
      const e = await rpcError(c.client.callTool({ name: 'ideal-state_propose_criteria', arguments: args }));
      assert.equal(e.code, -32602, JSON.stringify(args));
      assert.match(e.message, /holds a (line or paragraph break|control character) \(U\+[0-9A-F]{4}\)/);
    }
    const ids = await rpcError(c.client.callTool({ name: 'ideal-state_verify', arguments: { criteria: ['ISC-1\u2028'] } }));
    assert.equal(ids.code, -32602);
    assert.equal(fs.readFileSync(ws.prd, 'utf8'), PRD, 'nothing written');
    assert.equal(c.elicited.length, 0, 'the person was never asked about a refused proposal');
  });

  it('caps a proposal at 50 criteria (-32602) and takes 50', async () => {
    c = await connect(ws);
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `Generated criterion number ${i} holds` }));
    const e = await rpcError(c.client.callTool({ name: 'ideal-state_propose_criteria', arguments: { criteria: many(51) } }));
    assert.equal(e.code, -32602);
    assert.match(e.message, /criteria/);
    const fifty = await structured(c.client, 'ideal-state_propose_criteria', { criteria: many(50) });
    assert.equal(fifty.preview.length, 50);
    assert.deepEqual([fifty.added[0], fifty.added[49]], ['ISC-3', 'ISC-52']);
  });

  it('asks the person through elicitation when the client can: the dialog shows exactly the lines written', async () => {
    c = await connect(ws, { elicit: 'accept' });
    const answer = await structured(c.client, 'ideal-state_propose_criteria', { criteria: [{ text: 'The changelog exists', verify: 'Read: CHANGELOG.md' }], confirm: true });
    assert.deepEqual([answer.written, answer.status, answer.added], [true, 'accepted', ['ISC-3']]);
    assert.equal(c.elicited.length, 1);
    const line = '- [ ] ISC-3: [I] The changelog exists | Verify: Read: CHANGELOG.md';
    assert.deepEqual(answer.preview, [line]);
    assert.ok(c.elicited[0]!.message.split('\n').includes(line), c.elicited[0]!.message);
    const text = fs.readFileSync(ws.prd, 'utf8');
    assert.ok(text.split('\n').includes(line), 'the preview is the line written');
    assert.match(text, /- Work: Added ISC-3 through ideal-state mcp \(client "attack-client"\), accepted by a person in the client's dialog \(MCP elicitation\)/);
    assert.doesNotMatch(text, /confirmed by the user/);
  });

  it('writes nothing when the person declines in the client’s dialog', async () => {
    c = await connect(ws, { elicit: 'decline' });
    const answer = await structured(c.client, 'ideal-state_propose_criteria', { criteria: [{ text: 'The changelog exists' }], confirm: true });
    assert.deepEqual([answer.written, answer.status], [false, 'declined']);
    assert.equal(fs.readFileSync(ws.prd, 'utf8'), PRD);
  });

  it('never runs a command a criterion gained through a proposal, though the allow-list matches it, until a person allows it', async () => {
    c = await connect(ws, { elicit: 'accept' });
    const answer = await structured(c.client, 'ideal-state_propose_criteria', { criteria: [releaseCriterion], confirm: true });
    assert.deepEqual([answer.written, answer.commandsNeedingPerson], [true, [RELEASE]]);
    const verified = await structured(c.client, 'ideal-state_verify', {});
    const row = verified.results.find((r: { id: string }) => r.id === 'ISC-3');
    assert.equal(row.outcome, 'UNKNOWN');
    assert.equal(fs.existsSync(released(ws.dir)), false, 'the command did not run');
    assert.deepEqual(verified.skippedCommands.map((s: { command: string }) => s.command), [RELEASE]);
    assert.match(verified.skippedCommands[0].reason, /an agent proposed, and runs only once a person allows it: `ideal-state criteria pending` on a terminal/);
    // The gate and `verify` without a terminal go through the same approval: not even --yes runs it.
    const cli = await runCli(['verify', ws.prd, '--workspace', ws.dir, '--yes', '--no-store'], { env: { IDEAL_STATE_STATE_DIR: ws.state } });
    assert.match(cli.out + cli.err, /ISC-3/);
    assert.equal(fs.existsSync(released(ws.dir)), false, 'not even with --yes and no terminal');
  });

  it('keeps a proposal waiting for a person; `criteria pending` refuses without a terminal and adds it on one', async function () {
    c = await connect(ws);
    const answer = await structured(c.client, 'ideal-state_propose_criteria', { criteria: [releaseCriterion], confirm: true });
    assert.deepEqual([answer.written, answer.status], [false, 'pending']);
    assert.match(answer.pendingId, /^[0-9a-f]{12}$/);
    assert.equal(fs.readFileSync(ws.prd, 'utf8'), PRD);
    // Outside the workspace: the agent's edits there cannot accept it.
    assert.equal(fs.readdirSync(ws.dir).includes('pending-proposals.json'), false);

    // No controlling terminal (as an agent's shell tool): refused, nothing written.
    const refused = await run(['criteria', 'pending', '--workspace', ws.dir], { state: ws.state, detached: true });
    assert.equal(refused.code, 2, refused.err);
    assert.match(refused.err, /a person answers this on a terminal, and this process has none \(there is no controlling terminal\)/);
    assert.equal(fs.readFileSync(ws.prd, 'utf8'), PRD);

    // On a terminal (a pseudo-terminal from util-linux `script`): the person sees the line and says yes; the command is not allowed.
    const accepted = await run(['criteria', 'pending', '--workspace', ws.dir], { state: ws.state, terminal: ['y', 'n'] });
    assert.equal(accepted.code, 0, accepted.out + accepted.err);
    assert.match(accepted.out, /- \[ \] ISC-3: \[I\] The release script has run once \| Verify: CLI: node release\.js$/m);
    const text = fs.readFileSync(ws.prd, 'utf8');
    assert.match(text, /^criteria_version: 2$/m);
    assert.match(text, /Added ISC-3 through ideal-state mcp \(client "attack-client"\), accepted by a person on a terminal \(ideal-state criteria pending\)/);
    const verified = await structured(c.client, 'ideal-state_verify', {});
    assert.equal(verified.results.find((r: { id: string }) => r.id === 'ISC-3').outcome, 'UNKNOWN');
    assert.equal(fs.existsSync(released(ws.dir)), false);

    // The person allows the command: now the allow-list decides, and it runs.
    const allowed = await run(['criteria', 'pending', '--workspace', ws.dir], { state: ws.state, terminal: ['y'] });
    assert.equal(allowed.code, 0, allowed.out + allowed.err);
    const after = await structured(c.client, 'ideal-state_verify', {});
    assert.equal(after.results.find((r: { id: string }) => r.id === 'ISC-3').outcome, 'PASS');
    assert.equal(fs.existsSync(released(ws.dir)), true);
  });

  it('verify of some ids answers allCriticalPass only when every CRITICAL criterion is among them', async () => {
    c = await connect(ws);
    // ISC-1 passes; the anti-criterion ISC-A-1 (CRITICAL) fails: a TODO is in src/.
    const one = await structured(c.client, 'ideal-state_verify', { criteria: ['ISC-1'] });
    assert.deepEqual([one.allCriticalPass, one.partial], [null, true]);
    const all = await structured(c.client, 'ideal-state_verify', { criteria: ['ISC-1', 'ISC-2', 'ISC-A-1'] });
    assert.deepEqual([all.allCriticalPass, all.partial], [false, false]);
    const whole = await structured(c.client, 'ideal-state_verify', {});
    assert.equal(whole.allCriticalPass, false);
    assert.equal(whole.partial, undefined);
  });

  it('confines resources like tools: a PRD-folder symlink to a file outside, or the folder itself outside, is never served', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-mcp-secret-'));
    fs.writeFileSync(path.join(outside, 'id_rsa.md'), 'PRIVATE KEY MATERIAL');
    fs.symlinkSync(path.join(outside, 'id_rsa.md'), path.join(ws.dir, '.ideal-state', 'prds', 'leak.md'));
    c = await connect(ws);
    const { resources } = await c.client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ['ideal-state://prd/PRD-20261126-attacks.md']);
    const e = await rpcError(c.client.readResource({ uri: 'ideal-state://prd/leak.md' }));
    assert.equal(e.code, -32002);
    assert.doesNotMatch(e.message, /PRIVATE KEY/);
    assert.match(c.stderr(), /leak\.md is not offered: .* symbolic link that points outside the workspace/);
    await c.client.close();

    // The PRD folder itself a symlink outside: nothing served, and no tool reads through it.
    fs.rmSync(path.join(ws.dir, '.ideal-state', 'prds'), { recursive: true });
    fs.copyFileSync(path.join(outside, 'id_rsa.md'), path.join(outside, 'PRD-x.md'));
    fs.symlinkSync(outside, path.join(ws.dir, '.ideal-state', 'prds'));
    c = await connect(ws);
    assert.deepEqual((await c.client.listResources()).resources, []);
    assert.equal((await rpcError(c.client.readResource({ uri: 'ideal-state://prd/PRD-x.md' }))).code, -32002);
    const criteria = (await c.client.callTool({ name: 'ideal-state_criteria', arguments: {} })) as Structured;
    assert.equal(criteria.isError, true);
    assert.match(criteria.content[0]!.text, /symbolic link that points outside the workspace/);
  });

  it('refuses a 12 MB message with a JSON-RPC error and a log line, and keeps serving', async () => {
    c = await connect(ws);
    const e = await rpcError(c.client.callTool({ name: 'ideal-state_criteria', arguments: { prd: 'x'.repeat(12 * 1024 * 1024) } }));
    assert.equal(e.code, -32600);
    assert.match(e.message, /over the 4194304 bytes this server reads in one message/);
    assert.match(c.stderr(), /refused a message of 125\d{5} bytes, over the 4194304 bytes one message may have \(request id \d+\); still serving/);
    const after = await structured(c.client, 'ideal-state_criteria', {});
    assert.equal(after.criteria.length, 3);
  });

  it('says the rule without naming tools that hosts rename, reports progress, completes PRD names, and answers -32002 for a missing resource', async () => {
    c = await connect(ws);
    const instructions = c.client.getInstructions() ?? '';
    assert.match(instructions, /Before you say a task is done, run this server's verify tool/);
    assert.match(instructions, /done only when allCriticalPass is true/);
    assert.doesNotMatch(instructions, /ideal[-_]state_/);
    const progress: { progress: number; total?: number }[] = [];
    await c.client.callTool({ name: 'ideal-state_verify', arguments: {} }, undefined, { onprogress: (p) => progress.push(p) });
    assert.deepEqual(progress.map((p) => [p.progress, p.total]), [
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    const completion = await c.client.complete({ ref: { type: 'ref/resource', uri: 'ideal-state://prd/{name}' }, argument: { name: 'name', value: 'PRD-2026' } });
    assert.deepEqual(completion.completion.values, ['PRD-20261126-attacks.md']);
    assert.deepEqual((await c.client.complete({ ref: { type: 'ref/resource', uri: 'ideal-state://prd/{name}' }, argument: { name: 'name', value: 'zzz' } })).completion.values, []);
    const missing = await rpcError(c.client.readResource({ uri: 'ideal-state://prd/NOPE.md' }));
    assert.equal(missing.code, -32002);
  });

  it('with no prd holds the PRD the done gate holds (the newest with criteria), not a refusal', async () => {
    const newer = path.join(ws.dir, '.ideal-state', 'prds', 'PRD-20261126-newer.md');
    fs.writeFileSync(newer, PRD.replace('PRD-20261126-attacks', 'PRD-20261126-newer'));
    const later = new Date(Date.now() + 10_000);
    fs.utimesSync(newer, later, later);
    c = await connect(ws);
    const answer = await structured(c.client, 'ideal-state_criteria', {});
    assert.equal(answer.prd, '.ideal-state/prds/PRD-20261126-newer.md');
  });

  it('with no prd holds the locked PRD, not a newer file an agent wrote; several locked must be named', async () => {
    const env = { ...process.env, IDEAL_STATE_STATE_DIR: ws.state };
    await lockCriteria(ws.dir, { files: [ws.prd], by: 'a person', how: 'terminal', now: new Date(), env });
    const newer = path.join(ws.dir, '.ideal-state', 'prds', 'PRD-20261126-newer.md');
    fs.writeFileSync(newer, PRD.replace('PRD-20261126-attacks', 'PRD-20261126-newer'));
    const later = new Date(Date.now() + 10_000);
    fs.utimesSync(newer, later, later);
    c = await connect(ws);
    const answer = await structured(c.client, 'ideal-state_criteria', {});
    assert.equal(answer.prd, path.relative(ws.dir, ws.prd).split(path.sep).join('/'), 'the PRD a person locked, as the stop gate holds it');
    await c.client.close();
    await lockCriteria(ws.dir, { files: [newer], by: 'a person', how: 'terminal', now: new Date(), env });
    c = await connect(ws);
    const refused = await rpcError(c.client.callTool({ name: 'ideal-state_verify', arguments: {} }));
    assert.equal(refused.code, -32602);
    assert.match(refused.message, /the done gate holds 2 PRDs locked \(.*PRD-20261126-attacks\.md, .*PRD-20261126-newer\.md\); name one with "prd"/);
  });
});

/** The built command line, without a terminal (detached: its own session) or on a pseudo-terminal fed `terminal` answers. */
function run(args: string[], options: { state: string; detached?: boolean; terminal?: string[] }): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, IDEAL_STATE_STATE_DIR: options.state };
    const command = [process.execPath, BUILT_CLI, ...args].map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
    const proc = options.terminal
      ? spawn('script', ['-qec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(process.execPath, [BUILT_CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached === true });
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    if (options.terminal) {
      // One answer a question, as a person types them.
      let given = 0;
      const answerNext = () => {
        if (given < options.terminal!.length && /\? \[y\/N\] $|anything else keeps it waiting: $/.test(out)) proc.stdin!.write(`${options.terminal![given++]}\r`);
      };
      proc.stdout!.on('data', answerNext);
    }
    proc.on('close', (code) => resolve({ code, out, err }));
  });
}
