import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BUILT_CLI } from '../support/cli-helpers';

const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261124-mcp',
  'status: IN_PROGRESS',
  'effort_level: INSTANT',
  '---',
  '',
  '# MCP fixture',
  '',
  '## Problem Space',
  'A workspace of known truth for the MCP server.',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md',
  '- [ ] ISC-2: [IMPORTANT] The source exports the app | Verify: Grep: module\\.exports',
  '- [ ] ISC-3: The allowed check passes | Verify: CLI: node -e "process.exit(0)"',
  '- [ ] ISC-4: [NICE] An unlisted check passes | Verify: CLI: node -e "process.exit(3)"',
  '',
  '## LOG',
  '',
].join('\n');

function fixture(): { dir: string; prd: string; store: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-mcp-'));
  fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'app.js'), 'module.exports = 1;\n');
  fs.writeFileSync(path.join(dir, '.ideal-state', 'verify-commands.yaml'), 'commands:\n  - node -e "process.exit(0)"\n');
  const prd = path.join(dir, '.ideal-state', 'prds', 'PRD-20261124-mcp.md');
  fs.writeFileSync(prd, PRD);
  return { dir, prd, store: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-mcp-store-')), 'store.sqlite') };
}

async function connect(workspace: string, store: string): Promise<Client> {
  const client = new Client({ name: 'ideal-state-test', version: '1.0.0' });
  // The state folder (pending proposals, proposed commands) beside the store, never the user's.
  const env = { ...(getDefaultEnvironment() as Record<string, string>), IDEAL_STATE_STATE_DIR: path.join(path.dirname(store), 'state') };
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BUILT_CLI, 'mcp', '--workspace', workspace, '--store', store], stderr: 'ignore', env }));
  return client;
}

/** A JSON-RPC error's code, from a call that must fail as a protocol error. */
async function rpcCode(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    return { code: (error as { code: number }).code, message: (error as Error).message };
  }
  assert.fail('the call answered instead of failing with a JSON-RPC error');
}

type ToolAnswer = { isError?: boolean; content: { type: string; text: string }[] };
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string; json: () => any }> {
  const r = (await client.callTool({ name, arguments: args })) as ToolAnswer;
  const text = r.content.map((c) => c.text).join('\n');
  return { isError: r.isError === true, text, json: () => JSON.parse(text) };
}

