import * as vscode from 'vscode';
import { iterationLimitLabel } from '../../model/labels';
import type { EffortTable } from '../../model';
import { engine } from '../engine';
import type { Settings } from '../../model/settings';
import { openOrCreate } from '../workspace-files';
import type { DefinitionsHost } from '../definitions-host';

const CUSTOMIZE = 'Customize for this workspace…';

/** "Ideal State: Show Effort Levels" — the effort table in force; one item creates a workspace override. */
export function registerShowEffortLevels(definitions: DefinitionsHost, settings: Settings): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.showEffortLevels', async () => {
    const { effort } = await definitions.get();
    const items: vscode.QuickPickItem[] = [...levelItems(effort.table), { label: '', kind: vscode.QuickPickItemKind.Separator }, { label: CUSTOMIZE }];
    const picked = await vscode.window.showQuickPick(items, { title: 'Ideal State: Effort Levels', placeHolder: 'Budgets and limits per effort level' });
    if (picked?.label === CUSTOMIZE) await openOverride(settings);
  });
}

function levelItems(table: EffortTable): vscode.QuickPickItem[] {
  const aliasesOf = (level: string) => Object.entries(table.aliases).filter(([, l]) => l === level).map(([a]) => a);
  return engine().EFFORT_LEVELS.map((level) => {
    const s = table.levels[level];
    const aliases = aliasesOf(level);
    return {
      label: level,
      description: `${s.budgetSeconds} s · ${s.minCriteria}–${s.maxCriteria} criteria · ${iterationLimitLabel(s.maxIterations)} · ${s.parallelism} parallel${aliases.length ? ` · alias ${aliases.join(', ')}` : ''}`,
      detail: s.description,
    };
  });
}

async function openOverride(settings: Settings): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showWarningMessage('Ideal State: open a folder to customize its effort levels.');
    return;
  }
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage('Ideal State: effort level overrides are ignored in Restricted Mode. Trust this workspace to use one.');
    return;
  }
  const uri = vscode.Uri.joinPath(folder.uri, settings.get('effortLevelsFile'));
  const template = [
    '# Overrides of the shipped effort table; every key is optional.',
    '# Example: give STANDARD runs four minutes and three iterations.',
    'version: 1',
    'levels:',
    '  STANDARD:',
    '    budgetSeconds: 240',
    '    maxIterations: 3',
    '',
  ].join('\n');
  await openOrCreate(uri, template);
}
