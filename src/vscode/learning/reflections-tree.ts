import * as vscode from 'vscode';
import type { LearningCategory, Reflection } from '../../model';
import type { LearningHost } from './learning-host';
import { reflectionUri } from './learning-documents';

export const UNMINED_THEME = 'Not mined yet';

export type ReflectionNode =
  | { readonly kind: 'theme'; readonly theme: string; readonly reflections: readonly Reflection[] }
  | { readonly kind: 'category'; readonly theme: string; readonly category: LearningCategory; readonly reflections: readonly Reflection[] }
  | { readonly kind: 'reflection'; readonly reflection: Reflection };

/** Reflections by mined theme, then ALGORITHM/SYSTEM, then run; a run opens its reflection in full. */
export class ReflectionsTreeProvider implements vscode.TreeDataProvider<ReflectionNode>, vscode.Disposable {
  private readonly _onDidChangeTreeData = new vscode.EventEmitter<ReflectionNode | undefined>();
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly host: LearningHost) {
    this.subscription = host.onDidChange(() => this._onDidChangeTreeData.fire(undefined));
  }

  async getChildren(node?: ReflectionNode): Promise<ReflectionNode[]> {
    if (!node) return themes(await (await this.host.service()).reflections());
    if (node.kind === 'theme') {
      return (['ALGORITHM', 'SYSTEM'] as const)
        .map((category) => ({ kind: 'category' as const, theme: node.theme, category, reflections: node.reflections.filter((r) => r.category === category) }))
        .filter((c) => c.reflections.length > 0);
    }
    if (node.kind === 'category') return node.reflections.map((reflection) => ({ kind: 'reflection' as const, reflection }));
    return [];
  }

  getTreeItem(node: ReflectionNode): vscode.TreeItem {
    if (node.kind === 'theme') {
      const item = new vscode.TreeItem(node.theme, vscode.TreeItemCollapsibleState.Expanded);
      const rated = node.reflections.map((r) => r.impliedSentiment).filter((r): r is number => r !== undefined);
      item.description = `${node.reflections.length} run${node.reflections.length === 1 ? '' : 's'}${rated.length > 0 ? ` · avg ${(rated.reduce((s, r) => s + r, 0) / rated.length).toFixed(1)}` : ''}`;
      item.iconPath = new vscode.ThemeIcon(node.theme === UNMINED_THEME ? 'circle-outline' : 'symbol-namespace');
      item.id = `theme:${node.theme}`;
      item.contextValue = 'theme';
      return item;
    }
    if (node.kind === 'category') {
      const item = new vscode.TreeItem(node.category, vscode.TreeItemCollapsibleState.Expanded);
      item.description = String(node.reflections.length);
      item.iconPath = new vscode.ThemeIcon(node.category === 'ALGORITHM' ? 'symbol-event' : 'tools');
      item.id = `category:${node.theme}:${node.category}`;
      return item;
    }
    const r = node.reflection;
    const item = new vscode.TreeItem(oneLine(r.request ?? r.runId, 60), vscode.TreeItemCollapsibleState.None);
    item.id = `reflection:${r.id}`;
    item.description = [r.impliedSentiment !== undefined ? `${r.impliedSentiment}/10` : 'unrated', r.learningNote ? 'learning note' : undefined, r.timestamp.slice(0, 10)].filter(Boolean).join(' · ');
    const tooltip = new vscode.MarkdownString(undefined, false);
    tooltip.appendText(`${r.runId} · ${r.effortLevel} · ${r.criteriaPassed}/${r.criteriaCount} passed\n\nQ1: ${r.q1Self}`);
    if (r.learningNote) tooltip.appendText(`\n\nLearning note: ${r.learningNote}`);
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon(r.learningNote ? 'warning' : 'lightbulb');
    item.contextValue = 'reflection';
    item.command = { command: 'vscode.open', title: 'Open Reflection', arguments: [reflectionUri(r.id), { preview: true }] };
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this._onDidChangeTreeData.dispose();
  }
}

/** Theme groups, largest first, the not-yet-mined group last. */
export function themes(reflections: readonly Reflection[]): ReflectionNode[] {
  const groups = new Map<string, Reflection[]>();
  for (const r of reflections) {
    const theme = r.theme ?? UNMINED_THEME;
    groups.set(theme, [...(groups.get(theme) ?? []), r]);
  }
  return [...groups.entries()]
    .sort(([a, x], [b, y]) => Number(a === UNMINED_THEME) - Number(b === UNMINED_THEME) || y.length - x.length || a.localeCompare(b))
    .map(([theme, list]) => ({ kind: 'theme' as const, theme, reflections: list }));
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
