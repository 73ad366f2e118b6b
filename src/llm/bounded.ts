import type { z } from 'zod';
import { dropOptionalNulls } from './json-schema';

/**
 * A model's number out of its bounds, where the run can live with the bound: a field the schema
 * marks optional (non-essential, such as a `confidence` of 7 where at most 1 is meant) is set to
 * the bound it broke, and the change is said, rather than failing the phase. Bounds cannot be
 * sent to the providers as keywords (see toStrictJsonSchema), only described, so a model may
 * well break them. A required field out of bounds is essential: the model is asked again.
 */
export interface Adjustment {
  /** Dotted path of the field, e.g. `confidence`, `criteria.2.weight`. */
  readonly path: string;
  readonly given: number;
  readonly used: number;
}

interface DefView {
  readonly type: string;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly in?: z.ZodType;
}

const defOf = (schema: z.ZodType): DefView => (schema as unknown as { _zod: { def: DefView } })._zod.def;

/** The schema of the field at `path`, unwrapped through optional, default, nullable and pipes; undefined when the path leaves the schema. */
function fieldAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let node: z.ZodType | undefined = schema;
  for (const key of path) {
    node = node && unwrap(node);
    if (!node) return undefined;
    const def = defOf(node);
    if (def.type === 'object' && typeof key === 'string') node = def.shape?.[key];
    else if (def.type === 'array' && typeof key === 'number') node = def.element;
    else return undefined;
  }
  return node;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let node = schema;
  for (let i = 0; i < 16; i++) {
    const def = defOf(node);
    if (['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional'].includes(def.type) && def.innerType) node = def.innerType;
    else if (def.type === 'pipe' && def.in) node = def.in;
    else break;
  }
  return node;
}

/**
 * `data` with each optional number that is out of its bounds set to the bound it broke; the
 * changes made. The data itself is not changed.
 */
export function clampNonEssential<S extends z.ZodType>(schema: S, data: unknown): { data: unknown; adjusted: Adjustment[] } {
  const parsed = schema.safeParse(dropOptionalNulls(schema, data));
  if (parsed.success || data === null || typeof data !== 'object') return { data, adjusted: [] };
  const copy = structuredClone(data) as Record<PropertyKey, unknown>;
  const adjusted: Adjustment[] = [];
  for (const issue of parsed.error.issues) {
    if ((issue.code !== 'too_big' && issue.code !== 'too_small') || issue.origin !== 'number' || issue.path.length === 0) continue;
    const field = fieldAt(schema, issue.path);
    // Non-essential: the model may leave it out altogether.
    if (!field || !field.safeParse(undefined).success) continue;
    const parent = issue.path.slice(0, -1).reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<PropertyKey, unknown>)[k] : undefined), copy);
    const key = issue.path[issue.path.length - 1]!;
    if (parent === null || typeof parent !== 'object') continue;
    const given = (parent as Record<PropertyKey, unknown>)[key];
    const bound = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
    if (typeof given !== 'number' || !Number.isFinite(bound)) continue;
    (parent as Record<PropertyKey, unknown>)[key] = bound;
    adjusted.push({ path: issue.path.map(String).join('.'), given, used: bound });
  }
  return { data: adjusted.length > 0 ? copy : data, adjusted };
}

/** The value at a dotted issue path of a model's reply, shown in the repair prompt so the model sees what it gave. */
export function givenAt(data: unknown, path: string): string | undefined {
  if (!path) return undefined;
  let node: unknown = data;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  if (node === undefined) return undefined;
  const text = JSON.stringify(node);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
