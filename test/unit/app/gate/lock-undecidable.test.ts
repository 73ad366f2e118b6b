import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { prepareLock } from '../../../../src/app/gate/lock';
import { candidateSummary, nameOnePrdMessage, soleOpenCandidate } from '../../../../src/app/gate/lock-choice';
import { lockCandidates, lockedMethod } from '../../../../src/app/gate/lock-preview';
import { prdWorkspace } from '../../support/lock-choice-helpers';
import { undecidableCriteria, undecidableLines, type GateCapabilities } from '../../../../src/app/gate/undecidable';
import type { VerificationMethod } from '../../../../src/model';

/** The done gate's capabilities as the lock reads them: no judge, no browser, no diagnostics, one VS Code-only task, `npm test` allowed. */
const GATE: GateCapabilities = {
  noJudge: 'no model judges Custom criteria there',
  noBrowser: 'no browser runner there',
  noDiagnostics: 'no diagnostics there',
  tasksThatCannotRun: new Map([['watch', 'the done gate cannot run it: task "watch" is of type "gulp", which only VS Code can run']]),
  commandHeld: (m: VerificationMethod) => {
    const command = m.type === 'CLI' ? m.command : m.type === 'TASK' ? `task: ${m.task}` : m.type === 'TEST' ? m.test : m.type === 'STATIC' ? m.command : undefined;
    return command === undefined || command === 'npm test' ? undefined : `its command \`${command}\` is not allowed`;
  },
};

const critical = (id: string, verify?: VerificationMethod) => ({ id, priority: 'CRITICAL' as const, ...(verify ? { verify } : {}) });

describe('the lock names the CRITICAL criteria the done gate cannot decide', () => {
  it('names a Custom, a Browser, a Static without command, a VS Code-only task, an unlisted command and a criterion with no method, each with why and what to do', () => {
    const found = undecidableCriteria(
      [
        critical('ISC-1', { type: 'CUSTOM', description: 'The greeting reads warmly' }),
        critical('ISC-2', { type: 'BROWSER', scenario: 'log in' }),
        critical('ISC-3', { type: 'STATIC', check: 'no errors in src/**' }),
        critical('ISC-4', { type: 'TASK', task: 'watch' }),
        critical('ISC-5', { type: 'CLI', command: 'make check' }),
        critical('ISC-6'),
        critical('ISC-7', { type: 'TEST', test: 'watch' }),
      ],
      GATE,
    );
    assert.deepEqual(
      found.map((u) => [u.id, u.why]),
      [
        ['ISC-1', 'Custom: no model judges Custom criteria there'],
        ['ISC-2', 'Browser: no browser runner there'],
        ['ISC-3', 'Static: no diagnostics there, and it names no command to run instead'],
        ['ISC-4', 'Task: the done gate cannot run it: task "watch" is of type "gulp", which only VS Code can run'],
        ['ISC-5', 'its command `make check` is not allowed'],
        ['ISC-6', 'it names no verification method, so nothing checks it'],
        ['ISC-7', 'Test: the done gate cannot run it: task "watch" is of type "gulp", which only VS Code can run'],
      ],
    );
    assert.match(found[0]!.fix, /^make it a command or a Grep, or lower its priority$/);
    assert.match(found[2]!.fix, /add "\| command: …"/);
    assert.match(found[4]!.fix, /list its command in \.ideal-state\/verify-commands\.yaml/);
  });

  it('names nothing a verifier there decides: a Grep, a Read, an allowed command or task, a Static with an allowed command', () => {
    const found = undecidableCriteria(
      [
        critical('ISC-1', { type: 'GREP', pattern: 'console\\.log', expect: 'absent' }),
        critical('ISC-2', { type: 'READ', path: 'README.md' }),
        critical('ISC-3', { type: 'CLI', command: 'npm test' }),
        critical('ISC-4', { type: 'STATIC', check: 'no errors', command: 'npm test' }),
        critical('ISC-5', { type: 'TEST', test: 'npm test' }),
      ],
      GATE,
    );
    assert.deepEqual(found, []);
  });

  it('names only CRITICAL criteria (an IMPORTANT or NICE one that stays UNKNOWN does not hold the agent), and a Custom one only where no model judges', () => {
    const custom: VerificationMethod = { type: 'CUSTOM', description: 'reads warmly' };
    assert.deepEqual(undecidableCriteria([{ id: 'ISC-1', priority: 'IMPORTANT', verify: custom }, { id: 'ISC-2', priority: 'NICE', verify: custom }], GATE), []);
    const { noJudge: _judged, ...withJudge } = GATE;
    assert.deepEqual(undecidableCriteria([critical('ISC-1', custom)], withJudge), []);
  });

  it('says it in lines for the dialog and the terminal, and nothing when there is nothing to say', () => {
    assert.deepEqual(undecidableLines([]), []);
    const lines = undecidableLines(undecidableCriteria([critical('ISC-1', { type: 'CUSTOM', description: 'x' })], GATE));
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^This CRITICAL criterion cannot be decided by the done gate, so it stays UNKNOWN and would hold an agent until the gate's block limit ends its turn as not done:$/);
    assert.equal(lines[1], '  ISC-1: Custom: no model judges Custom criteria there. To fix: make it a command or a Grep, or lower its priority.');
  });

  it('reads a locked criterion\'s method back from the line the lock recorded', () => {
    assert.deepEqual(lockedMethod({ id: 'ISC-1', text: 'No console.log', priority: 'CRITICAL', kind: 'criterion', verify: 'Grep: console\\.log | expect: absent' }), { type: 'GREP', pattern: 'console\\.log', expect: 'absent' });
    assert.deepEqual(lockedMethod({ id: 'ISC-2', text: 'Reads warmly', priority: 'CRITICAL', kind: 'criterion', verify: 'Custom' }), { type: 'CUSTOM', description: 'Reads warmly' });
    assert.equal(lockedMethod({ id: 'ISC-3', text: 'x', priority: 'CRITICAL', kind: 'criterion', verify: null }), undefined);
  });
});

