import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeError, isCancellation } from '../../model/errors';
import type { Logger } from '../../model/log';
import type { AnyCriterion, CriterionResult } from '../../model';
import type { PrdDocument } from '../../prd';
import type { Coverage } from '../../verify/types';
import type { StalenessTracker } from '../../verify/staleness';
import { engine } from '../engine';
import { testItemState } from '../../model/verdict';
import { signalFrom } from './abort';
import { PrdVerifyError, type PrdVerification, type PrdVerifier } from './verify-prd';
import { skippedOutputText, testMessageText, verifyFailedText } from './test-message-text';

/** What the last result of a criterion was in the Testing view, for the API and tests. */
export type CriterionTestState = 'passed' | 'failed' | 'skipped' | 'errored';

/** A PRD in the Testing view with its criteria: 0-based lines, the last result there, and why a PASS went stale. */
export interface CriteriaTestItem {
  uri: vscode.Uri;
  id: string;
  criteria: { id: string; line: number; state?: CriterionTestState; stale?: string }[];
}

const DEBOUNCE_MS = 300;

/**
 * Criteria as tests in VS Code's Testing view: one item per PRD in the workspace, one child
 * per criterion linked to its line. Running them verifies through the same path as the
 * command; PASS is passed, FAIL and PARTIAL failed with the evidence, UNKNOWN skipped with
 * the reason. A PASS whose covered files change is invalidated (shown as stale).
 */
export class CriteriaTests implements vscode.Disposable {
  private readonly controller = vscode.tests.createTestController('idealState.criteria', 'Ideal State Criteria');
  /** Per PRD item id: which PASS results a file change makes stale (the engine's rules). */
  private readonly trackers = new Map<string, StalenessTracker>();
  private readonly states = new Map<string, CriterionTestState>();
  /** Why a criterion's last PASS is stale, shown before its verify method. */
  private readonly staleBecause = new Map<string, string>();
  private readonly methods = new Map<string, string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly disposables: vscode.Disposable[] = [this.controller];
  private discovered: Promise<void> | undefined;

