import { AnyCriterion } from '../model/criterion';
import type { PrdCriterionData } from './model';

/**
 * A PRD criterion as the store's criterion row, validated by the core schema. A checked box
 * is DONE; whether it was verified is the store's business, not the file's.
 */
export function toCoreCriterion(c: PrdCriterionData, at: string): { ok: true; criterion: AnyCriterion } | { ok: false; message: string } {
  const parsed = AnyCriterion.safeParse({
    kind: c.kind,
    id: c.id,
    text: c.text,
    priority: c.priority,
    source: c.source,
    ...(c.domain ? { domain: c.domain } : {}),
    ...(c.verify ? { verify: c.verify } : {}),
    status: c.checked ? 'DONE' : 'PENDING',
    createdAt: at,
    updatedAt: at,
  });
  return parsed.success ? { ok: true, criterion: parsed.data } : { ok: false, message: `${c.id}: ${parsed.error.issues.map((i) => i.message).join('; ')}` };
}
