import * as vscode from 'vscode';

/** An effort level in a quick pick (a level of the table, or Auto where a command offers it). */
export type EffortItem<L extends string> = vscode.QuickPickItem & { readonly level: L };

/**
 * The one effort-level quick pick of the commands that ask for one (Run Algorithm, New PRD,
 * Run Algorithm over Files): STANDARD is the active item, Escape or a click away answers
 * undefined. Each command says what a level means for it in its items' descriptions.
 */
export function pickEffort<L extends string>(items: readonly EffortItem<L>[], options: { title: string; placeholder: string; matchOnDescription?: boolean }): Promise<L | undefined> {
  const pick = vscode.window.createQuickPick<EffortItem<L>>();
  pick.title = options.title;
  pick.placeholder = options.placeholder;
  pick.ignoreFocusOut = true;
  pick.matchOnDescription = options.matchOnDescription ?? false;
  pick.items = items;
  pick.activeItems = items.filter((i) => i.level === 'STANDARD');
  return new Promise((resolve) => {
    let picked: L | undefined;
    pick.onDidAccept(() => {
      picked = pick.selectedItems[0]?.level;
      pick.hide();
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve(picked);
    });
    pick.show();
  });
}
