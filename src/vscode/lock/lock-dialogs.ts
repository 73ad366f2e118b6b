import * as vscode from 'vscode';

/** One question of the lock to the person: a modal for Lock and Approve, a notification for the offer. */
export interface LockQuestion {
  kind: 'lock' | 'approve' | 'offer';
  message: string;
  /** The modal's detail: what is locked, or the diff to approve. Empty for the offer. */
  detail: string;
  /** The buttons, the one that acts first. Closing (Esc, Cancel) answers undefined. */
  choices: readonly string[];
}

/** Answers a question like the person would (the extension's own tests only; see api.ts). */
export type LockAnswerer = (question: LockQuestion) => string | undefined | Promise<string | undefined>;

/**
 * How the lock asks: Lock and Approve in a modal dialog (VS Code's `showWarningMessage` with
 * `modal: true`, https://code.visualstudio.com/api/references/vscode-api#MessageOptions),
 * the offer in a non-modal notification, so a run's table stays usable meanwhile.
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
    if (question.kind === 'offer') return vscode.window.showInformationMessage(question.message, ...question.choices);
    return vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, ...question.choices);
  }
}
