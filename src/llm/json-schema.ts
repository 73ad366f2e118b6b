import { z } from 'zod';
import { ToolArgumentsError, type OutputIssue } from './errors';
import type { ToolCall, ToolDefinition } from './types';

export type JsonSchema = { [key: string]: unknown };

const cache = new WeakMap<z.ZodType, JsonSchema>();
const strictCache = new WeakMap<z.ZodType, JsonSchema>();

/**
 * The JSON schema of a zod schema, as providers take it: no `$schema` key, objects closed
 * (`additionalProperties: false`) so servers that constrain output do not invent fields.
 * For constrained decoding use `toStrictJsonSchema`; this one is for prompts and hints.
 */
export function toJsonSchema(schema: z.ZodType): JsonSchema {
  let json = cache.get(schema);
  if (!json) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { unrepresentable: 'any' }) as JsonSchema;
    json = rest;
    cache.set(schema, json);
  }
  return json;
}

/**
 * Formats both strict decoders take: OpenAI's list (https://platform.openai.com/docs/guides/structured-outputs#supported-properties)
 * intersected with Anthropic's (https://docs.claude.com/en/docs/build-with-claude/structured-outputs#json-schema-limitations,
 * the SDK's `SUPPORTED_STRING_FORMATS` in @anthropic-ai/sdk/lib/transform-json-schema). Anthropic refuses numeric and
 * length bounds outright ("output_format.schema: For 'integer' type, property 'minimum' is not supported",
 * https://github.com/agentjido/req_llm/issues/302), which is why bounds go into the description for both.
 */
const PORTABLE_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/** Annotations that carry nothing a model needs. */
const DROPPED = new Set(['$schema', '$id', '$comment', 'examples', 'readOnly', 'writeOnly']);

/**
 * Keywords that change what a value may be in ways neither strict decoder can express
 * (the OpenAI SDK's `JSON_SCHEMA_UNSUPPORTED_SCHEMA_KEYWORDS` that are not plain bounds):
 * moving them to the description would change the schema's meaning, so a zod schema that
 * produces one is a bug to fix where it is written.
 */
const STRUCTURAL = new Set([
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'prefixItems',
  'additionalItems',
  'patternProperties',
  'propertyNames',
  'dependencies',
  'dependentSchemas',
  'dependentRequired',
  'contains',
  'contentSchema',
  'unevaluatedItems',
  'unevaluatedProperties',
  '$anchor',
  '$dynamicAnchor',
  '$dynamicRef',
  '$recursiveAnchor',
  '$recursiveRef',
]);

/**
 * The JSON schema of a zod schema in the subset that strict constrained decoding takes
 * (OpenAI `strict: true`, Anthropic `output_config.format`): every property required, an
 * optional one as required-and-nullable (`anyOf: [X, {type: 'null'}]`; a `null` answer is
 * dropped again before validation, see `validateValue`), `oneOf` as `anyOf`, every object
 * closed. Bounds that either decoder refuses (lengths, numeric limits, patterns, defaults)
 * are not sent as keywords but written into the description as `{minLength: 1}`, the way the
 * Anthropic SDK's own transform does it; zod still checks them on the reply. Built from the
 * schema's input side, since the model writes what zod then parses (defaults fill nulls).
 * The OpenAI SDK's `toStrictJsonSchema` leaves the result unchanged (test/unit/llm/llm-strict-schemas.test.ts).
 */
export function toStrictJsonSchema(schema: z.ZodType): JsonSchema {
  let json = strictCache.get(schema);
  if (!json) {
    const raw = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonSchema;
    json = strictNode(raw, '');
    if (json.type !== 'object') throw new Error(`a strict schema needs an object at its root, not ${JSON.stringify(json.type ?? Object.keys(json))}`);
    strictCache.set(schema, json);
  }
  return json;
}

