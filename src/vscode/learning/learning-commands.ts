import * as vscode from 'vscode';
import type { ImportResult } from '../../learning';
import type { LearningHost } from './learning-host';

/** "Rate Last Run", "Import/Export Ratings…", "Import/Export Reflections…", "Mine Reflections". */
export function registerLearningCommands(host: LearningHost): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand('idealState.rateLastRun', () => rateLastRun(host)),
    vscode.commands.registerCommand('idealState.importRatings', () => importFile(host, 'ratings')),
    vscode.commands.registerCommand('idealState.exportRatings', () => exportFile(host, 'ratings')),
    vscode.commands.registerCommand('idealState.importReflections', () => importFile(host, 'reflections')),
    vscode.commands.registerCommand('idealState.exportReflections', () => exportFile(host, 'reflections')),
    vscode.commands.registerCommand('idealState.mineReflections', () => mine(host)),
  );
}

async function rateLastRun(host: LearningHost): Promise<void> {
  const learning = await host.service();
  const run = learning.lastUnratedRun();
  if (!run) {
    void vscode.window.showInformationMessage('Ideal State: every finished run is rated. A run asks for its rating when it ends.');
    return;
  }
  const picks: (vscode.QuickPickItem & { rating?: number })[] = [
    ...[10, 9, 8, 7, 6, 5, 4, 3, 2, 1].map((rating) => ({ label: String(rating), rating })),
    { label: 'Comment only…', detail: 'Say how it went in words; with a model chosen, a rating is read from it' },
  ];
  const pick = await vscode.window.showQuickPick(picks, { title: `How did this go? ${run.request}`, placeHolder: '10 is perfect, 1 is useless' });
  if (!pick) return;
  const comment = await vscode.window.showInputBox({ title: `Rating ${pick.rating ?? '(from the comment)'} for ${run.id}`, prompt: pick.rating ? 'A comment (optional)' : 'What went well or badly?', ignoreFocusOut: true });
  if (comment === undefined || (!pick.rating && !comment.trim())) return;
  await reportRating(host, run.id, { ...(pick.rating ? { rating: pick.rating } : {}), text: comment });
}

/** Rates and says what happened, including when the comment could not become a rating. */
export async function reportRating(host: LearningHost, runId: string, input: { rating?: number; text?: string }): Promise<void> {
  try {
    const result = await host.rate(runId, input);
    const reflection = result.reflection ? (result.reflection.author === 'facts' ? ' A reflection was written from the run\'s facts (no model).' : ' The manager wrote a reflection.') : '';
    if (result.rating) void vscode.window.showInformationMessage(`Ideal State: rated ${result.rating.rating}/10${result.rating.type === 'implicit' ? ` (read from your comment, confidence ${result.rating.confidence})` : ''}.${reflection}`);
    else void vscode.window.showInformationMessage(`Ideal State: kept as a comment; ${result.commentOnly}. The run is not asked about again; choose a number in its ISC table to rate it.`);
  } catch (error) {
    void vscode.window.showErrorMessage(`Ideal State: could not rate ${runId}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const FILE_NAMES = { ratings: 'ratings.jsonl', reflections: 'algorithm-reflections.jsonl' } as const;

async function importFile(host: LearningHost, kind: 'ratings' | 'reflections'): Promise<ImportResult | undefined> {
  const [uri] =
    (await vscode.window.showOpenDialog({ title: `Import ${kind} (PAI ${FILE_NAMES[kind]})`, canSelectMany: false, filters: { 'JSON Lines': ['jsonl', 'json', 'txt'] } })) ?? [];
  if (!uri) return undefined;
  let text: string;
  try {
    text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch (error) {
    void vscode.window.showErrorMessage(`Ideal State: cannot read ${uri.fsPath}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  const learning = await host.service();
  const result = kind === 'ratings' ? learning.importRatings(text) : learning.importReflections(text);
  for (const p of result.problems) host.log.warn(`${uri.fsPath}:${p.line}: skipped: ${p.message}`);
  host.changed();
  const summary = `Ideal State: imported ${result.added} ${kind}${result.alreadyThere ? `, ${result.alreadyThere} already there` : ''}`;
  if (result.problems.length === 0) void vscode.window.showInformationMessage(`${summary}.`);
  else {
    const first = result.problems[0]!;
    const answer = await vscode.window.showWarningMessage(
      `${summary}; skipped ${result.problems.length} bad line${result.problems.length === 1 ? '' : 's'} (line ${first.line}: ${first.message}${result.problems.length > 1 ? '; more in the log' : ''}).`,
      'Show Log',
    );
    if (answer === 'Show Log') void vscode.commands.executeCommand('idealState.showLog');
  }
  return result;
}

async function exportFile(host: LearningHost, kind: 'ratings' | 'reflections'): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const target = await vscode.window.showSaveDialog({ title: `Export ${kind} as PAI ${FILE_NAMES[kind]}`, ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, FILE_NAMES[kind]) } : {}), filters: { 'JSON Lines': ['jsonl'] } });
  if (!target) return;
  const learning = await host.service();
  const text = kind === 'ratings' ? learning.exportRatings() : learning.exportReflections();
  // Never a half-written file: write beside it, then rename over.
  const temp = target.with({ path: `${target.path}.tmp` });
  await vscode.workspace.fs.writeFile(temp, new TextEncoder().encode(text));
  await vscode.workspace.fs.rename(temp, target, { overwrite: true });
  const count = text === '' ? 0 : text.trimEnd().split('\n').length;
  void vscode.window.showInformationMessage(`Ideal State: exported ${count} ${kind} to ${vscode.workspace.asRelativePath(target)}.`);
}

async function mine(host: LearningHost): Promise<void> {
  const themes = (await host.service()).mine();
  host.changed();
  if (themes.length === 0) {
    void vscode.window.showInformationMessage('Ideal State: there are no reflections to mine yet.');
    return;
  }
  const top = themes[0]!;
  void vscode.window.showInformationMessage(`Ideal State: ${themes.length} theme${themes.length === 1 ? '' : 's'}; the heaviest is "${top.label}" (${top.frequency} runs${top.averageRating !== undefined ? `, average ${top.averageRating}` : ''}): ${top.suggestedChange}`);
}
