import * as path from 'node:path';
import { stateWords } from '../../model/run-states';
import * as vscode from 'vscode';
import type { Reflection } from '../../model';
import type { LearningHost } from './learning-host';
import { verdictLabel } from '../../model/labels';

export const REFLECTION_SCHEME = 'ideal-state-reflection';
export const RUN_SCHEME = 'ideal-state-run';

export function reflectionUri(id: string): vscode.Uri {
  return vscode.Uri.from({ scheme: REFLECTION_SCHEME, path: `/${id}.md` });
}

export function runUri(runId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: RUN_SCHEME, path: `/${runId}.md` });
}

/**
 * Read-only markdown documents: a reflection in full (with links to its run and its PRD)
 * and a stored run's facts. Virtual, so nothing is written to the workspace.
 */
export class LearningDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this._onDidChange.event;
  private readonly open = new Set<string>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly host: LearningHost) {
    this.subscription = host.onDidChange(() => {
      for (const uri of this.open) this._onDidChange.fire(vscode.Uri.parse(uri));
    });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    this.open.add(uri.toString());
    const id = path.posix.basename(uri.path, '.md');
    const learning = await this.host.service();
    if (uri.scheme === REFLECTION_SCHEME) {
      const reflection = learning.reflections().find((r) => r.id === id);
      return reflection ? reflectionMarkdown(reflection, learning.facts(reflection.runId) !== undefined) : `# Reflection ${id}\n\nThis reflection is no longer in the workspace's store.\n`;
    }
    const facts = learning.facts(id);
    if (!facts) return `# Run ${id}\n\nThis run is not in the workspace's store.\n`;
    const lines = [
      `# Run ${facts.runId}`,
      '',
      `**Request:** ${facts.request}`,
      '',
      `| effort | end state | finished | budget used | rating |`,
      `| --- | --- | --- | --- | --- |`,
      `| ${facts.effort} | ${stateWords(facts.state)} | ${facts.finishedAt} | ${Math.round(facts.elapsedMs / 1000)} s of ${facts.budgetSeconds} s | ${facts.rating !== undefined ? `${facts.rating}/10` : 'not rated'} |`,
      '',
      '## Criteria',
      '',
      ...facts.criteria.map((c) => `- ${c.outcome === 'PASS' ? '[x]' : '[ ]'} ${c.id}: ${c.text} — ${c.outcome ? verdictLabel(c.outcome, c.failureLabel) : 'not verified'}${c.addedLater ? ' · added later' : ''}`),
    ];
    if (facts.prdPath) lines.push('', `PRD: [${facts.prdPath}](${prdLink(facts.prdPath)})`);
    return `${lines.join('\n')}\n`;
  }

  dispose(): void {
    this.subscription.dispose();
    this._onDidChange.dispose();
  }
}

const AUTHOR: Record<NonNullable<Reflection['author']>, string> = {
  manager: 'the manager model',
  facts: "the run's facts only (no model was available; the answers are derived, not written by a model)",
  imported: 'imported from PAI',
};

export function reflectionMarkdown(r: Reflection, runInStore: boolean): string {
  const lines = [
    `# Reflection: ${r.request ?? r.runId}`,
    '',
    `| effort | criteria passed | failed | within budget | budget used | rating | category |`,
    `| --- | --- | --- | --- | --- | --- | --- |`,
    `| ${r.effortLevel} | ${r.criteriaPassed} of ${r.criteriaCount} | ${r.criteriaFailed} | ${r.withinBudget ? 'yes' : 'no'} | ${r.elapsedPercent}% | ${r.impliedSentiment !== undefined ? `${r.impliedSentiment}/10` : 'not rated'} | ${r.category} |`,
    '',
    `Written ${r.timestamp} from ${AUTHOR[r.author ?? 'manager']}.${r.theme ? ` Theme: **${r.theme}**.` : ''}`,
  ];
  if (r.userFeedback) lines.push('', `> ${r.userFeedback.replace(/\n/g, '\n> ')}`);
  lines.push('', '## Q1 — What would I do differently?', '', r.q1Self, '', '## Q2 — What would a smarter workflow do?', '', r.q2Workflow, '', '## Q3 — What would a smarter system do?', '', r.q3System);
  if (r.learningNote) lines.push('', '## Learning note', '', r.learningNote);
  lines.push('', '## Links', '');
  lines.push(runInStore ? `- Run: [${r.runId}](${runUri(r.runId).toString()})` : `- Run: ${r.runId} (not in this workspace's store)`);
  if (r.prdPath) lines.push(`- PRD: [${r.prdPath}](${prdLink(r.prdPath)})`);
  else if (r.prdId) lines.push(`- PRD: ${r.prdId}`);
  return `${lines.join('\n')}\n`;
}

function prdLink(prdPath: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (path.isAbsolute(prdPath) || !folder) return vscode.Uri.file(prdPath).toString();
  return vscode.Uri.joinPath(folder, prdPath).toString();
}
