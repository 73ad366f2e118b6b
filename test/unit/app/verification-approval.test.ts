import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApprovalPolicy, type ApprovalAnswer } from '../../../src/agent/approvals';
import { deniedCommands } from '../../../src/app/denied-commands';
import { approveVerificationCommands } from '../../../src/app/verification-approval';
import { verificationCommandsRequest } from '../../../src/app/compose-run';
import { notesOf, setNote } from '../../../src/prd/notes';
import { parsePrd } from '../../../src/prd/parse';

const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), `ideal-state-${p}-`));

/** A person who answers from a list, and the commands each question named. */
function person(answers: ApprovalAnswer[]) {
  const asked: string[][] = [];
  return { asked, approver: { ask: async (r: { command?: string; detail: string }) => (asked.push((r.command ?? r.detail).split('\n')), answers.shift() ?? 'deny') } };
}

describe('a run remembers a person\'s denial of a verification command (issue 28 §3)', () => {
  const workspace = tmp('deny-ws');
  const env = { ...process.env, IDEAL_STATE_STATE_DIR: tmp('deny-state') };
  const approve = (policy: ApprovalPolicy, commands: string[]) =>
    approveVerificationCommands(commands, new AbortController().signal, { approvals: policy, request: (c) => verificationCommandsRequest(c, workspace), workspace, env, now: () => new Date('2026-11-26T12:00:00Z') });

  it('asks again after a denial, even when the allow-list names the command; "Deny always" is never asked again', async () => {
    const p1 = person(['deny']);
    const first = await approve(new ApprovalPolicy(p1.approver, { trusted: true }), ['npm test']);
    assert.equal(first.approved, false);
    assert.deepEqual([...(await deniedCommands(workspace, env)).values()].map((d) => [d.command, d.always]), [['npm test', false]]);

    // The allow-list would run it unasked; a denied command goes back to the person.
    const p2 = person(['never']);
    const second = await approve(new ApprovalPolicy(p2.approver, { trusted: true, allowCommands: ['npm *'] }), ['npm test', 'npm run lint']);
    assert.deepEqual(p2.asked, [['npm test', 'npm run lint']], 'asked, allow-list or not');
    assert.equal(second.approved, false);
    assert.deepEqual([...(await deniedCommands(workspace, env)).values()].map((d) => [d.command, d.always]).sort(), [['npm run lint', true], ['npm test', true]]);

    const p3 = person(['approve']);
    const third = await approve(new ApprovalPolicy(p3.approver, { trusted: true }), ['npm test', 'npm run lint']);
    assert.deepEqual(p3.asked, [], '"Deny always": nobody is asked about them');
    assert.equal(third.approved, false);
    assert.match(third.reasons!['npm test']!, /Deny always/);
  });

  it('an approval forgets a one-time denial', async () => {
    const ws = tmp('deny-ws2');
    const at = { approvals: new ApprovalPolicy(person(['deny']).approver, { trusted: true }), request: (c: readonly string[]) => verificationCommandsRequest(c, ws), workspace: ws, env, now: () => new Date() };
    await approveVerificationCommands(['make check'], new AbortController().signal, at);
    assert.equal((await deniedCommands(ws, env)).size, 1);
    const yes = await approveVerificationCommands(['make check'], new AbortController().signal, { ...at, approvals: new ApprovalPolicy(person(['approve']).approver, { trusted: true }) });
    assert.deepEqual([yes.approved, yes.only], [true, ['make check']]);
    assert.equal((await deniedCommands(ws, env)).size, 0);
  });
});

describe('criterion notes in a PRD (issue 28 §3, §5)', () => {
  const text = ['---', 'prd: true', 'id: PRD-1', '---', '', '# T', '', '## Problem Space', 'x', '', '## Ideal State Criteria', '- [ ] ISC-1: A thing holds | Verify: CLI: npm test', '- [ ] ISC-2: Another holds', '', '## LOG', ''].join('\r\n');

  it('are written under their criterion, read back, replaced and removed, every other byte kept', () => {
    const one = setNote(text, 'ISC-1', 'not-approved', { digest: 'sha256:0123456789ab', text: 'not approved on 2026-11-26' });
    const two = setNote(one, 'ISC-1', 'probe', { text: 'passes before any work — can this check fail?' });
    const doc = parsePrd(two);
    assert.deepEqual(notesOf(doc, 'ISC-1').map((n) => [n.kind, n.digest ?? null, n.text]), [['not-approved', 'sha256:0123456789ab', 'not approved on 2026-11-26'], ['probe', null, 'passes before any work — can this check fail?']]);
    assert.deepEqual(notesOf(doc, 'ISC-2'), []);
    assert.deepEqual(doc.criteria.map((c) => c.id), ['ISC-1', 'ISC-2'], 'notes are not criteria');
    assert.equal(doc.diagnostics.length, parsePrd(text).diagnostics.length, 'and raise no diagnostic');
    assert.ok(two.includes('\r\n  - Probe: passes'), 'the file\'s own line endings');
    assert.equal(setNote(two, 'ISC-1', 'probe', { text: 'passes before any work — can this check fail?' }), two, 'setting the same note changes nothing');
    assert.equal(setNote(setNote(two, 'ISC-1', 'probe', undefined), 'ISC-1', 'not-approved', undefined), text, 'removed: the file as it was');
  });
});
