import type { JsonSchema } from '../json-schema';

/**
 * The JSON schema Anthropic's structured outputs take (`output_config.format`). They accept a
 * subset of JSON Schema and answer 400 for anything else, so keywords outside it are moved
 * into the description, as the official SDKs do, and the reply is still validated against the
 * full zod schema afterwards.
 * https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
 *
 * Optional properties stay optional: the subset allows them (up to 24 per request), whereas
 * making them required-and-nullable would spend the tighter budget of 16 union-typed
 * parameters ("Schema complexity limits" on the same page).
 */

/** String formats the subset supports; other formats are dropped. */
export const ANTHROPIC_STRING_FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid'] as const;

/** Constraints the subset refuses, with how each reads in a description. */
const MOVED_TO_DESCRIPTION: Record<string, (value: unknown) => string> = {
  minimum: (v) => `at least ${String(v)}`,
  maximum: (v) => `at most ${String(v)}`,
  exclusiveMinimum: (v) => `greater than ${String(v)}`,
  exclusiveMaximum: (v) => `less than ${String(v)}`,
  multipleOf: (v) => `a multiple of ${String(v)}`,
  minLength: (v) => `at least ${count(v, 'character')}`,
  maxLength: (v) => `at most ${count(v, 'character')}`,
  maxItems: (v) => `at most ${count(v, 'item')}`,
  uniqueItems: () => 'no repeated items',
  pattern: (v) => `matching the pattern ${String(v)}`,
  minProperties: (v) => `at least ${count(v, 'property', 'properties')}`,
  maxProperties: (v) => `at most ${count(v, 'property', 'properties')}`,
};

function count(n: unknown, one: string, many = `${one}s`): string {
  return `${String(n)} ${n === 1 ? one : many}`;
}

/** Keywords whose value is one schema, or a list or map of schemas. */
const ONE_SCHEMA = ['items', 'not', 'if', 'then', 'else'];
const SCHEMA_LISTS = ['anyOf', 'allOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', '$defs', 'definitions'];

/**
 * The schema in the subset, or undefined when it cannot be said there at all: a map with
 * free keys (`additionalProperties` must be false) or a recursive schema. The caller then
 * asks for the JSON in the prompt instead.
 */
export function toAnthropicOutputSchema(schema: JsonSchema): JsonSchema | undefined {
  if (hasFreeKeys(schema) || isRecursive(schema)) return undefined;
  return clean(schema) as JsonSchema;
}

function hasFreeKeys(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasFreeKeys);
  if (!node || typeof node !== 'object') return false;
  const n = node as JsonSchema;
  const extra = n.additionalProperties;
  if (extra !== undefined && extra !== false && (n.type === 'object' || n.properties)) {
    // `{}` beside listed properties is zod's passthrough default, not a map: closing it loses nothing asked for.
    if (!n.properties || (typeof extra === 'object' && Object.keys(extra as object).length > 0)) return true;
  }
  if (n.patternProperties || n.propertyNames) return true;
  return Object.values(n).some(hasFreeKeys);
}

/** A `$ref` to the root, or to a definition that reaches itself again. */
function isRecursive(schema: JsonSchema): boolean {
  const defs = { ...((schema.$defs as JsonSchema | undefined) ?? {}), ...((schema.definitions as JsonSchema | undefined) ?? {}) };
  const refsIn = (node: unknown, found: string[] = []): string[] => {
    if (Array.isArray(node)) node.forEach((n) => refsIn(n, found));
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node as JsonSchema)) {
        if (k === '$ref' && typeof v === 'string') found.push(v);
        else if (k !== '$defs' && k !== 'definitions') refsIn(v, found);
      }
    }
    return found;
  };
  const target = (ref: string) => (ref === '#' ? '#' : ref.replace(/^#\/(\$defs|definitions)\//, ''));
  const reaches = (from: string, seen: Set<string>): boolean => {
    const node = from === '#' ? schema : defs[from];
    for (const ref of refsIn(node).map(target)) {
      if (ref === '#' || seen.has(ref)) return true;
      if (reaches(ref, new Set([...seen, ref]))) return true;
    }
    return false;
  };
  return reaches('#', new Set());
}

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (!node || typeof node !== 'object') return node;
  const n = node as JsonSchema;
  const out: JsonSchema = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(n)) {
    if (key in MOVED_TO_DESCRIPTION) {
      notes.push(MOVED_TO_DESCRIPTION[key]!(value));
    } else if (key === 'minItems') {
      // Only 0 and 1 are supported; a larger minimum keeps 1 and is said in words.
      const min = typeof value === 'number' ? value : 0;
      out.minItems = Math.min(min, 1);
      if (min > 1) notes.push(`at least ${count(min, 'item')}`);
    } else if (key === 'format') {
      if ((ANTHROPIC_STRING_FORMATS as readonly string[]).includes(String(value))) out.format = value;
      else notes.push(`in ${String(value)} format`);
    } else if (key === 'oneOf') {
      // `oneOf` is not in the subset; for the exclusive unions zod emits, `anyOf` accepts the same values.
      out.anyOf = (value as unknown[]).map(clean);
    } else if (ONE_SCHEMA.includes(key)) {
      out[key] = clean(value);
    } else if (SCHEMA_LISTS.includes(key)) {
      out[key] = (value as unknown[]).map(clean);
    } else if (SCHEMA_MAPS.includes(key) && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, clean(v)]));
    } else if (key === 'additionalProperties') {
      continue; // set below: it must be false on every object
    } else {
      out[key] = value;
    }
  }
  if (n.type === 'object' || (Array.isArray(n.type) && n.type.includes('object')) || n.properties) out.additionalProperties = false;
  if (notes.length > 0) out.description = [n.description, `(${notes.join('; ')})`].filter(Boolean).join(' ');
  return out;
}
