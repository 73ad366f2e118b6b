import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BUILT_CLI } from '../support/cli-helpers';

/**
 * Issue 24, item 1: a test file the agent wrote reads its ancestors' `/proc/<pid>/environ`
 * and a private key and prints them. With credentials of several shapes in the environment of
 * the built command line, nothing of them may come back: not in the gate's answer, not in
 * `verify --json`, the terminal table, the JUnit, SARIF or Markdown reports, the store files
 * or the PRD (written back with --write and the gate's LOG).
 */

const SECRETS: Record<string, string> = {
  GITHUB_TOKEN: `ghp_${'Q7r'.repeat(12)}`,
  GH_FINE: `github_pat_11ABCDEFG0${'x9Z'.repeat(20)}`,
  AWS_ACCESS_KEY_ID: 'AKIAQ3EGRAWXYZ7PLNTD',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81planted',
  SLACK_BOT_TOKEN: 'xoxb-2041887723-1193017740-pLaNtEdSlAcKtOkEn',
  OPENAI_API_KEY: `sk-proj-${'PlantedOpenAiKey'.repeat(3)}`,
  SESSION_BLOB: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkLXVzZXIifQ.c2lnbmF0dXJlLXBsYW50ZWQtand0',
  MYAPP_DB_PASS: 'Tr0ub4dor&3-planted',
  MYSQL_PWD: 'mysql-planted-pw-42',
  NPM_CONFIG__AUTH: 'bnBtLXBsYW50ZWQtYXV0aA==',
  AZURE_CRED: 'azure-planted-credential-77',
};

const PRIVATE_KEY = ['-----BEGIN OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW', 'QyNTUxOQAAACDplantedPLANTEDplantedPLANTEDplantedPLANTEDplantedAAAA', '-----END OPENSSH PRIVATE KEY-----'].join('\n');
const KEY_BODY = 'QyNTUxOQAAACDplantedPLANTEDplantedPLANTEDplantedPLANTEDplantedAAAA';

/** What the agent's test prints: every ancestor's environ (NUL-separated and as lines), a key file, a bearer header. */
const LEAK_JS = `
const fs = require('fs');
let pid = process.pid;
for (let i = 0; i < 8 && pid > 1; i++) {
  try {
    const env = fs.readFileSync('/proc/' + pid + '/environ', 'latin1');
    process.stdout.write(env + '\\n');
    process.stdout.write(env.split('\\0').join('\\n') + '\\n');
    process.stdout.write(JSON.stringify(Object.fromEntries(env.split('\\0').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))) + '\\n');
  } catch {}
  try { pid = Number(/PPid:\\s*(\\d+)/.exec(fs.readFileSync('/proc/' + pid + '/status', 'utf8'))[1]); } catch { break; }
}
process.stdout.write(fs.readFileSync('id_rsa', 'utf8') + '\\n');
process.stderr.write('Authorization: Bearer QmVhcmVyUGxhbnRlZFRva2VuVmFsdWU=\\n');
process.exit(1);
`;

const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261126-planted',
  'status: IN_PROGRESS',
  'effort_level: INSTANT',
  '---',
  '',
  '# Planted credentials',
  '',
  '## Problem Space',
  'The tests pass.',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: The test suite passes | Verify: CLI: node leak.js',
  '- [ ] ISC-2: The key file is shown | Verify: CLI: cat id_rsa && exit 3',
  '',
  '## LOG',
  '',
].join('\n');

/** A workspace the agent wrote into, a store, and the state and data folders of the test's own user. */
function workspace(): { dir: string; prd: string; store: string; state: string; data: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-planted-'));
  fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'leak.js'), LEAK_JS);
  fs.writeFileSync(path.join(dir, 'id_rsa'), `${PRIVATE_KEY}\n`);
  // The allow-list as a user committed it: the agent's own test command may run without a terminal.
  fs.writeFileSync(path.join(dir, '.ideal-state', 'verify-commands.yaml'), 'commands:\n  - node leak.js\n  - cat id_rsa && exit 3\n');
  const prd = path.join(dir, '.ideal-state', 'prds', 'PRD-20261126-planted.md');
  fs.writeFileSync(prd, PRD);
  const store = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-planted-store-')), 'store.sqlite');
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-planted-state-'));
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-planted-data-'));
  return { dir, prd, store, state, data };
}

