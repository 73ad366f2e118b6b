import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LockChange, LockedPrd, LockStatusRow } from '../../app/gate';
import type { Logger } from '../../model/log';
import { engine } from '../engine';
import { replaceDocumentText } from '../prd/document-edits';
import type { LockDialogs } from './lock-dialogs';
import { LOCK_CHOICE, lockQuestion, pickQuestion } from './lock-questions';
import type { RunInView } from './lock-target';

export { LOCK_CHOICE } from './lock-questions';

export const APPROVE_CHOICE = 'Approve';
export const ACCEPT_CHOICE = 'Add Criteria';
export const DROP_CHOICE = 'Drop Proposal';

/** A proposal an agent made through the MCP server that waits for a person, as the table shows it. */
export interface PendingShown {
  id: string;
  header: string;
  /** Exactly the lines that would be written; empty when it cannot be added as it stands. */
  lines: string[];
  commands: string[];
  problem?: string;
}

/** What an act on the lock did, in the words shown to the person. */
export interface LockActResult {
  ok: boolean;
  message: string;
}

/** One PRD's lock as the ISC table shows it. */
export interface PrdLockState {
  prdPath: string;
  state: 'locked' | 'tampered' | 'not-locked' | 'baseline' | 'damaged';
  version?: number;
  by?: string;
  at?: string;
  changes: LockChange[];
  /** Criterion ids whose change Revert can put back (the PRD is a PRD, the criterion is locked). */
  revertible: string[];
  /** The lock record cannot be read (the gate blocks on it): what is wrong. */
  error?: string;
  /** Criteria proposals for this PRD that wait for a person. */
  proposals?: PendingShown[];
}

const RESTRICTED = 'Locking and approving criteria writes your state folder and the PRD, so it is off in Restricted Mode. Trust this workspace first.';

/**
 * The editor's side of the criteria lock: "Ideal State: Lock Criteria", "Approve
 * Criteria Changes" and the ISC table's Lock / Approve / Revert. Each shows the person what it
 * will do in a modal, then does it through `src/app/gate` — the same functions as
 * `ideal-state criteria` — so the lock lands in the user's state folder, where the done gate
 * reads it. A copy of each lock written here is kept in the extension's global storage (a
 * record; the gate never reads it). Nothing here runs in Restricted Mode.
 */
