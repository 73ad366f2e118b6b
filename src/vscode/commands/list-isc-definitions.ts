import * as vscode from 'vscode';
import type { RegisteredDefinition } from '../../model/isc-registry';
import type { DefinitionsHost } from '../definitions-host';

interface DefinitionItem extends vscode.QuickPickItem {
  readonly registered: RegisteredDefinition;
}

/** "Ideal State: List ISC Definitions" — the templates by artifact type; picking one opens its file. */
export function registerListIscDefinitions(definitions: DefinitionsHost): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.listIscDefinitions', async () => {
    const { isc } = await definitions.get();
    const items: DefinitionItem[] = isc.list().map((registered) => {
      const d = registered.definition;
      return {
        label: d.artifactType,
        description: `${d.idealCriteria.length} criteria · ${d.antiCriteria.length} anti-criteria · ${d.scaleTier} · v${d.version}`,
        detail: `${d.description} (${registered.origin === 'shipped' ? 'shipped' : registered.overrides ? 'workspace, overrides shipped' : 'workspace'})`,
        registered,
      };
    });
    const picked = await vscode.window.showQuickPick(items, {
      title: 'Ideal State: ISC Definitions',
      placeHolder: 'Pick a definition to open its file',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (picked) await vscode.window.showTextDocument(vscode.Uri.file(picked.registered.file), { preview: true });
  });
}
