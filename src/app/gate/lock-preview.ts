import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { methodCommand, type VerificationMethod } from '../../model/verification-method';
import { parseIsa } from '../../prd/isa/parse';
import { parsePrd } from '../../prd/parse';
import { recogniseFormat } from '../../prd/recognise';
import { parseVerifySpec } from '../../prd/verify-spec';
import { allowing, decideCommands } from '../../verify/decide-commands';
import { readVerifyCommands, VERIFY_COMMANDS_FILE } from '../../verify/verify-commands-file';
import { WorkspaceTaskRunner } from '../../verify/workspace-tasks';
import type { LockCandidate } from './lock-choice';
import type { LockedCriterion, LockedPrd } from './lock-schema';
import { criteriaPrds } from './prds';
import { standingOf } from './session-prd';
import { undecidableCriteria, type GateCapabilities, type Undecidable } from './undecidable';

/**
 * What a person is shown before they lock, beside the criteria themselves: the PRDs they may
 * choose from when they named none, and the CRITICAL criteria the done gate cannot decide.
 */

/** The PRD folder's PRDs with criteria, newest first, with what each says of its state. */
export async function lockCandidates(workspace: string): Promise<(LockCandidate & { mtimeMs: number })[]> {
  const found: (LockCandidate & { mtimeMs: number })[] = [];
  for (const prd of await criteriaPrds(workspace)) {
    const text = await fs.readFile(prd.file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const standing = standingOf(text, prd.relative);
    if (standing.criterionIds.length === 0) continue;
    found.push({ relative: prd.relative, mtimeMs: prd.mtimeMs, criteria: standing.criterionIds.length, status: statusOf(text, prd.relative), ...(standing.finished ? { finished: standing.finished } : {}) });
  }
  // The order the gate uses for "the newest": copies sharing one modification time go by their dated name.
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs || b.relative.localeCompare(a.relative));
}

function statusOf(text: string, relative: string): string {
  if (recogniseFormat(text, relative) === 'isa') {
    const phase = parseIsa(text).meta.phase?.trim();
    return phase ? `phase: ${phase}` : '';
  }
  const status = parsePrd(text).meta.status?.trim();
  return status ? `status: ${status}` : '';
}

/** A locked criterion's method, read back from the line the lock recorded; undefined when it names none (or none that reads). */
export function lockedMethod(c: LockedCriterion): VerificationMethod | undefined {
  if (c.verify === null) return undefined;
  const colon = c.verify.indexOf(':');
  const parsed = parseVerifySpec(colon < 0 ? c.verify : c.verify.slice(0, colon), colon < 0 ? undefined : c.verify.slice(colon + 1).trim(), c.text);
  return parsed.ok ? parsed.method : undefined;
}

/** The words for what the done gate, verifying outside the editor, has not got. */
export const GATE_LACKS = {
  judge: 'the done gate verifies outside the editor, where no model judges Custom criteria',
  browser: 'the done gate has no browser runner',
  diagnostics: "the done gate verifies outside the editor, where the editor's diagnostics are not there to read",
} as const;

/**
 * The done gate's capabilities in this workspace, for these methods: the tasks they name that
 * only VS Code can run (as the gate's task runner resolves them now), and the commands the
 * verify-commands allow-list does not let run unasked (the gate has no terminal to ask on).
 */
export async function gateCapabilities(workspace: string, methods: readonly VerificationMethod[]): Promise<GateCapabilities> {
  const runner = new WorkspaceTaskRunner(workspace);
  const tasksThatCannotRun = new Map<string, string>();
  const names = new Set(methods.flatMap((m) => (m.type === 'TASK' ? [m.task] : m.type === 'TEST' ? [m.test] : [])));
  for (const name of names) {
    const resolved = await runner.resolve(name);
    if (resolved.kind === 'cannot-run') tasksThatCannotRun.set(name, `the done gate cannot run it: ${resolved.reason.replace(/; run it in VS Code$/, '')}`);
  }
  const listText = await fs.readFile(path.join(workspace, VERIFY_COMMANDS_FILE), 'utf8').catch(() => undefined);
  const allowed = listText === undefined ? undefined : readVerifyCommands(VERIFY_COMMANDS_FILE, listText);
  const commandHeld = (method: VerificationMethod): string | undefined => {
    const command = methodCommand(method);
    if (command === undefined) return undefined;
    const what = `its command \`${command}\` is not run by the done gate, which has no terminal to ask on`;
    if (allowed === undefined) return `${what}, and there is no ${VERIFY_COMMANDS_FILE} to allow it`;
    if (!allowed.ok) return `${what}, and ${VERIFY_COMMANDS_FILE} cannot be read`;
    // As the gate will decide it: nobody to ask, the committed allow-list.
    const [decision] = decideCommands([command], { asker: 'nobody', allowList: allowing(allowed.list) });
    return decision!.verdict !== 'run' ? `${what}, and ${VERIFY_COMMANDS_FILE} does not list it` : undefined;
  };
  return { noJudge: GATE_LACKS.judge, noBrowser: GATE_LACKS.browser, noDiagnostics: GATE_LACKS.diagnostics, tasksThatCannotRun, commandHeld };
}

/** Each PRD's CRITICAL criteria that the done gate cannot decide, as they are about to be locked (PRDs with none are left out). */
export async function undecidableInLock(workspace: string, locked: readonly LockedPrd[]): Promise<{ path: string; criteria: Undecidable[] }[]> {
  const read = locked.map((p) => ({ path: p.path, criteria: p.criteria.map((c) => ({ id: c.id, priority: c.priority, verify: lockedMethod(c) })) }));
  const methods = read.flatMap((p) => p.criteria.flatMap((c) => (c.verify ? [c.verify] : [])));
  if (read.length === 0) return [];
  const capabilities = await gateCapabilities(workspace, methods);
  return read.map((p) => ({ path: p.path, criteria: undecidableCriteria(p.criteria, capabilities) })).filter((p) => p.criteria.length > 0);
}
