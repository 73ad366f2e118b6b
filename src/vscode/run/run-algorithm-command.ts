import * as vscode from 'vscode';
import { pickEffort } from '../effort-pick';
import type { RunResult } from '../../algorithm/engine';
import type { Logger } from '../../model/log';
import type { EffortLevel, EffortTable, IscDefinition } from '../../model';
import type { DefinitionsHost } from '../definitions-host';
import { engine } from '../engine';
import { withRunProgress } from './run-progress';
import type { RunService } from './run-service';

/** For automation and tests: skips the prompts these answer. */
export interface RunAlgorithmArgs {
  request?: string;
  /** An effort level, an alias or AUTO; STANDARD when left out. */
  effort?: string;
  /** An artifact type from the ISC registry; none when left out. */
  template?: string;
}

const AUTO = 'AUTO';
const NO_TEMPLATE = 'No template';

/** "Ideal State: Run Algorithm at Effort…" — effort level, request, optional ISC template, then the run. */
export function registerRunAlgorithm(service: RunService, definitions: DefinitionsHost, log: Logger): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.runAlgorithm', async (args?: RunAlgorithmArgs): Promise<RunResult | undefined> => {
    const automated = args !== undefined && typeof args === 'object' && !(args instanceof vscode.Uri);
    const loaded = await definitions.get();
    const effort = automated ? resolveEffort(args.effort, loaded.effort.table) : await askEffort(loaded.effort.table);
    if (!effort) return undefined;
    const request = automated && args.request?.trim() ? args.request.trim() : await askRequest(effort);
    if (!request) return undefined;
    const template = automated ? findTemplate(args.template, loaded.isc) : await askTemplate(loaded.isc);
    if (template === undefined) return undefined;
    // A template's criteria are the run's starting criteria (OBSERVE starts from the matching template and refines it).
    const seed = template ? { from: `ISC template ${template.artifactType}`, criteria: engine().templateCriteria(template, new Date().toISOString()) } : undefined;
    return withRunProgress(service, `Ideal State: ${effort === AUTO ? 'Auto' : effort} run`, log, (onStarted) => service.start({ request, effort, ...(seed ? { seed } : {}) }, onStarted));
  });
}

async function askEffort(table: EffortTable): Promise<EffortLevel | typeof AUTO | undefined> {
  type Item = vscode.QuickPickItem & { level: EffortLevel | typeof AUTO };
  const items: Item[] = [
    ...engine().EFFORT_LEVELS.map((level): Item => {
      const s = table.levels[level];
      return { label: level, description: `${s.budgetSeconds} s · ${s.minCriteria}–${s.maxCriteria} criteria · ${s.maxIterations === null ? 'iterations until the budget' : `${s.maxIterations} iteration${s.maxIterations === 1 ? '' : 's'}`} · ${s.parallelism} parallel`, detail: s.description, level };
    }),
    { label: 'Auto', description: 'the effort classifier picks the level from the request', detail: 'Multi-step, file scope, research and integration cues raise it; start the request with "effort EXTENDED:" to choose yourself.', level: AUTO },
  ];
  return pickEffort(items, { title: 'Ideal State: Run Algorithm — effort level', placeholder: 'How much time, depth and parallelism may this run spend?', matchOnDescription: true });
}

async function askRequest(effort: string): Promise<string | undefined> {
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection).trim() : '';
  const request = await vscode.window.showInputBox({
    title: `Ideal State: Run Algorithm at ${effort === AUTO ? 'Auto' : effort} — request`,
    prompt: 'What should be true when the run is done?',
    placeHolder: 'e.g. greet() says "Hello, <name>!" and rejects an empty name',
    value: selected,
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() ? undefined : 'Say what the run should achieve'),
  });
  return request?.trim() || undefined;
}

/** The template, null for none, undefined when the user cancelled. */
async function askTemplate(isc: Awaited<ReturnType<DefinitionsHost['get']>>['isc']): Promise<IscDefinition | null | undefined> {
  const items = [
    { label: NO_TEMPLATE, description: 'the criteria come from the request alone', definition: null },
    ...isc.list().map(({ definition: d }) => ({ label: d.artifactType, description: `${d.idealCriteria.length} criteria · ${d.antiCriteria.length} anti-criteria`, detail: d.description, definition: d })),
  ];
  const picked = await vscode.window.showQuickPick(items, { title: 'Ideal State: Run Algorithm — ISC template (optional)', placeHolder: 'Start from the criteria of an ISC template?', ignoreFocusOut: true, matchOnDetail: true });
  return picked ? picked.definition : undefined;
}

/** The one resolution of an effort name (src/app/effort.ts); an unknown name is an error naming the known ones. */
function resolveEffort(effort: string | undefined, table: EffortTable): EffortLevel | typeof AUTO {
  const found = engine().resolveEffort(effort, table, { auto: true });
  if (!found.ok) throw new Error(found.message);
  return found.level;
}

function findTemplate(type: string | undefined, isc: Awaited<ReturnType<DefinitionsHost['get']>>['isc']): IscDefinition | null {
  if (!type || type === NO_TEMPLATE) return null;
  const registered = isc.get(type);
  if (!registered) throw new Error(`no ISC template "${type}"`);
  return registered.definition;
}
