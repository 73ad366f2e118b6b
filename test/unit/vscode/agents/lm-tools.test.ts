import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AnyCriterion, CriterionResult } from '../../../../src/model';
import { coveringAnswer, verifyAnswer } from '../../../../src/app/done-gate';
import { cell, chatPrompt, criteriaMarkdown, mcpLaunches, proposeConfirmation, proposeInput, ToolInputError, verifyConfirmation, verifyInput, verifyMarkdown } from '../../../../src/vscode/agents/tool-text';
import { REPO_ROOT } from '../../support/repo-root';

const criterion = (id: string, priority: 'CRITICAL' | 'IMPORTANT' | 'NICE'): AnyCriterion => ({ kind: 'criterion', id, text: `criterion ${id}`, priority }) as unknown as AnyCriterion;
const result = (id: string, outcome: CriterionResult['outcome'], extra: Partial<CriterionResult> = {}): CriterionResult =>
  ({ criterionId: id, outcome, evidence: `evidence of ${id}`, locations: [], ...(outcome === 'PASS' ? {} : { failureLabel: 'wrong' }), ...extra }) as unknown as CriterionResult;

describe('the language-model tools (text and input)', () => {
  it('says whether every CRITICAL criterion passes, from what was verified', () => {
    const criteria = [criterion('ISC-1', 'CRITICAL'), criterion('ISC-2', 'IMPORTANT'), criterion('ISC-3', 'CRITICAL')];
    const failing = verifyAnswer('p.md', criteria, { summary: 's', counts: {}, results: [result('ISC-1', 'PASS'), result('ISC-2', 'FAIL'), result('ISC-3', 'UNKNOWN', { repairTarget: 'src/a.ts' })] });
    assert.equal(failing.allCriticalPass, false);
    assert.deepEqual(failing.results.map((r) => [r.id, r.priority, r.outcome]), [['ISC-1', 'CRITICAL', 'PASS'], ['ISC-2', 'IMPORTANT', 'FAIL'], ['ISC-3', 'CRITICAL', 'UNKNOWN']]);
    assert.equal(failing.results[2]!.repairTarget, 'src/a.ts');
    assert.equal(failing.results[1]!.evidence, 'evidence of ISC-2');
    // An IMPORTANT failure does not stop the work from being done.
    const done = verifyAnswer('p.md', criteria, { summary: 's', counts: {}, results: [result('ISC-1', 'PASS'), result('ISC-2', 'FAIL'), result('ISC-3', 'PASS')] });
    assert.equal(done.allCriticalPass, true);
  });

  it('gives no verdict for some ids that leave a CRITICAL criterion out (issue 23, case 11), and the words say so', () => {
    const criteria = [criterion('ISC-1', 'CRITICAL'), criterion('ISC-2', 'IMPORTANT'), criterion('ISC-3', 'CRITICAL')];
    const file = { ids: criteria.map((c) => c.id), info: (id: string) => criteria.find((c) => c.id === id) };
    const one = verifyAnswer('p.md', criteria, { summary: 's', counts: {}, results: [result('ISC-1', 'PASS')] });
    assert.equal(one.allCriticalPass, true, 'over what was verified alone');
    const partial = coveringAnswer(one, file, ['ISC-1']);
    assert.deepEqual([partial.allCriticalPass, partial.partial], [null, true]);
    assert.match(verifyMarkdown(partial), /NO VERDICT: only some criteria were verified/);
    const critical = coveringAnswer(verifyAnswer('p.md', criteria, { summary: 's', counts: {}, results: [result('ISC-1', 'PASS'), result('ISC-3', 'PASS')] }), file, ['ISC-1', 'ISC-3']);
    assert.deepEqual([critical.allCriticalPass, critical.partial], [true, false], 'every CRITICAL id named: the verdict stands, the IMPORTANT one need not be');
    assert.equal(coveringAnswer(one, file).allCriticalPass, true, 'no ids: the answer is the whole file\'s');
    assert.equal(coveringAnswer(one, { ids: ['ISC-1', 'ISC-9'], info: () => undefined }, ['ISC-1']).allCriticalPass, null, 'an id of unknown priority counts as CRITICAL');
  });

  it('lists the commands that were not run and why', () => {
    const answer = verifyAnswer('p.md', [criterion('ISC-1', 'CRITICAL')], { summary: 's', counts: {}, results: [result('ISC-1', 'UNKNOWN')], commands: { refused: [{ command: 'rm -rf x', reason: 'not allowed' }] } });
    assert.deepEqual(answer.skippedCommands, [{ command: 'rm -rf x', reason: 'not allowed' }]);
    assert.match(verifyMarkdown(answer), /Not run: `rm -rf x` \(not allowed\)/);
  });

  it('renders results and criteria as markdown tables whose cells cannot break the row', () => {
    const answer = verifyAnswer('p.md', [criterion('ISC-1', 'CRITICAL')], { summary: '0 of 1 pass', counts: {}, results: [result('ISC-1', 'FAIL', { evidence: 'a | b\nc', repairTarget: 'src/x.ts' })] });
    const table = verifyMarkdown(answer);
    assert.match(table, /NOT DONE/);
    assert.ok(table.includes('| ISC-1 | CRITICAL | FAIL | a \\| b c | src/x.ts |'), table);
    const rows = criteriaMarkdown('p.md', [
      { id: 'ISC-1', text: 'x', kind: 'criterion', priority: 'CRITICAL', verify: 'CLI: npm test', lastOutcome: { outcome: 'PASS', verifiedAt: '2026-11-24T00:00:00.000Z' }, stale: true },
      { id: 'ISC-A1', text: 'no secrets', kind: 'anti-criterion', priority: 'CRITICAL', verify: null, lastOutcome: null, stale: null },
    ]);
    assert.ok(rows.includes('| ISC-1 | CRITICAL | x | CLI: npm test | PASS (stale) |'), rows);
    assert.ok(rows.includes('| ISC-A1 | CRITICAL | Anti: no secrets | judge | not verified |'), rows);
    assert.equal(cell('x'.repeat(200)).length, 160);
  });

  it('names every command in the confirmation before verifying, and says when none runs', () => {
    const c = verifyConfirmation('p.md', ['ISC-2'], ['npm test', 'node --version']);
    assert.match(c.message, /criteria ISC-2 of p\.md/);
    assert.match(c.message, /- `npm test`\n- `node --version`/);
    assert.match(c.message, /idealState\.verify\.allowedCommands/);
    assert.match(verifyConfirmation('p.md', [], []).message, /every criterion of p\.md[\s\S]*No command will run/);
    assert.match(proposeConfirmation('p.md', ['- [ ] ISC-4: x'], 3).message, /1 criterion to p\.md as criteria version 3:\n\n {4}- \[ \] ISC-4: x/);
  });

  it('refuses input the schema does not allow with the field and what is expected', () => {
    assert.deepEqual(verifyInput({ prd: 'a.md', criteria: [' ISC-1 '] }), { prd: 'a.md', criteria: ['ISC-1'] });
    assert.deepEqual(verifyInput({ criteria: [] }), {});
    assert.throws(() => verifyInput({ criteria: 'ISC-1' }), (e: unknown) => e instanceof ToolInputError && e.code === 'tool-input' && /list of criterion ids/.test(e.message));
    assert.throws(() => verifyInput({ prd: 3 }), /prd must be a string/);
    assert.throws(() => proposeInput({ criteria: [] }), /non-empty list/);
    assert.throws(() => proposeInput({ criteria: [{ text: 'x', priority: 'HIGH' }] }), /criteria\[0\]\.priority must be one of CRITICAL, IMPORTANT, NICE/);
    assert.throws(() => proposeInput({ criteria: [{ text: ' ' }] }), /criteria\[0\]\.text/);
    assert.deepEqual(proposeInput({ criteria: [{ text: ' A file exists ', priority: 'NICE', verify: 'Read: a' }] }).criteria, [{ text: 'A file exists', priority: 'NICE', verify: 'Read: a' }]);
  });

  it('reads a PRD path and criterion ids from a chat prompt', () => {
    assert.deepEqual(chatPrompt('docs/PRD-x.md ISC-1, ISC-2.1'), { prd: 'docs/PRD-x.md', criteria: ['ISC-1', 'ISC-2.1'] });
    assert.deepEqual(chatPrompt('please check everything'), {});
  });

  it('launches the bundled CLI as an MCP server per workspace folder', () => {
    const [one] = mcpLaunches('/usr/bin/node', '/ext/dist/cli.js', [{ name: 'w', fsPath: '/w' }]);
    assert.deepEqual(one, { label: 'Ideal State', command: '/usr/bin/node', args: ['/ext/dist/cli.js', 'mcp', '--workspace', '/w'], env: { ELECTRON_RUN_AS_NODE: '1' } });
    assert.deepEqual(mcpLaunches('n', 'c', [{ name: 'a', fsPath: '/a' }, { name: 'b', fsPath: '/b' }]).map((l) => l.label), ['Ideal State (a)', 'Ideal State (b)']);
  });

  it('contributes the three tools with input schemas, the chat participant and the MCP provider the code registers', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { contributes: Record<string, { name?: string; id?: string; modelDescription?: string; inputSchema?: object; commands?: { name: string }[] }[]> };
    const tools = pkg.contributes['languageModelTools']!;
    assert.deepEqual(tools.map((t) => t.name), ['ideal-state_criteria', 'ideal-state_verify', 'ideal-state_propose_criteria']);
    for (const t of tools) {
      assert.ok(t.inputSchema, `${t.name} has an input schema`);
      assert.match(t.modelDescription ?? '', /before you say the work is done/, `${t.name} tells an agent to verify before it says it is done`);
    }
    const src = fs.readFileSync(path.join(REPO_ROOT, 'src', 'vscode', 'agents', 'tools.ts'), 'utf8');
    for (const t of tools) assert.ok(src.includes(`'${t.name}'`), `${t.name} is registered`);
    assert.deepEqual(pkg.contributes['chatParticipants']!.map((p) => [p.id, p.commands!.map((c) => c.name)]), [['ideal-state.chat', ['verify', 'criteria']]]);
    assert.deepEqual(pkg.contributes['mcpServerDefinitionProviders']!.map((p) => p.id), ['ideal-state.mcp']);
  });
});
