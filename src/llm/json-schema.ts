import { z } from 'zod';
import { ToolArgumentsError, type OutputIssue } from './errors';
import type { ToolCall, ToolDefinition } from './types';

export type JsonSchema = { [key: string]: unknown };

const cache = new WeakMap<z.ZodType, JsonSchema>();

/**
 * The JSON schema of a zod schema, as providers take it: no `$schema` key, objects closed
 * (`additionalProperties: false`) so servers that constrain output do not invent fields.
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
 * Whether OpenAI's strict mode can take this schema: every object closed and every
 * property required. Other schemas are still sent, without `strict`.
 */
export function isStrictCompatible(schema: JsonSchema): boolean {
  const visit = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.every(visit);
    if (!node || typeof node !== 'object') return true;
    const n = node as JsonSchema;
    if (n.type === 'object' || n.properties) {
      const props = Object.keys((n.properties as JsonSchema | undefined) ?? {});
      const required = new Set((n.required as string[] | undefined) ?? []);
      if (n.additionalProperties !== false || props.some((p) => !required.has(p))) return false;
    }
    return Object.values(n).every(visit);
  };
  if (schema.type !== 'object') return false;
  return visit(schema);
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

export function validateValue<S extends z.ZodType>(schema: S, data: unknown): Validated<z.output<S>> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
  };
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
function stripFence(text: string): string {
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
