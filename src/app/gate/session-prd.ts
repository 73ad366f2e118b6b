import * as path from 'node:path';
import { SETTINGS } from '../../model/settings';
import { parseIsa } from '../../prd/isa/parse';
import { parsePrd } from '../../prd/parse';
import { recogniseFormat } from '../../prd/recognise';
import { readRegularTextOrAbsent } from '../../verify/safe-read';
import { criteriaPrds, workspacePathSetting, type WorkspacePrd } from './prds';

/**
 * Which PRD a person's session is about, where no person locked one. An honest agent is held to
 * the work it was asked for, not to every old PRD in the folder: holding them all blocked a fix
 * on criteria nobody asked about (an old PRD's Custom criterion no model judges, a demo's
 * deliberately failing check). In the order it is chosen:
 * 1. the PRD named on the hook's command line (`--prd`) or by the workspace setting;
 * 2. the one PRD the person's prompt names (a criterion id such as ISC-DEMO-004, or the PRD's
 *    id or file name);
 * 3. the newest unfinished PRD with criteria.
 * It is chosen when the person speaks and recorded in the session baseline, so a PRD the agent
 * writes later is never it.
 */

export interface PrdStanding extends WorkspacePrd {
  /** The frontmatter's `id`, when it has one. */
  id?: string;
  /** Criterion (or ISA claim) ids as written. */
  criterionIds: string[];
  /** Why the PRD is finished (it is then not held unless locked); undefined while open. */
  finished?: string;
}

export interface ChosenPrd {
  /** Workspace-relative, forward slashes. */
  relative: string;
  /** Why this PRD, in words the gate's answer shows. */
  why: string;
}

/** The PRD folder's PRDs with criteria, newest first, each with what it says of itself. */
export async function prdStandings(workspace: string): Promise<PrdStanding[]> {
  const out: PrdStanding[] = [];
  for (const prd of await criteriaPrds(workspace)) {
    const text = await readRegularTextOrAbsent(prd.file);
    if (text === undefined) continue;
    out.push({ ...prd, ...standingOf(text, prd.relative) });
  }
  // Copies (a clone, a copied sample) are written within the same second, in no meaningful order:
  // there the dated name (PRD-YYYYMMDD-…) decides, latest first.
  const second = (p: PrdStanding) => Math.floor(p.mtimeMs / 1000);
  return out.sort((a, b) => second(b) - second(a) || b.relative.localeCompare(a.relative));
}

/** What a PRD or ISA text says of its criteria and whether its work is finished. */
export function standingOf(text: string, fileName: string): Pick<PrdStanding, 'id' | 'criterionIds' | 'finished'> {
  if (recogniseFormat(text, fileName) === 'isa') {
    const isa = parseIsa(text);
    const ids = isa.claims.map((c) => c.id);
    const complete = (isa.meta.phase ?? '').trim().toLowerCase() === 'complete';
    const open = isa.claims.filter((c) => !c.checked).length;
    return { ...(isa.meta.id ? { id: isa.meta.id } : {}), criterionIds: ids, ...(complete && open === 0 && ids.length > 0 ? { finished: 'phase: complete, every claim checked' } : {}) };
  }
  const doc = parsePrd(text);
  const status = (doc.meta.status ?? '').trim().toUpperCase();
  return {
    ...(doc.meta.id ? { id: doc.meta.id } : {}),
    criterionIds: doc.criteria.map((c) => c.id),
    ...(FINISHED_STATUSES.has(status) ? { finished: `status: ${status}` } : {}),
  };
}

/** The statuses that say a PRD's work is over. */
const FINISHED_STATUSES = new Set(['COMPLETE', 'COMPLETED', 'ARCHIVED']);

export interface ChooseOptions {
  /** `--prd`, workspace-relative or absolute. */
  named?: string;
  /** The person's prompt, when the host sends it. */
  prompt?: string;
}

/** The PRD a session is about (see above); undefined when the folder has no open PRD with criteria. */
export async function chooseSessionPrd(workspace: string, options: ChooseOptions = {}): Promise<ChosenPrd | undefined> {
  const flag = options.named ? insideWorkspace(workspace, options.named) : undefined;
  if (flag) return { relative: flag, why: 'named by the gate hook (--prd)' };
  const setting = await workspacePathSetting(workspace, SETTINGS.gatePrd.key);
  if (setting) return { relative: setting.split(path.sep).join('/'), why: `named by the workspace setting ${SETTINGS.gatePrd.key}` };
  const standings = await prdStandings(workspace);
  const open = standings.filter((s) => s.finished === undefined);
  const named = options.prompt ? promptNames(options.prompt, standings) : [];
  if (named.length === 1) return { relative: named[0]!.relative, why: `the PRD the person's prompt names (${named[0]!.by})` };
  const newest = open[0];
  return newest ? { relative: newest.relative, why: 'the newest unfinished PRD with criteria' } : undefined;
}

/** The PRDs a prompt names by criterion id, PRD id or file name (finished ones too: the person may reopen one). */
export function promptNames(prompt: string, standings: readonly PrdStanding[]): { relative: string; by: string }[] {
  const words = new Set((prompt.match(/[A-Za-z][\w.-]*\d[\w.-]*|[\w-]+\.md\b/g) ?? []).map((w) => (w.endsWith('.md') ? w : w.replace(/[.-]+$/, ''))));
  const hits: { relative: string; by: string }[] = [];
  for (const s of standings) {
    const base = path.posix.basename(s.relative);
    const by = s.criterionIds.find((id) => /\d/.test(id) && id.length >= 4 && words.has(id)) ?? (s.id && words.has(s.id) ? s.id : undefined) ?? (words.has(base) ? base : words.has(base.replace(/\.md$/i, '')) ? base : undefined);
    if (by) hits.push({ relative: s.relative, by });
  }
  return hits;
}

function insideWorkspace(workspace: string, file: string): string | undefined {
  const r = path.relative(workspace, path.resolve(workspace, file));
  return r === '' || r.startsWith('..') || path.isAbsolute(r) ? undefined : r.split(path.sep).join('/');
}
