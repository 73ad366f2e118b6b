import type { z } from 'zod';
import { toJsonSchema, toStrictJsonSchema, type JsonSchema } from '../json-schema';
import type { ChatMessage, ChatRequest, ResponseFormat, ToolCall } from '../types';
import { estimateTokens } from './sdk-errors';

/**
 * What the OpenAI request builders share: the schema sent in strict mode, the schema line
 * for models asked through the prompt, the output cap of a call, guessed usage.
 */

/**
 * The schema as strict mode takes it (optional fields required and nullable, `oneOf` as
 * `anyOf`, refused keywords left out). A schema the transform cannot express (a record, a
 * tuple) goes out as it is, and `isStrictClean` then sends it without `strict`: the reply
 * is validated by zod either way, and a 400 would end the call for nothing.
 */
export function strictSchemaOf(schema: z.ZodType): JsonSchema {
  try {
    return toStrictJsonSchema(schema);
  } catch {
    return toJsonSchema(schema);
  }
}

/**
 * Keywords OpenAI's strict mode refuses, as the official SDK's own strict transform lists
 * them (node_modules/openai/lib/transform.js) and the Structured Outputs guide describes:
 * https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas
 */
const STRICT_UNSUPPORTED = new Set([
  'allOf', 'oneOf', 'not', 'if', 'then', 'else', 'contains', 'minContains', 'maxContains', 'prefixItems',
  'uniqueItems', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'dependentRequired',
  'dependentSchemas', 'dependencies', 'unevaluatedItems', 'unevaluatedProperties', 'contentEncoding',
  'contentMediaType', 'contentSchema', '$anchor', '$dynamicAnchor', '$dynamicRef', '$recursiveAnchor', '$recursiveRef',
]);

/**
 * Whether strict mode takes this schema: an object at the root, every object closed
 * (`additionalProperties: false`) with every property required, no refused keyword.
 * A schema that fails goes out without `strict` rather than be refused with a 400.
 */
export function isStrictClean(schema: JsonSchema): boolean {
  if (schema.type !== 'object' || schema.anyOf !== undefined) return false;
  const visit = (node: unknown): boolean => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return true;
    const n = node as JsonSchema;
    if (Object.keys(n).some((k) => STRICT_UNSUPPORTED.has(k))) return false;
    const types = Array.isArray(n.type) ? n.type : [n.type];
    if (types.includes('object') || n.properties !== undefined) {
      const required = new Set((n.required as string[] | undefined) ?? []);
      if (n.additionalProperties !== false) return false;
      if (Object.keys((n.properties as JsonSchema | undefined) ?? {}).some((p) => !required.has(p))) return false;
    }
    // Only keywords that hold schemas are walked: enum, const and default hold data.
    const children: unknown[] = [
      ...Object.values((n.properties as JsonSchema | undefined) ?? {}),
      ...Object.values((n.$defs as JsonSchema | undefined) ?? {}),
      ...Object.values((n.definitions as JsonSchema | undefined) ?? {}),
      ...((n.anyOf as unknown[] | undefined) ?? []),
      ...(Array.isArray(n.items) ? n.items : [n.items]),
    ];
    return children.every(visit);
  };
  return visit(schema);
}

/** The line that asks for structured output through the prompt, for servers that take no JSON schema parameter. */
export function schemaInstruction(format: ResponseFormat): string {
  return [
    `Reply with only the JSON value "${format.name}"${format.description ? ` (${format.description})` : ''}, no other text and no markdown fence.`,
    'It must match this JSON schema:',
    JSON.stringify(toJsonSchema(format.schema)),
  ].join('\n');
}

/** The messages with the schema line added to the leading system message (one is added when there is none). */
export function withSchemaInstruction(messages: readonly ChatMessage[], format: ResponseFormat): ChatMessage[] {
  const line = schemaInstruction(format);
  const [first, ...rest] = messages;
  // Several chat templates of local models take one system message, and only first.
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${line}` }, ...rest];
  return [{ role: 'system', content: line }, ...messages];
}

/** The output cap of a call: what the caller asked (or the provider default), never above the model's own maximum. */
export function outputCap(request: ChatRequest, fallback: number, modelMax: number | undefined): number {
  const asked = request.maxOutputTokens ?? fallback;
  return modelMax !== undefined ? Math.min(asked, modelMax) : asked;
}

/** Counted usage for servers that report none. */
export function estimatedUsage(request: ChatRequest, text: string, toolCalls: readonly ToolCall[]) {
  const input = request.messages.map((m) => m.content).join('\n');
  const output = text + toolCalls.map((c) => JSON.stringify(c.arguments)).join('');
  return { inputTokens: estimateTokens(input), outputTokens: estimateTokens(output), estimated: true as const };
}
