import type { AnyCriterion, CriterionSource, CriterionStatus, Priority, VerificationMethod } from '../model';
import { AnyCriterion as AnyCriterionSchema } from '../model';

/**
 * The ISC manager as pure functions over a criteria list: every
 * change returns a new list, so the engine commits whole versions and nothing is shared.
 */

/** A claim older than this is stale: its worker died or hung, and another may take the row. */
export const DEFAULT_CLAIM_TIMEOUT_MS = 30 * 60_000;

export interface NewRow {
  readonly text: string;
  readonly anti?: boolean;
  readonly id?: string;
  readonly source?: CriterionSource;
  readonly priority?: Priority;
  readonly domain?: string;
  readonly verify?: VerificationMethod;
}

/** The next free `ISC-n` (or `ISC-A-n`) id. */
export function nextId(criteria: readonly AnyCriterion[], anti: boolean): string {
  const re = anti ? /^ISC-A-(\d+)$/ : /^ISC-(\d+)$/;
  let max = 0;
  for (const c of criteria) {
    const m = re.exec(c.id);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return anti ? `ISC-A-${max + 1}` : `ISC-${max + 1}`;
}

export function addRow(criteria: readonly AnyCriterion[], row: NewRow, at: string): AnyCriterion[] {
  const anti = row.anti === true;
  const input = {
    kind: anti ? 'anti-criterion' : 'criterion',
    text: row.text,
    priority: row.priority ?? 'CRITICAL',
    source: row.source ?? 'INFERRED',
    ...(row.domain ? { domain: row.domain } : {}),
    ...(row.verify ? { verify: row.verify } : {}),
    status: 'PENDING',
    createdAt: at,
    updatedAt: at,
  };
  const wanted = row.id && !criteria.some((c) => c.id === row.id) ? row.id : undefined;
  const parsed = wanted ? AnyCriterionSchema.safeParse({ ...input, id: wanted }) : undefined;
  // An id the model made up in the wrong shape is renumbered rather than dropped.
  const criterion = parsed?.success ? parsed.data : AnyCriterionSchema.parse({ ...input, id: nextId(criteria, anti) });
  return [...criteria, criterion];
}

/** Builds a table from rows in order. */
export function createTable(rows: readonly NewRow[], at: string): AnyCriterion[] {
  return rows.reduce<AnyCriterion[]>((all, row) => addRow(all, row, at), []);
}

export function isStale(c: AnyCriterion, now: Date, timeoutMs = DEFAULT_CLAIM_TIMEOUT_MS): boolean {
  return c.claim !== undefined && now.getTime() - Date.parse(c.claim.at) > timeoutMs;
}

export type ClaimResult = { ok: true; criteria: AnyCriterion[] } | { ok: false; heldBy: string };

/**
 * Claims rows for a worker, all or nothing: a row claimed by someone else (and not stale)
 * refuses the whole claim, so two workers never hold one row.
 */
export function claimRows(criteria: readonly AnyCriterion[], ids: readonly string[], worker: string, now: Date, timeoutMs = DEFAULT_CLAIM_TIMEOUT_MS): ClaimResult {
  for (const c of criteria) {
    if (ids.includes(c.id) && c.claim && c.claim.by !== worker && !isStale(c, now, timeoutMs)) return { ok: false, heldBy: c.claim.by };
  }
  const at = now.toISOString();
  return {
    ok: true,
    criteria: criteria.map((c) => (ids.includes(c.id) ? { ...c, claim: { by: worker, at }, status: 'ACTIVE' as const, updatedAt: at } : c)),
  };
}

/** Releases a worker's claims on rows; the status says how the work ended. */
export function releaseRows(criteria: readonly AnyCriterion[], ids: readonly string[], worker: string, status: CriterionStatus, now: Date): AnyCriterion[] {
  const at = now.toISOString();
  return criteria.map((c) => {
    if (!ids.includes(c.id) || (c.claim && c.claim.by !== worker)) return c;
    const { claim: _released, ...rest } = c;
    return { ...rest, status, updatedAt: at, ...(status === 'DONE' ? { completedAt: at } : {}) } as AnyCriterion;
  });
}

/** Sets a row's status with its timestamp. */
export function setStatus(criteria: readonly AnyCriterion[], id: string, status: CriterionStatus, now: Date): AnyCriterion[] {
  const at = now.toISOString();
  return criteria.map((c) => (c.id === id ? ({ ...c, status, updatedAt: at, ...(status === 'DONE' ? { completedAt: at } : {}) } as AnyCriterion) : c));
}

/** Rows a worker may take now: pending or active-but-stale, unclaimed or stale. */
export function availableRows(criteria: readonly AnyCriterion[], now: Date, timeoutMs = DEFAULT_CLAIM_TIMEOUT_MS): AnyCriterion[] {
  return criteria.filter((c) => (c.status === 'PENDING' && !c.claim) || isStale(c, now, timeoutMs));
}