function strictNode(node: unknown, path: string): JsonSchema {
  const where = path || '(root)';
  if (!isObject(node)) throw new Error(`schema at ${where} is ${JSON.stringify(node)}, which strict output cannot take`);
  const out: JsonSchema = {};
  const described: [string, unknown][] = [];
  for (const [key, value] of Object.entries(node)) {
    if (STRUCTURAL.has(key)) throw new Error(`schema at ${where} uses "${key}", which strict output cannot express`);
    if (DROPPED.has(key) || key === 'properties' || key === 'required' || key === 'additionalProperties') continue;
    switch (key) {
      case 'type':
      case 'enum':
      case 'const':
      case 'description':
      case 'title':
      case '$ref':
        out[key] = value;
        break;
      case 'items':
        if (Array.isArray(value) || typeof value === 'boolean') throw new Error(`schema at ${where} has tuple items, which strict output cannot express`);
        out.items = strictNode(value, `${path}/items`);
        break;
      case 'anyOf':
      case 'oneOf':
        // A value of our unions matches one branch anyway (discriminated by a literal).
        out.anyOf = (value as unknown[]).map((branch, i) => strictNode(branch, `${path}/${key}/${i}`));
        break;
      case '$defs':
      case 'definitions':
        out[key] = Object.fromEntries(Object.entries(value as JsonSchema).map(([name, def]) => [name, strictNode(def, `${path}/${key}/${name}`)]));
        break;
      case 'format':
        if (typeof value === 'string' && PORTABLE_FORMATS.has(value)) out.format = value;
        else described.push([key, value]);
        break;
      case 'minItems':
        if (value === 0 || value === 1) out.minItems = value;
        else described.push([key, value]);
        break;
      case 'maximum':
      case 'minimum':
        // zod bounds every integer to the safe range; that says nothing to a model.
        if (value !== Number.MAX_SAFE_INTEGER && value !== Number.MIN_SAFE_INTEGER) described.push([key, value]);
        break;
      default:
        described.push([key, value]);
    }
  }
  if (node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) || isObject(node.properties)) {
    const open = node.additionalProperties;
    const props = isObject(node.properties) ? node.properties : {};
    // A record (`additionalProperties: {schema}`) has keys the schema cannot list; `{}`/true is merely loose.
    if (open !== undefined && open !== false && open !== true && !(isObject(open) && Object.keys(open).length === 0)) {
      throw new Error(`schema at ${where} is a record (open keys), which strict output cannot express`);
    }
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    out.properties = Object.fromEntries(
      Object.entries(props).map(([name, child]) => {
        const strict = strictNode(child, `${path}/properties/${name}`);
        return [name, required.has(name) ? strict : nullable(strict)];
      }),
    );
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  if (described.length > 0) {
    const bounds = `{${described.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')}}`;
    out.description = typeof out.description === 'string' && out.description ? `${out.description}\n\n${bounds}` : bounds;
  }
  return out;
}

/** The schema, also accepting `null` (an optional property as strict mode spells it). */
function nullable(schema: JsonSchema): JsonSchema {
  if (acceptsNull(schema)) return schema;
  const { description, ...rest } = schema;
  return { anyOf: [rest, { type: 'null' }], ...(description !== undefined ? { description } : {}) };
}

function acceptsNull(schema: JsonSchema): boolean {
  const type = schema.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (schema.const === null || (Array.isArray(schema.enum) && schema.enum.includes(null))) return true;
  return Array.isArray(schema.anyOf) && schema.anyOf.some((b) => isObject(b) && acceptsNull(b));
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type Validated<T> = { ok: true; value: T } | { ok: false; issues: OutputIssue[] };

/** Parses a model's JSON text and validates it; problems come back as issues, never thrown. */
export function validateJsonText<S extends z.ZodType>(schema: S, text: string): Validated<z.output<S>> {
  let data: unknown;
  try {
    data = JSON.parse(stripFence(text));
  } catch (e) {
    return { ok: false, issues: [{ path: '', message: `not JSON (${e instanceof Error ? e.message : String(e)})` }] };
  }
  return validateValue(schema, data);
}

/**
 * Validates a model's value. A `null` for a property that is optional (and not nullable)
 * in the zod schema is first taken as "left out": strict schemas spell optional as nullable.
 */
export function validateValue<S extends z.ZodType>(schema: S, data: unknown): Validated<z.output<S>> {
  const parsed = schema.safeParse(dropOptionalNulls(schema, data));
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
  };
}

