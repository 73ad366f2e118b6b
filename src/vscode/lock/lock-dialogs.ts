import * as vscode from 'vscode';

/** One PRD offered in the pick: its path (the answer), and what the person reads of it. */
export interface LockPickItem {
  /** Workspace-relative: the answer when it is picked. */
  relative: string;
  label: string;
  description: string;
  detail: string;
}

/** One question of the lock to the person: a modal for Lock and Approve, a notification for the offer, a quick pick for which PRD. */
export interface LockQuestion {
  kind: 'lock' | 'approve' | 'offer' | 'pick';
  message: string;
  /** The modal's detail: what is locked, or the diff to approve. Empty for the offer and the pick. */
  detail: string;
  /** The buttons, the one that acts first (for the pick: the PRDs' paths, newest first). Closing (Esc, Cancel) answers undefined. */
  choices: readonly string[];
  /** The pick's rows, in the order of `choices`. */
  items?: readonly LockPickItem[];
}

/** Answers a question like the person would (the extension's own tests only; see api.ts). */
export type LockAnswerer = (question: LockQuestion) => string | undefined | Promise<string | undefined>;

/**
 * How the lock asks: Lock and Approve in a modal dialog (VS Code's `showWarningMessage` with
 * `modal: true`, https://code.visualstudio.com/api/references/vscode-api#MessageOptions),
 * the offer in a non-modal notification, so a run's table stays usable meanwhile, and which
 * PRD to lock in a quick pick of one choice (a lock is per PRD).
 */
export class LockDialogs {
  private answerer: LockAnswerer | undefined;
  /** Every question asked, newest last (for the tests: what the person was shown). */
  readonly asked: LockQuestion[] = [];

  answerWith(answerer: LockAnswerer | undefined): void {
    this.answerer = answerer;
  }

  async ask(question: LockQuestion): Promise<string | undefined> {
    this.asked.push(question);
    if (this.asked.length > 50) this.asked.splice(0, this.asked.length - 50);
    if (this.answerer) return this.answerer(question);
    if (question.kind === 'pick') {
      const picked = await vscode.window.showQuickPick(
        (question.items ?? []).map((i) => ({ label: i.label, description: i.description, detail: i.detail, relative: i.relative })),
        { title: 'Ideal State: Lock Criteria', placeHolder: question.message, matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true },
      );
      return picked?.relative;
    }
    if (question.kind === 'offer') return vscode.window.showInformationMessage(question.message, ...question.choices);
    return vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, ...question.choices);
  }
}
