import * as vscode from 'vscode';
import { pickEffort } from '../effort-pick';
import type { Definitions } from '../../model/definitions';
import { iterationLimitLabel } from '../../model/labels';
import type { Logger } from '../../model/log';
import type { EffortLevel, EffortTable, IscDefinition } from '../../model';
import type { Settings } from '../../model/settings';
import type { DefinitionsHost } from '../definitions-host';
import { engine } from '../engine';

/** For automation and tests: skips the prompts that these answer. */
export interface NewPrdArgs {
  title?: string;
  /** An effort level or alias; STANDARD when left out. */
  effort?: string;
  /** An artifact type from the ISC registry; none when left out. */
  template?: string;
}

const NO_TEMPLATE = 'No template';

/** "Ideal State: New PRD" — asks for title, effort and ISC template, writes the PRD and opens it. */
export function registerNewPrd(definitions: DefinitionsHost, settings: Settings, log: Logger): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.newPrd', async (args?: NewPrdArgs): Promise<vscode.Uri | undefined> => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) {
      void vscode.window.showWarningMessage('Ideal State: open a folder to create a PRD in it.');
      return undefined;
    }
    const automated = args !== undefined && typeof args === 'object' && !(args instanceof vscode.Uri);
    const loaded = await definitions.get();
    const title = automated && args.title?.trim() ? args.title.trim() : await askTitle();
    if (!title) return undefined;
    const effort = automated ? resolveEffort(args.effort, loaded.effort.table) : await askEffort(loaded.effort.table);
    if (!effort) return undefined;
    const template = automated ? findTemplate(args.template, loaded) : await askTemplate(loaded);
    if (template === undefined) return undefined;

    const now = new Date();
    const dir = vscode.Uri.joinPath(folder.uri, settings.get('prdFolder'));
    await vscode.workspace.fs.createDirectory(dir);
    const { uri, id } = await freeName(dir, engine().newPrdId(title, now));
    const text = engine().newPrdText({ title, effort, maxIterations: loaded.effort.table.levels[effort].maxIterations, now, ...(template ? { template } : {}) }, id);
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
    log.info(`created ${vscode.workspace.asRelativePath(uri)}`);
    await vscode.window.showTextDocument(uri, { preview: false });
    return uri;
  });
}

async function askTitle(): Promise<string | undefined> {
  const title = await vscode.window.showInputBox({
    title: 'Ideal State: New PRD',
    prompt: 'What is this PRD about?',
    placeHolder: 'e.g. Dark mode for the settings page',
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() ? undefined : 'Give the PRD a title'),
  });
  return title?.trim() || undefined;
}

async function askEffort(table: EffortTable): Promise<EffortLevel | undefined> {
  const items = engine().EFFORT_LEVELS.map((level) => {
    const s = table.levels[level];
    return { label: level, description: `${s.minCriteria}–${s.maxCriteria} criteria · ${iterationLimitLabel(s.maxIterations)} · ${s.budgetSeconds} s`, detail: s.description, level };
  });
  return pickEffort(items, { title: 'Ideal State: New PRD — effort level', placeholder: 'How much time and depth may a run on this PRD spend?' });
}

/** The template, null for none, undefined when the user cancelled. */
async function askTemplate({ isc }: Definitions): Promise<IscDefinition | null | undefined> {
  const items = [
    { label: NO_TEMPLATE, description: 'start with empty criteria', definition: null },
    ...isc.list().map(({ definition: d }) => ({ label: d.artifactType, description: `${d.idealCriteria.length} criteria · ${d.antiCriteria.length} anti-criteria`, detail: d.description, definition: d })),
  ];
  const picked = await vscode.window.showQuickPick(items, { title: 'Ideal State: New PRD — ISC template', placeHolder: 'Start from the criteria of an ISC template?', ignoreFocusOut: true, matchOnDetail: true });
  return picked ? picked.definition : undefined;
}

/** The one resolution of an effort name (src/app/effort.ts); an unknown name is an error naming the known ones. */
function resolveEffort(effort: string | undefined, table: EffortTable): EffortLevel {
  const found = engine().resolveEffort(effort, table);
  if (!found.ok) throw new Error(found.message);
  return found.level as EffortLevel;
}

function findTemplate(type: string | undefined, { isc }: Definitions): IscDefinition | null {
  if (!type || type === NO_TEMPLATE) return null;
  const registered = isc.get(type);
  if (!registered) throw new Error(`no ISC template "${type}"`);
  return registered.definition;
}

/** `<id>.md`, or `<id>-2.md`, `<id>-3.md`… when taken: an existing PRD is never overwritten. */
async function freeName(dir: vscode.Uri, base: string): Promise<{ uri: vscode.Uri; id: string }> {
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}-${n}`;
    const uri = vscode.Uri.joinPath(dir, `${id}.md`);
    try {
      await vscode.workspace.fs.stat(uri);
    } catch {
      return { uri, id };
    }
  }
}