/**
 * The built command line with the credentials in its environment. Its gate records and pending
 * reports go to the workspace's own state and data folders (never the user's), which the tests
 * then scan as they scan the store.
 */
function run(args: readonly string[], ws: { dir: string; state: string; data: string }, stdin?: string): Promise<{ code: number | null; out: string; err: string }> {
  const cwd = ws.dir;
  return new Promise((resolve) => {
    const env = { ...process.env, ...SECRETS, DEPLOY_KEY: PRIVATE_KEY, IDEAL_STATE_STATE_DIR: ws.state, XDG_DATA_HOME: ws.data };
    const proc = spawn(process.execPath, [BUILT_CLI, ...args], { cwd, env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('close', (code) => resolve({ code, out, err }));
    if (stdin !== undefined) proc.stdin!.end(stdin);
  });
}

/** Every planted value, and a long-enough piece of each (a half-redacted token is a leak too). */
function needles(): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(SECRETS)) {
    out.push([name, value]);
    out.push([`${name} (its last 12 characters)`, value.slice(-12)]);
  }
  out.push(['the private key body', KEY_BODY], ['the private key body (a piece)', KEY_BODY.slice(20, 40)], ['the bearer token', 'QmVhcmVyUGxhbnRlZFRva2VuVmFsdWU']);
  return out;
}

