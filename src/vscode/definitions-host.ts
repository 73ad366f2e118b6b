import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DataFileProblem } from '../model/data-file';
import type { Definitions } from '../model/definitions';
import { engine } from './engine';
import type { Logger } from '../model/log';
import type { Settings } from '../model/settings';
import { workspaceTextFiles } from './workspace-files';

/**
 * The effort table and ISC definitions for this window: shipped files plus, in a
 * trusted workspace, the user's overrides. Problems go to the Problems panel with
 * file and line; reloaded when those files, the settings or the trust change.
 */
export class DefinitionsHost implements vscode.Disposable {
  private loading: Promise<Definitions> | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('ideal-state-definitions');
  private readonly _onDidChange = new vscode.EventEmitter<Definitions>();
  /** Fires after the definitions were reloaded because their files, settings or trust changed. */
  readonly onDidChange = this._onDidChange.event;
  private readonly disposables: vscode.Disposable[] = [this.diagnostics, this._onDidChange];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly settings: Settings,
    private readonly log: Logger,
  ) {
    const watcher = vscode.workspace.createFileSystemWatcher('**/.ideal-state/**/*.{yaml,yml}');
    this.disposables.push(
      watcher,
      watcher.onDidChange(() => this.invalidate()),
      watcher.onDidCreate(() => this.invalidate()),
      watcher.onDidDelete(() => this.invalidate()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.invalidate()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('idealState')) this.invalidate();
      }),
    );
  }

  get(): Promise<Definitions> {
    this.loading ??= this.load();
    this.loading.catch(() => (this.loading = undefined));
    return this.loading;
  }

  /** Drops what was loaded; if anything was, reloads soon so the Problems panel stays current. */
  private invalidate(): void {
    const wasLoaded = this.loading !== undefined;
    this.loading = undefined;
    clearTimeout(this.reloadTimer);
    if (wasLoaded) {
      this.reloadTimer = setTimeout(
        () =>
          void this.get().then(
            (definitions) => this._onDidChange.fire(definitions),
            (e: unknown) => this.log.error(String(e)),
          ),
        300,
      );
    }
  }

  private async load(): Promise<Definitions> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const trusted = vscode.workspace.isTrusted;
    const inWorkspace = (relative: string) => (folder && trusted ? path.resolve(folder, relative) : undefined);
    const definitions = await engine().loadDefinitions(workspaceTextFiles, {
      shippedIscDir: this.context.asAbsolutePath('isc-definitions'),
      workspaceIscDir: inWorkspace(this.settings.get('iscDefinitionsFolder')),
      effortOverrideFile: inWorkspace(this.settings.get('effortLevelsFile')),
    });
    this.report(definitions.problems);
    this.log.info(`loaded ${definitions.isc.list().length} ISC definitions${trusted ? '' : ' (Restricted Mode: workspace overrides ignored)'}`);
    return definitions;
  }

  private report(problems: readonly DataFileProblem[]): void {
    this.diagnostics.clear();
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const problem of problems) {
      this.log.warn(engine().formatProblem(problem));
      const position = new vscode.Position(problem.line - 1, problem.column - 1);
      const diagnostic = new vscode.Diagnostic(
        new vscode.Range(position, position.translate(0, 1)),
        problem.field ? `${problem.field}: ${problem.message}` : problem.message,
        vscode.DiagnosticSeverity.Error,
      );
      diagnostic.source = 'Ideal State';
      byFile.set(problem.file, [...(byFile.get(problem.file) ?? []), diagnostic]);
    }
    for (const [file, list] of byFile) this.diagnostics.set(vscode.Uri.file(file), list);
  }

  dispose(): void {
    clearTimeout(this.reloadTimer);
    for (const d of this.disposables) d.dispose();
  }
}