  constructor(
    private readonly verifier: PrdVerifier,
    private readonly log: Logger,
  ) {
    this.controller.resolveHandler = async (item) => {
      if (!item) await this.discover();
    };
    this.controller.refreshHandler = () => this.discover(true);
    this.controller.createRunProfile('Verify', vscode.TestRunProfileKind.Run, (request, token) => this.run(request, token), true);
    const prds = vscode.workspace.createFileSystemWatcher('**/*.md');
    const files = vscode.workspace.createFileSystemWatcher('**/*');
    this.disposables.push(
      prds,
      files,
      prds.onDidCreate((uri) => this.schedule(uri)),
      prds.onDidChange((uri) => this.schedule(uri)),
      prds.onDidDelete((uri) => this.remove(uri)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.languageId === 'markdown' && e.contentChanges.length > 0) this.schedule(e.document.uri);
      }),
      files.onDidChange((uri) => this.markStale(uri)),
      files.onDidCreate((uri) => this.markStale(uri)),
      files.onDidDelete((uri) => this.markStale(uri)),
      // A save in the editor is known at once; the watcher may report it late.
      vscode.workspace.onDidSaveTextDocument((document) => this.markStale(document.uri)),
    );
  }

  /** PRD items with their criteria, for the API and tests. */
  async items(): Promise<CriteriaTestItem[]> {
    await this.discover();
    const out: CriteriaTestItem[] = [];
    this.controller.items.forEach((prd) => {
      const criteria: CriteriaTestItem['criteria'][number][] = [];
      prd.children.forEach((c) => {
        const state = this.states.get(c.id);
        const stale = this.staleBecause.get(c.id);
        criteria.push({ id: c.id.slice(c.id.lastIndexOf('#') + 1), line: c.range?.start.line ?? -1, ...(state ? { state } : {}), ...(stale ? { stale } : {}) });
      });
      out.push({ uri: prd.uri!, id: prd.id, criteria });
    });
    return out;
  }

  /** Shows a verification the command made as a test run, so the Testing view agrees with the PRD. */
  async showVerification(verification: PrdVerification): Promise<void> {
    await this.showResults(verification.uri, `Verify Criteria: ${verification.path}`, verification.criteria, verification.set.results, verification.set.coverage);
  }

  /** Shows results given elsewhere (Verify Criteria, a run's VERIFY) as a test run on the PRD's criteria; their PASSes go stale when covered files change. */
  async showResults(uri: vscode.Uri, title: string, criteria: readonly AnyCriterion[], results: readonly CriterionResult[], coverage: Readonly<Record<string, Coverage>>): Promise<void> {
    const prd = await this.refresh(uri);
    if (!prd) return;
    const items = criteria.map((c) => prd.children.get(childId(prd, c.id))).filter((i): i is vscode.TestItem => i !== undefined);
    if (items.length === 0) return;
    const run = this.controller.createTestRun(new vscode.TestRunRequest(items), title, true);
    for (const result of results) {
      const item = prd.children.get(childId(prd, result.criterionId));
      const criterion = criteria.find((c) => c.id === result.criterionId);
      if (item && criterion) this.report(run, item, result, criterion, coverage[result.criterionId] ?? { workspace: true });
    }
    run.end();
  }

  private discover(force = false): Promise<void> {
    if (!force && this.discovered) return this.discovered;
    this.discovered = (async () => {
      const uris = await vscode.workspace.findFiles('**/*.md', '{**/node_modules/**,**/.git/**}', 5000);
      const seen = new Set<string>();
      for (const uri of uris) {
        if (await this.refresh(uri)) seen.add(uri.toString());
      }
      this.controller.items.forEach((item) => {
        if (!seen.has(item.id)) this.controller.items.delete(item.id);
      });
    })();
    this.discovered.catch((e: unknown) => this.log.error(`finding PRDs failed: ${String(e)}`));
    return this.discovered;
  }

  private schedule(uri: vscode.Uri): void {
    if (uri.scheme !== 'file' || !vscode.workspace.getWorkspaceFolder(uri)) return;
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.refresh(uri).catch((e: unknown) => this.log.error(`reading ${vscode.workspace.asRelativePath(uri)} failed: ${String(e)}`));
      }, DEBOUNCE_MS),
    );
  }

  /** Reads the PRD (its open document if there is one) and updates its item in place, so results stay attached. */
  private async refresh(uri: vscode.Uri): Promise<vscode.TestItem | undefined> {
    const text = await readText(uri);
    if (text === undefined || !/^\uFEFF?---[ \t]*\r?\n/.test(text)) return this.remove(uri);
    const doc = engine().parsePrd(text);
    if (!isPrd(doc)) return this.remove(uri);
    const id = uri.toString();
    const prd = this.controller.items.get(id) ?? this.controller.createTestItem(id, '', uri);
    prd.label = doc.title?.text ?? path.basename(uri.fsPath);
    prd.description = vscode.workspace.asRelativePath(uri);
    prd.range = new vscode.Range(doc.title?.line ?? 0, 0, doc.title?.line ?? 0, 0);
    const children: vscode.TestItem[] = [];
    const ids = new Set<string>();
    for (const c of doc.criteria) {
      const cid = childId(prd, c.id);
      // A repeated id is an error the Problems panel shows; the Testing view lists its first use.
      if (ids.has(cid)) continue;
      ids.add(cid);
      const item = prd.children.get(cid) ?? this.controller.createTestItem(cid, c.id, uri);
      item.label = `${c.id}: ${c.text}`;
      item.range = new vscode.Range(c.line, 0, c.line, doc.source.lines[c.line]?.text.length ?? 0);
      item.sortText = String(c.line).padStart(6, '0');
      const spec = c.verify ? engine().formatVerifySpec(c.verify, c.text) : 'no Verify method';
      this.methods.set(cid, `${c.priority === 'CRITICAL' ? '' : `${c.priority} · `}${spec}`);
      this.describe(item);
      children.push(item);
    }
    prd.children.replace(children);
    this.controller.items.add(prd);
    return prd;
  }

  private remove(uri: vscode.Uri): undefined {
    const id = uri.toString();
    this.trackers.delete(id);
    this.controller.items.get(id)?.children.forEach((c) => {
      this.states.delete(c.id);
      this.staleBecause.delete(c.id);
      this.methods.delete(c.id);
    });
    this.controller.items.delete(id);
    return undefined;
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    await this.discover();
    const byPrd = new Map<string, { prd: vscode.TestItem; criteria: Set<vscode.TestItem> }>();
    const excluded = new Set((request.exclude ?? []).map((i) => i.id));
    const include = request.include ?? [...iterate(this.controller.items)];
    for (const item of include) {
      const prd = item.parent ?? item;
      const entry = byPrd.get(prd.id) ?? { prd, criteria: new Set<vscode.TestItem>() };
      byPrd.set(prd.id, entry);
      for (const c of item.parent ? [item] : iterate(item.children)) if (!excluded.has(c.id)) entry.criteria.add(c);
    }
    const run = this.controller.createTestRun(request);
    const abort = signalFrom(token);
    try {
      for (const { prd, criteria } of byPrd.values()) {
        if (criteria.size === 0 || token.isCancellationRequested) continue;
        for (const item of criteria) run.enqueued(item);
        const ids = [...criteria].map((i) => i.id.slice(i.id.lastIndexOf('#') + 1));
        this.log.info(`Testing view run: ${ids.length} criteria of ${vscode.workspace.asRelativePath(prd.uri!)}`);
        const reported = new Set<string>();
        try {
          for (const item of criteria) run.started(item);
          await this.verifier.verify(prd.uri!, {
            signal: abort.signal,
            only: ids,
            onResult: (result, criterion, coverage) => {
              const item = prd.children.get(childId(prd, result.criterionId));
              if (!item) return;
              reported.add(item.id);
              this.report(run, item, result, criterion, coverage);
            },
          });
        } catch (error) {
          const cancelled = isCancellation(error);
          const message = verifyFailedText(error instanceof PrdVerifyError ? error.message : `the verification stopped: ${error instanceof Error ? error.message : String(error)}`);
          if (!cancelled && !(error instanceof PrdVerifyError)) this.log.error(`Testing view run of ${prd.label} failed: ${describeError(error)}`);
          for (const item of criteria) {
            if (reported.has(item.id)) continue;
            if (cancelled) run.skipped(item);
            else {
              run.errored(item, new vscode.TestMessage(message));
              this.states.set(item.id, 'errored');
            }
          }
        }
      }
    } finally {
      abort.dispose();
      run.end();
    }
  }

  private report(run: vscode.TestRun, item: vscode.TestItem, result: CriterionResult, criterion: AnyCriterion, coverage: Coverage): void {
    const prdUri = item.uri!;
    const prd = item.parent!;
    let tracker = this.trackers.get(prd.id);
    if (!tracker) {
      tracker = new (engine().StalenessTracker)({ ignore: ['.git', 'node_modules'] });
      this.trackers.set(prd.id, tracker);
    }
    tracker.record(result, coverage);
    const root = vscode.workspace.getWorkspaceFolder(prdUri)?.uri;
    const where = result.locations[0] && root ? new vscode.Location(vscode.Uri.joinPath(root, result.locations[0].file), new vscode.Position(result.locations[0].line - 1, 0)) : new vscode.Location(prdUri, item.range ?? new vscode.Range(0, 0, 0, 0));
    this.staleBecause.delete(item.id);
    this.describe(item);
    // The one rule for "passed" (src/model/verdict.ts): a CRITICAL UNKNOWN is an error, so its PRD is never green.
    const state = testItemState(criterion.priority, result.outcome);
    if (state === 'passed') {
      run.passed(item, result.durationMs);
      this.states.set(item.id, 'passed');
      return;
    }
    if (state === 'skipped') {
      run.appendOutput(skippedOutputText(criterion.id, result).replace(/\r?\n/g, '\r\n') + '\r\n', where, item);
      run.skipped(item);
      this.states.set(item.id, 'skipped');
      return;
    }
    const message = new vscode.TestMessage(testMessageText(result, state));
    message.location = where;
    if (state === 'errored') run.errored(item, message, result.durationMs);
    else run.failed(item, message, result.durationMs);
    this.states.set(item.id, state);
  }

  /** A PASS whose files changed no longer proves anything: its result is invalidated and its item says why. */
  private markStale(uri: vscode.Uri): void {
    if (uri.scheme !== 'file' || this.trackers.size === 0 || this.controller.items.get(uri.toString())) return;
    const root = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath;
    if (!root) return;
    const file = path.relative(root, uri.fsPath).split(path.sep).join('/');
    const stale: vscode.TestItem[] = [];
    for (const [prdId, tracker] of this.trackers) {
      const prd = this.controller.items.get(prdId);
      for (const criterionId of tracker.changed(file)) {
        const item = prd?.children.get(childId(prd, criterionId));
        if (!item) continue;
        stale.push(item);
        this.states.delete(item.id);
        this.staleBecause.set(item.id, `${file} changed`);
        this.describe(item);
      }
    }
    if (stale.length === 0) return;
    this.controller.invalidateTestResults(stale);
    this.log.info(`${file} changed: ${stale.map((i) => i.id.slice(i.id.lastIndexOf('#') + 1)).join(', ')}: their results are stale and must be verified again`);
  }

  private describe(item: vscode.TestItem): void {
    const why = this.staleBecause.get(item.id);
    const method = this.methods.get(item.id) ?? '';
    item.description = why ? `stale: ${why} · ${method}` : method;
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}

function childId(prd: vscode.TestItem, criterionId: string): string {
  return `${prd.id}#${criterionId}`;
}

function* iterate(collection: vscode.TestItemCollection): Generator<vscode.TestItem> {
  const all: vscode.TestItem[] = [];
  collection.forEach((i) => all.push(i));
  yield* all;
}

function isPrd(doc: PrdDocument): boolean {
  return doc.frontmatter?.data.prd === true || doc.dialect === 'pai-v2';
}

async function readText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    return new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}