/** The parts of a zod definition the null-dropping walk follows. */
interface ZodDefView {
  readonly type: string;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly in?: z.ZodType;
  readonly getter?: () => z.ZodType;
  readonly valueType?: z.ZodType;
  readonly items?: readonly z.ZodType[];
  readonly left?: z.ZodType;
  readonly right?: z.ZodType;
}

function defOf(schema: z.ZodType): ZodDefView {
  return (schema as unknown as { _zod: { def: ZodDefView } })._zod.def;
}

/** A copy of `value` without the `null`s that stand for optional properties left out. */
export function dropOptionalNulls(schema: z.ZodType, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      if (Array.isArray(value) || !def.shape) return value;
      const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      for (const [key, field] of Object.entries(def.shape)) {
        if (!(key in out)) continue;
        if (out[key] === null && !field.safeParse(null).success && field.safeParse(undefined).success) delete out[key];
        else out[key] = dropOptionalNulls(field, out[key]);
      }
      return out;
    }
    case 'array':
      return Array.isArray(value) && def.element ? value.map((v) => dropOptionalNulls(def.element!, v)) : value;
    case 'tuple':
      return Array.isArray(value) && def.items ? value.map((v, i) => (def.items![i] ? dropOptionalNulls(def.items![i]!, v) : v)) : value;
    case 'record':
      return def.valueType && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, dropOptionalNulls(def.valueType!, v)])) : value;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return def.innerType ? dropOptionalNulls(def.innerType, value) : value;
    case 'pipe':
      return def.in ? dropOptionalNulls(def.in, value) : value;
    case 'lazy':
      return def.getter ? dropOptionalNulls(def.getter(), value) : value;
    case 'intersection':
      return def.left && def.right ? dropOptionalNulls(def.right, dropOptionalNulls(def.left, value)) : value;
    case 'union': {
      // The first branch the value fits once its nulls are dropped; else as it came (its issues name it).
      for (const option of def.options ?? []) {
        const dropped = dropOptionalNulls(option, value);
        if (option.safeParse(dropped).success) return dropped;
      }
      return value;
    }
    default:
      return value;
  }
}

export type ParsedToolArguments<T> = { ok: true; value: T } | { ok: false; issues: OutputIssue[]; error: ToolArgumentsError };

/**
 * Validates a tool call's arguments against the schema of the tool it names. A failure
 * carries a typed error naming the tool, the call and each field, ready to send back to
 * the model as the tool's error result.
 */
export function parseToolArguments<S extends z.ZodType>(tool: ToolDefinition<S>, call: ToolCall): ParsedToolArguments<z.output<S>> {
  const fail = (issues: OutputIssue[]) => ({ ok: false as const, issues, error: new ToolArgumentsError(tool.name, call.id, issues) });
  if (call.name !== tool.name) return fail([{ path: '', message: `call is for tool "${call.name}", not "${tool.name}"` }]);
  // Providers hand over argument text they could not parse as a string (see parseArgumentsJson).
  if (typeof call.arguments === 'string' && !tool.parameters.safeParse(call.arguments).success) {
    return fail([{ path: '', message: 'the arguments are not valid JSON' }]);
  }
  const checked = validateValue(tool.parameters, call.arguments);
  return checked.ok ? checked : fail(checked.issues);
}

/** Models without constrained decoding like to wrap JSON in a markdown fence. */
export function stripFence(text: string): string {
  const m = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return m ? m[1]! : text;
}

/** Parses tool-call argument JSON from a provider; an unreadable string stays a string. */
export function parseArgumentsJson(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
