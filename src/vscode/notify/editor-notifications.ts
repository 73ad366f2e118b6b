import * as vscode from 'vscode';
import type { ApprovalRequest, Approver } from '../../agent/approvals';
import type { RunResult } from '../../algorithm/engine-api';
import type { Loop } from '../../model/loop';
import type { EventData } from '../../app/notify/payload';
import type { NotificationEvent } from '../../app/notify/config';
import type { Logger } from '../../model/log';
import { SETTINGS } from '../../model/settings';
import { engine } from '../engine';

/**
 * The editor's events for the person's webhooks: a run or a loop that ended, an approval that waits.
 * Sent in the background (a run never waits on a receiver); what goes wrong is said in the one
 * log channel and shown once a window session as a warning (a person who set up a webhook learns
 * it is not reaching them without watching the log; the same problem again is only logged). The file is the user's: `idealState.notifications.file` is read from the user
 * settings only (application scope), and a value in the workspace's settings is named as ignored.
 */
/** The problems already shown in this window: a webhook that keeps failing is shown once, logged each time. */
const shown = new Set<string>();

function showOnce(line: string): void {
  // The same failure whatever the attempt count: "… failed: HTTP 400 (after 1 attempt; …)".
  const key = line.replace(/ \(after \d+ attempts?;.*$/, '');
  if (shown.has(key)) return;
  shown.add(key);
  void vscode.window.showWarningMessage(line, 'Show Log').then((answer) => answer === 'Show Log' && vscode.commands.executeCommand('idealState.showLog'));
}

export class EditorNotifications {
  constructor(
    private readonly log: Logger,
    private readonly folder: () => string | undefined,
  ) {}

  runFinished(result: RunResult): void {
    this.send('run.finished', engine().runFinishedData(result));
  }

  loopFinished(loop: Loop, unmet: readonly string[]): void {
    this.send('loop.finished', engine().loopFinishedData(loop, unmet));
  }

  approvalWaiting(request: ApprovalRequest, runId: string | undefined): void {
    this.send('approval.waiting', { runId: request.runId ?? runId ?? 'unknown', kind: request.kind, subject: request.title });
  }

  /** The approver, telling the webhooks first that a person is asked (never waiting for them). */
  asking(inner: Approver, runId: () => string | undefined): Approver {
    return {
      ask: (request, signal) => {
        this.approvalWaiting(request, runId());
        return inner.ask(request, signal);
      },
      ...(inner.unattended !== undefined ? { unattended: inner.unattended } : {}),
    };
  }

  private send<E extends NotificationEvent>(event: E, data: EventData<E>): void {
    const inspected = vscode.workspace.getConfiguration().inspect<string>(SETTINGS.notificationsFile.key);
    const fromWorkspace = inspected?.workspaceValue ?? inspected?.workspaceFolderValue;
    if (fromWorkspace) this.log.warn(`${SETTINGS.notificationsFile.key} in the workspace settings (${fromWorkspace}) is ignored: a workspace cannot add a webhook`);
    const workspace = this.folder();
    // Through the engine bundle: the notifier reads its file with yaml and zod, which activation never loads.
    const said = (line: string) => {
      this.log.warn(line);
      showOnce(line);
    };
    void engine()
      .notify(event, data, {}, { ...(workspace ? { workspace } : {}), ...(inspected?.globalValue ? { settingFile: inspected.globalValue } : {}), warn: said })
      .catch((error: unknown) => said(`Ideal State: the ${event} notification was not sent: ${error instanceof Error ? error.message : String(error)}`));
  }
}
