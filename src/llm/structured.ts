import type { z } from 'zod';
import { StructuredOutputError, type OutputIssue } from './errors';
import { toJsonSchema, validateJsonText } from './json-schema';
import type { PriceTable } from './prices';
import type { ChatMessage, ChatRequest, LanguageModel } from './types';
import { metered, type UsageRecord } from './usage';

export interface ObjectRequest<S extends z.ZodType> extends Omit<ChatRequest, 'responseFormat' | 'tools' | 'toolChoice' | 'onPart'> {
  readonly schema: S;
  /** Names the schema for the provider (letters, digits, _ and -). */
  readonly name: string;
  readonly description?: string;
}

export interface ObjectResult<T> {
  readonly value: T;
  /** One record per attempt, including an invalid first attempt that was repaired. */
  readonly usage: readonly UsageRecord[];
  /** Invalid outputs seen before the valid one (0 or 1). */
  readonly invalidOutputs: number;
}

export interface ObjectOptions {
  readonly prices?: PriceTable;
  /** Called for every attempt as soon as it returns, so a failing call still accounts its tokens. */
  readonly onUsage?: (usage: UsageRecord) => void;
}

/**
 * Asks for a JSON value of `schema`, sent to the provider as a JSON schema so servers that
 * support it constrain the output. Invalid output gets one repair retry that shows the
 * model its issues; a second invalid output throws `StructuredOutputError`.
 */
export async function generateObject<S extends z.ZodType>(model: LanguageModel, request: ObjectRequest<S>, options: ObjectOptions = {}): Promise<ObjectResult<z.output<S>>> {
  const { schema, name, description, ...chat } = request;
  const usage: UsageRecord[] = [];
  let messages: readonly ChatMessage[] = chat.messages;
  let issues: readonly OutputIssue[] = [];
  const attempts = 2;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const { result, usage: record } = await metered(model, () => model.chat({ ...chat, messages, responseFormat: { name, description, schema } }), options.prices);
    usage.push(record);
    options.onUsage?.(record);
    const validated = validateJsonText(schema, result.text);
    if (validated.ok) return { value: validated.value, usage, invalidOutputs: attempt - 1 };
    issues = validated.issues;
    messages = [...chat.messages, { role: 'assistant', content: result.text }, { role: 'user', content: repairPrompt(name, schema, issues) }];
  }
  throw new StructuredOutputError(model.displayName, name, attempts, issues);
}

function repairPrompt(name: string, schema: z.ZodType, issues: readonly OutputIssue[]): string {
  const list = issues.map((i) => `- ${i.path || '(root)'}: ${i.message}`).join('\n');
  return [
    `Your reply is not a valid "${name}". Problems:`,
    list,
    'Reply again with only the JSON value, matching this JSON schema exactly:',
    JSON.stringify(toJsonSchema(schema)),
  ].join('\n');
}