describe('which PRD a lock with no file takes', () => {
  const env = () => ({ ...process.env, IDEAL_STATE_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-state-')) });

  it('lists the PRDs with criteria newest first, each with its count and status, a finished one marked; a PRD without criteria is not offered', async () => {
    const ws = prdWorkspace([
      { name: 'PRD-20261201-new.md', criteria: ['- [ ] ISC-NEW-1: The new thing works | Verify: Read: README.md'] },
      { name: 'PRD-20261101-done.md', status: 'COMPLETE', criteria: ['- [x] ISC-OLD-1: The old thing | Verify: Read: a', '- [x] ISC-OLD-2: And more | Verify: Read: b'] },
      { name: 'PRD-20261001-empty.md', criteria: [] },
    ]);
    const candidates = await lockCandidates(ws);
    assert.deepEqual(
      candidates.map(({ mtimeMs: _m, ...c }) => c),
      [
        { relative: '.ideal-state/prds/PRD-20261201-new.md', criteria: 1, status: 'status: CRITERIA_DEFINED' },
        { relative: '.ideal-state/prds/PRD-20261101-done.md', criteria: 2, status: 'status: COMPLETE', finished: 'status: COMPLETE' },
      ],
    );
    assert.equal(candidateSummary(candidates[1]!), '2 criteria · status: COMPLETE · finished (status: COMPLETE)');
    assert.equal(soleOpenCandidate(candidates)?.relative, '.ideal-state/prds/PRD-20261201-new.md');
    // prepareLock with no file takes that one, and only that one.
    const prepared = await prepareLock(ws, { by: 'a person', how: 'terminal', now: new Date(), env: env() });
    assert.deepEqual(prepared.locked.map((p) => p.path), ['.ideal-state/prds/PRD-20261201-new.md']);
    assert.equal(prepared.candidates?.length, 2);
  });

  it('with several unfinished PRDs it takes none, and the message names them all and how to name one', async () => {
    const ws = prdWorkspace([
      { name: 'PRD-20261202-b.md', criteria: ['- [ ] ISC-B-1: B works | Verify: Read: README.md'] },
      { name: 'PRD-20261201-a.md', criteria: ['- [ ] ISC-P-1: A works | Verify: Read: README.md'] },
    ]);
    const prepared = await prepareLock(ws, { by: 'a person', how: 'terminal', now: new Date(), env: env() });
    assert.deepEqual(prepared.locked, []);
    assert.deepEqual(prepared.refused, []);
    const message = nameOnePrdMessage(prepared.candidates ?? []);
    assert.match(message, /^2 PRDs with criteria here are not finished, so which one to lock is yours to say: run `ideal-state criteria lock FILE`/);
    assert.match(message, /\n {2}\.ideal-state\/prds\/PRD-20261202-b\.md {2}\(1 criterion · status: CRITERIA_DEFINED\)\n {2}\.ideal-state\/prds\/PRD-20261201-a\.md/);
  });

  it('a lock names, per PRD, the CRITICAL criteria the gate cannot decide in this workspace: a Custom, a command the allow-list does not list, a task only VS Code runs', async () => {
    const ws = prdWorkspace(
      [
        {
          name: 'PRD-20261201-a.md',
          criteria: [
            '- [ ] ISC-P-1: The greeting reads warmly | Verify: Custom',
            '- [ ] ISC-P-2: The tests pass | Verify: CLI: npm test',
            '- [ ] ISC-P-3: The build passes | Verify: CLI: make build',
            '- [ ] ISC-P-4: The watcher builds | Verify: Task: watch',
            '- [ ] ISC-P-5: [NICE] It reads well | Verify: Custom',
            '- [ ] ISC-P-6: No debugger statement | Verify: Grep: debugger; | expect: absent',
          ],
        },
      ],
      {
        '.ideal-state/verify-commands.yaml': 'commands:\n  - npm test\n',
        '.vscode/tasks.json': JSON.stringify({ version: '2.0.0', tasks: [{ label: 'watch', type: 'gulp', task: 'watch' }] }),
      },
    );
    const prepared = await prepareLock(ws, { files: ['.ideal-state/prds/PRD-20261201-a.md'], by: 'a person', how: 'terminal', now: new Date(), env: env() });
    assert.equal(prepared.candidates, undefined, 'a named file: no choice to offer');
    assert.deepEqual(prepared.undecidable.map((p) => p.path), ['.ideal-state/prds/PRD-20261201-a.md']);
    const found = prepared.undecidable[0]!.criteria;
    assert.deepEqual(found.map((u) => u.id), ['ISC-P-1', 'ISC-P-3', 'ISC-P-4']);
    assert.match(found[0]!.why, /^Custom: the done gate verifies outside the editor, where no model judges Custom criteria$/);
    assert.match(found[1]!.why, /`make build` is not run by the done gate, which has no terminal to ask on, and \.ideal-state\/verify-commands\.yaml does not list it/);
    assert.match(found[2]!.why, /^Task: the done gate cannot run it: task "watch" is of type "gulp", which only VS Code can run$/);
    // A baseline is shown to nobody: it does not pay for the reads.
    const baseline = await prepareLock(ws, { files: ['.ideal-state/prds/PRD-20261201-a.md'], by: "the person's prompt", how: 'prompt', kind: 'baseline', now: new Date(), env: env() });
    assert.deepEqual(baseline.undecidable, []);
  });
});
