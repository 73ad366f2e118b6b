import * as vscode from 'vscode';
import type { ChooseLearned, LearnedCriterion } from '../../learning';
import { engine } from '../engine';

export const LEARNED_PICK_TITLE = 'Learned from past runs: keep these criteria?';

/** The pick's prompt: what Enter and Esc do, and that the run's budget waits meanwhile. */
export function learnedPickPlaceholder(runLabel: string): string {
  return `${runLabel}: ticked ones are added; untick to drop. Enter confirms; Esc keeps them all (the default). The run's budget waits while you decide.`;
}

/**
 * At OBSERVE, before the run adds criteria learned from similar low-rated runs, the person
 * sees each with where it came from and keeps (ticked) or drops (unticked) it. Closing the
 * pick without an answer keeps them all, as the run would without asking: a kept row can
 * still be dropped later by deleting its line from the PRD.
 */
export function chooseLearnedInQuickPick(runLabel: string): ChooseLearned {
  return (offers, signal) =>
    new Promise<readonly LearnedCriterion[] | undefined>((resolve) => {
      const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { offer: LearnedCriterion }>();
      const items = offers.map((offer) => ({
        offer,
        label: offer.text,
        description: offer.anti ? 'INFERRED anti-criterion' : 'INFERRED',
        detail: engine().describeProvenance(offer.provenance),
      }));
      pick.title = LEARNED_PICK_TITLE;
      pick.placeholder = learnedPickPlaceholder(runLabel);
      pick.canSelectMany = true;
      pick.matchOnDetail = true;
      pick.ignoreFocusOut = true;
      pick.items = items;
      pick.selectedItems = items;
      let answered: readonly LearnedCriterion[] | undefined;
      const done = () => {
        abort.dispose();
        pick.dispose();
        resolve(answered);
      };
      const onAbort = () => pick.hide();
      signal.addEventListener('abort', onAbort, { once: true });
      const abort = { dispose: () => signal.removeEventListener('abort', onAbort) };
      pick.onDidAccept(() => {
        answered = pick.selectedItems.map((i) => i.offer);
        pick.hide();
      });
      pick.onDidHide(done);
      pick.show();
    });
}