export class CriteriaLocks implements vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  /** The lock or a held PRD may have changed: views showing it read it again. */
  readonly onDidChange = this._onDidChange.event;
  private trustOverride: boolean | undefined;
  private readonly memo = new Map<string, { at: number; state: Promise<PrdLockState> }>();
  /** The state folders (outside the workspace) watched. */
  private readonly watched = new Set<string>();
  private disposed = false;
  /** The PRD of the run whose ISC table has the focus, for Lock Criteria with nothing named; set by whoever shows the tables. */
  runInView: RunInView | undefined;
  private readonly disposables: vscode.Disposable[] = [this._onDidChange];

  constructor(
    readonly dialogs: LockDialogs,
    private readonly globalStorage: vscode.Uri | undefined,
    private readonly log: Logger,
  ) {
    // A PRD saved or changed on disk (by the agent, too) may be TAMPERED now.
    const watcher = vscode.workspace.createFileSystemWatcher('**/*.{md,json,yaml,yml}');
    const changed = () => this.changed();
    this.disposables.push(watcher, watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed), vscode.workspace.onDidSaveTextDocument(changed));
  }

  /** For the extension's tests: behave as in a trusted (true) or untrusted (false) workspace; undefined: as it is. */
  simulateTrust(trusted: boolean | undefined): void {
    this.trustOverride = trusted;
  }

  trusted(): boolean {
    return this.trustOverride ?? vscode.workspace.isTrusted;
  }

  /** Forget what was read and tell the views. */
  changed(): void {
    this.memo.clear();
    this._onDidChange.fire();
  }

  /** The lock of one PRD of a folder (read at most every second and a half, and again after any change). */
  state(folder: string, prdPath: string): Promise<PrdLockState> {
    this.watchStateFolder(folder);
    const key = `${folder}\0${prdPath}`;
    const held = this.memo.get(key);
    if (held && Date.now() - held.at < 1500) return held.state;
    const state = Promise.all([this.readState(folder, prdPath), this.pending(folder, prdPath)])
      .then(([lock, proposals]) => (proposals.length > 0 ? { ...lock, proposals } : lock))
      .catch((error: Error): PrdLockState => ({ prdPath, state: 'damaged', changes: [], revertible: [], error: error.message }));
    this.memo.set(key, { at: Date.now(), state });
    return state;
  }

  /**
   * The lock, the baseline and the proposals waiting for a person live in the user's state folder,
   * outside the workspace, where the command line and the MCP server write them too: a lock made
   * in a terminal, or criteria an agent proposed over MCP, are shown as they land, not at the
   * next edit in the workspace.
   */
  private watchStateFolder(folder: string): void {
    engine()
      .gateStateFolder(folder)
      .then(async (dir) => {
        if (this.watched.has(dir)) return;
        this.watched.add(dir);
        // A folder that is not there yet cannot be watched: it is made (for the user alone) so its first record is seen.
        if (this.trusted()) await fs.mkdir(dir, { recursive: true, mode: 0o700 });
        if (this.disposed) return;
        const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), '*'));
        const changed = () => this.changed();
        this.disposables.push(watcher, watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed));
      })
      .catch((error: Error) => this.log.warn(`the state folder of ${folder} is not watched: ${error.message}; the table shows a lock or proposal made elsewhere at the next change in the workspace`));
  }

  private async readState(folder: string, prdPath: string): Promise<PrdLockState> {
    const gate = engine();
    const relative = gate.relativeTo(folder, prdPath) ?? prdPath;
    const status = await gate.lockStatus(folder, { now: new Date(), only: [relative] });
    if ('error' in status) return { prdPath: relative, state: 'damaged', changes: [], revertible: [], error: status.error };
    const row: LockStatusRow | undefined = status.rows[0];
    if (!row || row.held === 'not locked') return { prdPath: relative, state: 'not-locked', changes: [], revertible: [] };
    const held = await gate.heldRecord(folder);
    const locked = held && !('error' in held) ? held.prds.find((p) => p.path === relative) : undefined;
    const lockedIds = new Set(locked?.format === 'prd' ? locked.criteria.map((c) => c.id) : []);
    const revertible = row.changes.filter((c) => c.what === 'criterion' && lockedIds.has(c.id)).map((c) => c.id);
    const state = row.changes.length > 0 ? 'tampered' : row.held === 'lock' ? 'locked' : 'baseline';
    return { prdPath: relative, state, ...(row.version !== undefined ? { version: row.version } : {}), ...(row.by ? { by: row.by } : {}), ...(row.at ? { at: row.at } : {}), changes: row.changes, revertible };
  }

  private async pending(folder: string, prdPath: string): Promise<PendingShown[]> {
    const gate = engine();
    const relative = gate.relativeTo(folder, prdPath) ?? prdPath;
    const previews = await gate.previewPending(folder, { prd: relative, today: today(), accepted: ACCEPTED });
    return previews.map((p) => (p.ok ? { id: p.proposal.id, header: p.header, lines: p.lines, commands: p.commands.map((c) => c.command) } : { id: p.proposal.id, header: p.header, lines: [], commands: [], problem: p.problem }));
  }

  /**
   * Accept a pending proposal: a modal shows exactly the lines that will be written (and the
   * commands they would run, which still wait for the person's yes before they run), then writes
   * them as shown; Drop Proposal discards it. Refused when the PRD changed since it was shown.
   */
  async acceptProposal(folder: string, prdPath: string, id: string): Promise<LockActResult> {
    if (!this.trusted()) return { ok: false, message: RESTRICTED };
    const gate = engine();
    const relative = gate.relativeTo(folder, prdPath) ?? prdPath;
    const shown = (await gate.previewPending(folder, { prd: relative, today: today(), accepted: ACCEPTED })).find((p) => p.proposal.id === id);
    if (!shown) return { ok: false, message: `No proposal ${id} waits for ${relative}.` };
    if (!shown.ok) {
      const answer = await this.dialogs.ask({ kind: 'approve', message: `The proposal ${id} for ${relative} cannot be added as it stands. Drop it?`, detail: `${shown.header}\n${shown.problem}`, choices: [DROP_CHOICE] });
      if (answer !== DROP_CHOICE) return { ok: false, message: 'The proposal keeps waiting.' };
      await gate.removePendingProposal(folder, id);
      this.changed();
      return { ok: true, message: `Dropped the proposal ${id}.` };
    }
    const commands = shown.commands.length > 0 ? `\n\nTheir commands (each still asks you before it first runs, whatever the allow-list says):\n${shown.commands.map((c) => `• ${c.command}`).join('\n')}` : '';
    const message = `Add ${shown.added.length === 1 ? 'this criterion' : `these ${shown.added.length} criteria`} an agent proposed to ${relative} as criteria version ${shown.version}?`;
    const answer = await this.dialogs.ask({ kind: 'approve', message, detail: `${shown.header}\n${shown.lines.join('\n')}${commands}`, choices: [ACCEPT_CHOICE, DROP_CHOICE] });
    if (answer === DROP_CHOICE) {
      await gate.removePendingProposal(folder, id);
      this.changed();
      return { ok: true, message: `Dropped the proposal ${id}; nothing was written.` };
    }
    if (answer !== ACCEPT_CHOICE) return { ok: false, message: 'Not added: the proposal keeps waiting.' };
    const accepted = await gate.acceptProposal(folder, shown, new Date());
    if (!accepted.ok) return { ok: false, message: accepted.message };
    this.log.info(`${relative}: added ${accepted.added.join(', ')} from the proposal ${id}, accepted in the editor`);
    this.changed();
    return { ok: true, message: `Added ${accepted.added.join(', ')} to ${relative}.` };
  }

  /**
   * Lock Criteria: one modal per PRD, each showing only that PRD's criteria, its inputs and its
   * CRITICAL criteria the done gate cannot decide; what the person says Lock to is locked, as
   * shown. With no PRD named: the one unfinished PRD with criteria, else a pick of one PRD
   * (a lock is per PRD, never the whole folder in one dialog).
   */
  async lock(folder: string, files?: readonly string[]): Promise<LockActResult> {
    if (!this.trusted()) return { ok: false, message: RESTRICTED };
    const gate = engine();
    const options = { by: gate.whoLocks(), how: 'editor' as const, now: new Date() };
    let prepared = await gate.prepareLock(folder, { ...options, ...(files && files.length > 0 ? { files } : {}) });
    if (prepared.candidates && prepared.locked.length === 0 && prepared.refused.length === 0) {
      if (prepared.candidates.length === 0) return { ok: false, message: 'Nothing to lock: no PRD with criteria.' };
      const chosen = await this.dialogs.ask(pickQuestion(prepared.candidates));
      if (chosen === undefined || !prepared.candidates.some((c) => c.relative === chosen)) return { ok: false, message: 'Not locked: no PRD chosen.' };
      prepared = await gate.prepareLock(folder, { ...options, files: [chosen] });
    }
    const refused = prepared.refused.map((r) => `Not locked: ${r.path}: ${r.message}`);
    if (prepared.locked.length === 0) return { ok: false, message: ['Nothing to lock: no PRD with criteria.', ...refused].join(' ') };
    const confirmed: LockedPrd[] = [];
    for (const p of prepared.locked) {
      const warnings = [...prepared.warnings.filter((w) => w.startsWith(`${p.path}: `)), ...this.unsaved(folder, p.path)];
      const undecidable = prepared.undecidable.find((u) => u.path === p.path)?.criteria ?? [];
      if ((await this.dialogs.ask(lockQuestion(p, gate.describeLock, { undecidable, warnings }))) === LOCK_CHOICE) confirmed.push(p);
    }
    if (confirmed.length === 0) return { ok: false, message: ['Not locked.', ...refused].join(' ') };
    const file = await gate.commitLock(folder, 'lock', confirmed);
    await this.keepCopy(folder, file);
    this.log.info(`criteria locked in the editor: ${confirmed.map((p) => `${p.path} v${p.version}`).join(', ')} (${file})`);
    this.changed();
    const probed = await this.probe(folder, confirmed);
    const declined = prepared.locked.filter((p) => !confirmed.includes(p)).map((p) => p.path);
    const rest = [...(declined.length > 0 ? [`Not locked: ${declined.join(', ')}.`] : []), ...refused];
    return { ok: true, message: [`Locked ${confirmed.map((p) => `${p.path} (criteria version ${p.version})`).join(', ')}.${probed}`, ...rest].join(' ') };
  }

  /** What is locked is the file on disk: a PRD with unsaved edits in the editor is locked without them, and the modal says so. */
  private unsaved(folder: string, relative: string): string[] {
    const file = path.join(folder, relative);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && path.resolve(d.uri.fsPath) === path.resolve(file));
    return open?.isDirty ? [`${relative} has unsaved changes: what is locked is the file as saved, listed above`] : [];
  }

  /**
   * Probe the probes: each newly locked PRD's runnable checks run once on the
   * workspace as it is, asking nobody (a command runs only if the allow-list lets it; any other
   * is not probed). A criterion whose check already passes gets a Probe note in the PRD and is
   * named here. A probe that cannot run changes nothing about the lock.
   */
  private async probe(folder: string, locked: readonly { path: string; format: string }[]): Promise<string> {
    const gate = engine();
    const said: string[] = [];
    const done: string[] = [];
    for (const p of locked.filter((x) => x.format === 'prd')) {
      const probed = await gate.probePrd(path.join(folder, p.path), folder, { warn: (s) => this.log.warn(`probe of ${p.path}: ${s}`), now: new Date() });
      if (probed.kind === 'not-probed') {
        this.log.warn(`${p.path}: the checks were not probed: ${probed.message}`);
        continue;
      }
      for (const f of probed.flags) {
        this.log.warn(`${p.path}: ${f.id} ${gate.PROBE_WORDS}`);
        said.push(f.id);
      }
      if (probed.done.length > 0) {
        this.log.info(`${p.path}: ${gate.doneWords(probed.done)}`);
        done.push(...probed.done);
      }
    }
    const flagged = said.length === 0 ? '' : ` ${said.join(', ')} ${said.length === 1 ? 'passes' : 'pass'} before any work: can ${said.length === 1 ? 'this check' : 'these checks'} fail? (noted in the PRD)`;
    return done.length === 0 ? flagged : `${flagged} ${gate.doneWords(done)}.`;
  }

  /** Approve Criteria Changes: shows the diff of every change since the lock, then makes them the next criteria version, logged in the PRD. */
  async approve(folder: string, files?: readonly string[]): Promise<LockActResult> {
    if (!this.trusted()) return { ok: false, message: RESTRICTED };
    const gate = engine();
    const now = new Date();
    const held = await gate.heldRecord(folder);
    if (held === undefined) return { ok: false, message: 'Nothing is locked here: lock the criteria first ("Ideal State: Lock Criteria").' };
    if ('error' in held) return { ok: false, message: `${held.error}. Lock the criteria again ("Ideal State: Lock Criteria").` };
    const changed = await gate.changesSinceLock(folder, held, { ...(files ? { files } : {}), now });
    if (changed.length === 0) return { ok: true, message: 'Nothing changed since the criteria were locked; nothing to approve.' };
    const count = changed.reduce((n, c) => n + c.changes.length, 0);
    const message = `Approve ${count} change${count === 1 ? '' : 's'} to locked criteria? The agent is then held to ${changed.length === 1 ? changed[0]!.locked.path : `these ${changed.length} PRDs`} as they are now.`;
    const answer = await this.dialogs.ask({ kind: 'approve', message, detail: gate.describeChanges(changed), choices: [APPROVE_CHOICE] });
    if (answer !== APPROVE_CHOICE) return { ok: false, message: 'Not approved: the gate keeps blocking until the files are put back or you approve.' };
    const result = await gate.approveChanges(folder, held.kind, changed, { by: gate.whoLocks(), how: 'editor', now });
    await this.keepCopy(folder, result.file);
    for (const p of [...result.refused.map((r) => `${r.path} not approved: ${r.message}`), ...result.logProblems]) this.log.warn(p);
    this.log.info(`criteria changes approved in the editor: ${result.approved.map((p) => `${p.path} v${p.version}`).join(', ')}`);
    this.changed();
    const said = [...result.approved.map((p) => `${p.path} is criteria version ${p.version}`), ...result.dropped.map((p) => `${p} is no longer locked`)].join('; ');
    return { ok: result.refused.length === 0, message: `Approved: ${said}.${result.refused.length > 0 ? ` Not approved: ${result.refused.map((r) => `${r.path} (${r.message})`).join('; ')}.` : ''}` };
  }

  /** Revert: the locked criterion's line back in the PRD, through the editor (an undoable edit, then saved); every other byte stays. */
  async revert(folder: string, prdPath: string, id: string): Promise<LockActResult> {
    if (!this.trusted()) return { ok: false, message: RESTRICTED };
    const gate = engine();
    const held = await gate.heldRecord(folder);
    if (held === undefined || 'error' in held) return { ok: false, message: held ? held.error : 'Nothing is locked here.' };
    const relative = gate.relativeTo(folder, prdPath) ?? prdPath;
    const locked = held.prds.find((p) => p.path === relative);
    if (!locked) return { ok: false, message: `${relative} is not locked.` };
    const uri = vscode.Uri.file(path.join(folder, relative));
    let document: vscode.TextDocument;
    try {
      document = await vscode.workspace.openTextDocument(uri);
    } catch {
      return { ok: false, message: `${relative} is not there to put ${id} back into.` };
    }
    const reverted = gate.revertCriterionText(document.getText(), locked, id);
    if (!reverted.ok) return { ok: false, message: `${id} not put back: ${reverted.message}.` };
    if (reverted.restored.length === 0) return { ok: true, message: `${id} is as it was locked.` };
    if (!(await replaceDocumentText(document, reverted.text))) return { ok: false, message: `${relative} changed while ${id} was put back; try again.` };
    await document.save();
    this.log.info(`${relative}: ${id} put back as locked (${reverted.restored.join(', ')})`);
    this.changed();
    return { ok: true, message: `${id} is back as locked (${reverted.restored.join(', ')}).` };
  }

  /** A record of the lock in the extension's global storage; the state folder stays what the gate reads. */
  private async keepCopy(folder: string, file: string): Promise<void> {
    if (!this.globalStorage) return;
    try {
      const bytes = await vscode.workspace.fs.readFile(vscode.Uri.file(file));
      const name = `${path.basename(path.dirname(file))}-${path.basename(file)}`;
      const dir = vscode.Uri.joinPath(this.globalStorage, 'criteria-locks');
      await vscode.workspace.fs.createDirectory(dir);
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(dir, name), bytes);
    } catch (error) {
      this.log.warn(`the copy of the lock ${file} in global storage was not written: ${(error as Error).message} (${folder})`);
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

const ACCEPTED = 'accepted by a person in the editor';

function today(): string {
  return new Date().toISOString().slice(0, 10);
}