describe('ideal-state mcp (the SDK’s own client over stdio)', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof fixture>;
  let client: Client;

  beforeEach(async () => {
    ws = fixture();
    client = await connect(ws.dir, ws.store);
  });
  afterEach(async () => {
    await client.close();
  });

  it('lists the four tools, whose descriptions make verify the done gate and blocked the honest way out', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['ideal-state_blocked', 'ideal-state_criteria', 'ideal-state_propose_criteria', 'ideal-state_verify']);
    const blocked = tools.find((t) => t.name === 'ideal-state_blocked')!;
    assert.match(blocked.description!, /let through once as BLOCKED, never as done/);
    assert.deepEqual(blocked.inputSchema.required, ['reason']);
    const verify = tools.find((t) => t.name === 'ideal-state_verify')!;
    assert.match(verify.description!, /Call this before you say a task is done: you are done only when allCriticalPass is true/);
    assert.deepEqual(Object.keys(verify.inputSchema.properties ?? {}).sort(), ['criteria', 'prd', 'timeoutSeconds']);
    const propose = tools.find((t) => t.name === 'ideal-state_propose_criteria')!;
    assert.match(propose.description!, /added \(as a new criteria version\) only when the user accepts them/);
    assert.deepEqual(propose.inputSchema.required, ['criteria']);
    // Each declares what it answers (structuredContent is checked against it by this client).
    for (const t of tools) assert.equal(t.outputSchema?.type, 'object', `${t.name} declares an outputSchema`);
    assert.deepEqual(Object.keys(verify.outputSchema!.properties ?? {}).sort(), ['allCriticalPass', 'counts', 'partial', 'prd', 'results', 'skippedCommands', 'summary']);
  });

  it('verifies the workspace: right outcomes with evidence and repair targets; commands follow the allow-list', async () => {
    const r = await call(client, 'ideal-state_verify', {});
    assert.equal(r.isError, false, r.text);
    const out = r.json();
    assert.equal(out.prd, '.ideal-state/prds/PRD-20261124-mcp.md');
    assert.equal(out.allCriticalPass, false);
    const byId = Object.fromEntries(out.results.map((x: { id: string }) => [x.id, x]));
    assert.deepEqual(
      Object.fromEntries(out.results.map((x: { id: string; outcome: string }) => [x.id, x.outcome])),
      { 'ISC-1': 'FAIL', 'ISC-2': 'PASS', 'ISC-3': 'PASS', 'ISC-4': 'UNKNOWN' },
    );
    assert.equal(byId['ISC-1'].evidence, 'CHANGELOG.md does not exist');
    assert.equal(byId['ISC-1'].repairTarget, 'CHANGELOG.md exists');
    assert.equal(byId['ISC-1'].priority, 'CRITICAL');
    assert.match(byId['ISC-3'].evidence, /exited 0/);
    assert.deepEqual(byId['ISC-2'].locations, [{ file: 'src/app.js', line: 1 }]);
    assert.deepEqual(out.skippedCommands.map((c: { command: string }) => c.command), ['node -e "process.exit(3)"']);
    assert.match(out.skippedCommands[0].reason, /verify-commands\.yaml/);

    fs.writeFileSync(path.join(ws.dir, 'CHANGELOG.md'), '# Changelog\n');
    // Some ids: a verdict only when every CRITICAL criterion (ISC-1, ISC-3) is among them (issue 23, case 11).
    const some = (await call(client, 'ideal-state_verify', { criteria: ['ISC-1'] })).json();
    assert.deepEqual([some.allCriticalPass, some.partial, some.results.map((x: { id: string }) => x.id)], [null, true, ['ISC-1']]);
    const critical = (await call(client, 'ideal-state_verify', { criteria: ['ISC-1', 'ISC-3'] })).json();
    assert.deepEqual([critical.allCriticalPass, critical.partial], [true, false]);
    assert.equal(fs.readFileSync(ws.prd, 'utf8'), PRD, 'verify writes nothing into the PRD');
  });

  it('lists criteria with method, priority, the last outcome and whether it went stale', async () => {
    const before = (await call(client, 'ideal-state_criteria', {})).json();
    assert.equal(before.held, 'the newest unfinished PRD with criteria (no lock, no session baseline)', 'the answer says why the done gate holds this PRD');
    assert.deepEqual(before.criteria[0], { id: 'ISC-1', text: 'The workspace has a CHANGELOG.md', kind: 'criterion', priority: 'CRITICAL', verify: 'Read: CHANGELOG.md', lastOutcome: null, stale: null });
    await call(client, 'ideal-state_verify', {});
    const after = (await call(client, 'ideal-state_criteria', {})).json();
    assert.equal(after.criteria[0].lastOutcome.outcome, 'FAIL');
    assert.equal(after.criteria[1].lastOutcome.outcome, 'PASS');
    assert.equal(after.criteria[1].stale, false);
    // A file changes after the verification: its outcomes may no longer hold.
    const later = new Date(Date.now() + 5_000);
    fs.writeFileSync(path.join(ws.dir, 'src', 'app.js'), 'module.exports = 2;\n');
    fs.utimesSync(path.join(ws.dir, 'src', 'app.js'), later, later);
    assert.equal((await call(client, 'ideal-state_criteria', {})).json().criteria[1].stale, true);
  });

  it('the blocked tool records the honest exit: the next stop is let through as BLOCKED, with the reason', async () => {
    const r = await call(client, 'ideal-state_blocked', { reason: 'The API key for the payment sandbox is not in this environment' });
    assert.equal(r.isError, false, r.text);
    assert.equal(r.json().recorded, true);
    assert.match(r.json().note, /Never say the task is done/);
    const empty = await rpcCode(client.callTool({ name: 'ideal-state_blocked', arguments: { reason: '   ' } }));
    assert.equal(empty.code, -32602, 'an empty reason is a bad argument');
    const state = path.join(path.dirname(ws.store), 'state');
    const stop = spawnSync(process.execPath, [BUILT_CLI, 'gate', '--host', 'claude-code', '--no-store', '--no-log', '--workspace', ws.dir], { input: JSON.stringify({ session_id: 's', transcript_path: '/tmp/t', cwd: ws.dir, hook_event_name: 'Stop', stop_hook_active: false }), encoding: 'utf8', env: { ...process.env, IDEAL_STATE_STATE_DIR: state } });
    const answer = JSON.parse(stop.stdout) as { decision?: string; systemMessage?: string };
    assert.equal(answer.decision, undefined, stop.stdout);
    assert.match(answer.systemMessage ?? '', /blocked and needs a person: "The API key for the payment sandbox is not in this environment"/);
  });

  it('refuses paths outside the workspace as bad arguments (-32602)', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-mcp-outside-'));
    fs.writeFileSync(path.join(outside, 'PRD.md'), PRD);
    for (const prd of ['../PRD.md', path.join(outside, 'PRD.md')]) {
      const e = await rpcCode(client.callTool({ name: 'ideal-state_verify', arguments: { prd } }));
      assert.equal(e.code, -32602);
      assert.match(e.message, /refused: ".*PRD\.md" (leads outside the workspace|is an absolute path outside the workspace) \(.*\); this server reads and verifies only files inside its workspace$/);
    }
    const criteria = await rpcCode(client.callTool({ name: 'ideal-state_criteria', arguments: { prd: '../../etc/passwd' } }));
    assert.deepEqual([criteria.code, /leads outside the workspace/.test(criteria.message)], [-32602, true]);
    assert.equal((await rpcCode(client.callTool({ name: 'ideal-state_verify', arguments: { timeoutSeconds: 'soon' } }))).code, -32602);
  });

  it('returns a clear error for a bad PRD: each problem at its line', async () => {
    fs.writeFileSync(path.join(ws.dir, 'BAD.md'), PRD.replace('- [ ] ISC-4:', '- [ ] ISC-1:'));
    const r = await call(client, 'ideal-state_verify', { prd: 'BAD.md' });
    assert.equal(r.isError, true);
    assert.match(r.text, /^BAD\.md cannot be verified: BAD\.md has 1 error; fix it before verifying\nBAD\.md:17:7: error: ISC-1 is used by an earlier criterion/);
    const unknown = await rpcCode(client.callTool({ name: 'ideal-state_verify', arguments: { criteria: ['ISC-9'] } }));
    assert.equal(unknown.code, -32602);
    assert.match(unknown.message, /has no criterion ISC-9; its criteria are ISC-1, ISC-2, ISC-3, ISC-4/);
  });

  it('proposes criteria: a preview without confirm; confirm: true from a client that cannot ask a person writes nothing and waits for one', async () => {
    const args = { criteria: [{ text: 'The changelog names this release', verify: 'Grep: 0\\.1\\.0 | glob: CHANGELOG.md', priority: 'IMPORTANT' }] };
    const preview = (await call(client, 'ideal-state_propose_criteria', args)).json();
    assert.deepEqual([preview.written, preview.status], [false, 'preview']);
    assert.match(preview.note, /^NOT written/);
    assert.deepEqual(preview.added, ['ISC-5']);
    assert.deepEqual(preview.preview, ['- [ ] ISC-5: [I] [IMPORTANT] The changelog names this release | Verify: Grep: 0\\.1\\.0 | glob: CHANGELOG.md']);
    assert.equal(fs.readFileSync(ws.prd, 'utf8'), PRD);

    // The client's word is not the person's (issue 23, case 10).
    const asked = (await call(client, 'ideal-state_propose_criteria', { ...args, confirm: true })).json();
    assert.deepEqual([asked.written, asked.status, asked.criteriaVersion], [false, 'pending', 1]);
    assert.match(asked.note, /ideal-state criteria pending/);
    assert.equal(fs.readFileSync(ws.prd, 'utf8'), PRD);
    assert.doesNotMatch(fs.readFileSync(ws.prd, 'utf8'), /confirmed by the user/);

    const bad = await call(client, 'ideal-state_propose_criteria', { criteria: [{ text: 'x', verify: 'Telepathy: yes' }], confirm: true });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /criteria\[0\]\.verify: unknown verification type "Telepathy"/);
  });

  it('offers the workspace’s PRDs as resources', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => [r.uri, r.name]), [['ideal-state://prd/PRD-20261124-mcp.md', '.ideal-state/prds/PRD-20261124-mcp.md']]);
    const read = await client.readResource({ uri: resources[0]!.uri });
    assert.equal((read.contents[0] as { text: string }).text, PRD);
  });
});