function assertClean(where: string, text: string | Buffer): void {
  const haystack = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  for (const [what, value] of needles()) {
    assert.equal(haystack.includes(Buffer.from(value, 'utf8')), false, `${what} appears in ${where}`);
    // JSON writes '/' and '&' as they are but a store may hold UTF-16 or escaped text: check those too.
    assert.equal(haystack.includes(Buffer.from(JSON.stringify(value).slice(1, -1), 'utf8')), false, `${what} (JSON-escaped) appears in ${where}`);
  }
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** Every file under `dir` is clean; a folder with no file fails: a scan of nothing proves nothing. */
function assertFolderClean(what: string, dir: string): void {
  const files = filesUnder(dir);
  assert.ok(files.length > 0, `${what} (${dir}) holds no file: the run wrote its records elsewhere, and this scan would prove nothing`);
  for (const f of files) assertClean(`${what}: ${path.relative(dir, f)}`, fs.readFileSync(f));
}

describe('planted credentials: nothing the process holds leaves as evidence (issue 24)', function () {
  this.timeout(60_000);

  it('verify --json, the table and the JUnit, SARIF and Markdown reports, the store and the written PRD carry none of them, and say how many were redacted', async () => {
    const ws = workspace();
    const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-planted-reports-'));
    const json = await run(['verify', ws.prd, '--workspace', ws.dir, '--json', '--store', ws.store, '--write'], ws);
    assert.equal(json.code, 1, json.err);
    const parsed = JSON.parse(json.out) as { results: { id: string; outcome: string; evidence: string }[]; redactions?: number };
    assert.deepEqual(parsed.results.map((r) => [r.id, r.outcome]), [['ISC-1', 'FAIL'], ['ISC-2', 'FAIL']]);
    // The evidence is there (the test ran and printed), only the credentials are gone.
    assert.match(parsed.results[0]!.evidence, /GITHUB_TOKEN=\[redacted\]/);
    assert.match(parsed.results[1]!.evidence, /\[redacted\]/);
    assert.ok((parsed.redactions ?? 0) >= Object.keys(SECRETS).length, `redactions counted: ${parsed.redactions}`);
    assertClean('verify --json', json.out + json.err);

    const table = await run(['verify', ws.prd, '--workspace', ws.dir, '--no-store'], ws);
    assert.equal(table.code, 1, table.err);
    assert.match(table.out, /credentials were redacted from the evidence/);
    assertClean('the terminal table', table.out + table.err);

    const junit = path.join(reports, 'junit.xml');
    const sarif = path.join(reports, 'out.sarif');
    const markdown = path.join(reports, 'summary.md');
    const r = await run(['verify', ws.prd, '--workspace', ws.dir, '--no-store', '--report', `junit=${junit}`, '--report', `sarif=${sarif}`, '--report', `markdown=${markdown}`], ws);
    assert.equal(r.code, 1, r.err);
    for (const file of [junit, sarif, markdown]) {
      assert.ok(fs.statSync(file).size > 500, `${file} was written`);
      assertClean(path.basename(file), fs.readFileSync(file));
    }
    assert.match(fs.readFileSync(junit, 'utf8'), /<property name="redactions" value="\d+"\/>/);
    assertClean('the PRD written back', fs.readFileSync(ws.prd));
    assertFolderClean('the store folder', path.dirname(ws.store));
  });

  it('the gate (a Claude Code stop hook) blocks with the failing evidence and none of the credentials, in its answer, its LOG and its store', async () => {
    const ws = workspace();
    const payload = JSON.stringify({ session_id: 'planted', transcript_path: path.join(ws.dir, 't.jsonl'), cwd: ws.dir, hook_event_name: 'Stop', stop_hook_active: false });
    const g = await run(['gate', '--host', 'claude-code', '--store', ws.store], ws, payload);
    assert.equal(g.code, 0, g.err);
    const answer = JSON.parse(g.out) as { decision?: string; reason?: string };
    assert.equal(answer.decision, 'block', g.out);
    assert.match(answer.reason ?? '', /ISC-1 FAIL/);
    assertClean("the gate's answer", g.out + g.err);
    for (const f of filesUnder(ws.dir)) if (!f.endsWith('leak.js') && !f.endsWith('id_rsa')) assertClean(`the workspace file ${path.relative(ws.dir, f)}`, fs.readFileSync(f));
    assertFolderClean('the store folder', path.dirname(ws.store));
    // The block counter and the rest of the gate's records, beside the criteria lock.
    assertFolderClean('the gate state folder', ws.state);
  });
  it("the MCP server's ideal-state_verify answers FAIL with none of the credentials, over the SDK's stdio client", async () => {
    const ws = workspace();
    const client = new Client({ name: 'planted-client', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BUILT_CLI, 'mcp', '--workspace', ws.dir, '--store', ws.store],
      stderr: 'pipe',
      env: { ...(getDefaultEnvironment() as Record<string, string>), ...SECRETS, DEPLOY_KEY: PRIVATE_KEY, IDEAL_STATE_STATE_DIR: ws.state, XDG_DATA_HOME: ws.data },
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    // A server that exits says why on its stderr (checked clean below).
    const exited = (error: Error) => assert.fail(`${error.message}; the server's stderr: ${stderr.slice(-2000)}`);
    await client.connect(transport).catch(exited);
    try {
      const call = client.callTool({ name: 'ideal-state_verify', arguments: { prd: path.relative(ws.dir, ws.prd) } });
      const answer = (await call.catch(exited)) as { content: { text: string }[]; structuredContent?: unknown };
      const text = JSON.stringify(answer);
      // The commands ran (allow-listed) and failed: the evidence is there, the credentials are not.
      assert.match(text, /ISC-1/);
      assert.match(text, /FAIL/);
      assertClean("the MCP server's answer", text);
      assertClean("the MCP server's stderr", stderr);
    } finally {
      await client.close();
    }
    assertFolderClean('the store folder', path.dirname(ws.store));
    // A verify call keeps no gate record (the folder is empty today); whatever it may keep there is scanned too.
    for (const f of filesUnder(ws.state)) assertClean(`the gate state folder: ${path.relative(ws.state, f)}`, fs.readFileSync(f));
  });
});
