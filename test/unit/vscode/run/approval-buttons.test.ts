import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApprovalPolicy, type ApprovalRequest, type Approver } from '../../../../src/agent/approvals';
import { PendingApprovals } from '../../../../src/agent/pending-approvals';
import { deniedCommands, deniedCommandsFile } from '../../../../src/app/denied-commands';
import { verificationCommandsRequest } from '../../../../src/app/compose-run';
import { approveVerificationCommands } from '../../../../src/app/verification-approval';
import { ALWAYS, APPROVE, DENY, DENY_ALWAYS, SHOW_DIFF, answerOfButton, approvalButtons, deniedAlwaysMessage } from '../../../../src/vscode/run/approval-buttons';

const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), `ideal-state-${p}-`));

// The editor's approval buttons (issue 28 §3): "Deny always" only where a denial is remembered —
// a run's verification commands — and it answers 'never', which the app records in the state folder.
describe('the editor\'s approval buttons and "Deny always"', () => {
  it('offers "Deny always" for a run\'s verification commands only, and maps each button to its answer', () => {
    const verification = { kind: 'command' as const, remembersDenial: true };
    assert.deepEqual(approvalButtons(verification), [APPROVE, ALWAYS, DENY, DENY_ALWAYS]);
    assert.deepEqual(
      approvalButtons(verification).map((b) => answerOfButton(b, verification)),
      ['approve', 'always', 'deny', 'never'],
    );
    // An agent's own command, an edit and a configuration change have no remembered denial.
    for (const other of [{ kind: 'command' as const }, { kind: 'edit' as const }, { kind: 'config' as const }]) {
      assert.ok(!approvalButtons(other).includes(DENY_ALWAYS), JSON.stringify(other));
      assert.equal(answerOfButton(DENY_ALWAYS, other), undefined, `a "Deny always" never reaches ${JSON.stringify(other)}`);
      assert.equal(answerOfButton(DENY, other), 'deny');
    }
    assert.deepEqual(approvalButtons({ kind: 'edit' }), [APPROVE, ALWAYS, SHOW_DIFF, DENY]);
    assert.equal(answerOfButton(SHOW_DIFF, { kind: 'edit' }), undefined, 'Show Diff answers nothing');
    assert.equal(answerOfButton(undefined, verification), undefined, 'a closed notification answers nothing');
  });

  it('a pending approval carries remembersDenial for a command only', () => {
    const registry = new PendingApprovals();
    const signal = new AbortController().signal;
    const asked = registry.add('run-1', { ...verificationCommandsRequest(['npm test'], '/w'), remembersDenial: true }, signal).approval;
    const agentCommand = registry.add('run-1', { kind: 'command', title: 'Run a command', detail: 'ls', command: 'ls' }, signal).approval;
    const edit = registry.add('run-1', { kind: 'edit', title: 'Edit a', detail: '+x', path: 'a', remembersDenial: true } as ApprovalRequest, signal).approval;
    assert.equal(asked.remembersDenial, true);
    assert.equal(agentCommand.remembersDenial, undefined);
    assert.equal(edit.remembersDenial, undefined);
  });

  it('the button "Deny always" on a run\'s verification is recorded as always denied, and the next verification asks nobody', async () => {
    const workspace = tmp('deny-always-ws');
    const env = { ...process.env, IDEAL_STATE_STATE_DIR: tmp('deny-always-state') };
    const registry = new PendingApprovals();
    // The editor's approver in miniature: the request waits in the registry; the person presses the notification's button.
    const pressed: string[][] = [];
    const editor = (button: string): Approver => ({
      ask: (request, signal) => {
        const { approval, answer } = registry.add('run-1', request, signal);
        pressed.push(approvalButtons(approval));
        registry.decide(approval.id, answerOfButton(button, approval) ?? 'deny', 'the notification');
        return answer;
      },
    });
    const verify = (button: string) =>
      approveVerificationCommands(['node -e "process.exit(1)"'], new AbortController().signal, {
        approvals: new ApprovalPolicy(editor(button), { trusted: true }),
        request: (c) => verificationCommandsRequest(c, workspace),
        workspace,
        env,
        now: () => new Date('2026-11-27T02:00:00Z'),
      });
    const first = await verify(DENY_ALWAYS);
    assert.deepEqual(pressed, [[APPROVE, ALWAYS, DENY, DENY_ALWAYS]], 'the verification offered "Deny always"');
    assert.equal(first.approved, false);
    assert.deepEqual([...(await deniedCommands(workspace, env)).values()].map((d) => [d.command, d.always]), [['node -e "process.exit(1)"', true]]);

    const second = await verify(APPROVE);
    assert.equal(pressed.length, 1, 'not asked again');
    assert.equal(second.approved, false);
    assert.match(second.reason ?? '', /^not approved/);
    const file = await deniedCommandsFile(workspace, env);
    assert.ok(second.reasons?.['node -e "process.exit(1)"']?.includes(file), 'the reason names the file to undo it in');

    const message = deniedAlwaysMessage({ command: 'node -e "process.exit(1)"', summary: '' }, file);
    assert.match(message, /^Denied always: "node -e "process.exit\(1\)"" is not run or asked about again in this workspace/);
    assert.ok(message.endsWith(`To undo, remove it from ${file}.`), message);
    assert.match(deniedAlwaysMessage({ command: 'a\nb', summary: '' }, file), /these 2 commands are .* remove them from/);
  });
});
