import type { z } from 'zod';
import { LlmTruncatedError, StructuredOutputError, type OutputIssue } from './errors';
import { clampNonEssential, givenAt, type Adjustment } from './bounded';
import { stripFence, toJsonSchema, validateJsonText, validateValue } from './json-schema';
import type { PriceTable } from './prices';
import { DEFAULT_MAX_OUTPUT_TOKENS } from './providers/common';
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
  /** Non-essential numbers out of their bounds that were set to the bound (see bounded.ts). */
  readonly adjusted?: readonly Adjustment[];
}

export interface ObjectOptions {
  readonly prices?: PriceTable;
  /** Called for every attempt as soon as it returns, so a failing call still accounts its tokens. */
  readonly onUsage?: (usage: UsageRecord) => void;
  /** Told of each non-essential value set to its bound, to log it. */
  readonly onAdjusted?: (adjusted: readonly Adjustment[]) => void;
}

/**
 * Asks for a JSON value of `schema`, sent to the provider as a JSON schema so servers that
 * support it constrain the output. Invalid output gets one repair retry that shows the
 * model its issues; a second invalid output throws `StructuredOutputError`.
 *
 * A reply cut off at the output cap (`LlmTruncatedError`) is asked again once with twice the
 * cap (at most the model's own maximum, when the catalogue knows it), through the same
 * `model`, so a budget guard around it admits the larger call or refuses it; a second cut-off
 * throws. A refusal (`LlmRefusalError`) is never repaired here: it goes to the caller at once.
 */
export async function generateObject<S extends z.ZodType>(model: LanguageModel, request: ObjectRequest<S>, options: ObjectOptions = {}): Promise<ObjectResult<z.output<S>>> {
  const { schema, name, description, ...chat } = request;
  const usage: UsageRecord[] = [];
  let messages: readonly ChatMessage[] = chat.messages;
  let issues: readonly OutputIssue[] = [];
  let cap = chat.maxOutputTokens;
  let raised = false;
  const ask = () => metered(model, () => model.chat({ ...chat, messages, ...(cap !== undefined ? { maxOutputTokens: cap } : {}), responseFormat: { name, description, schema } }), options.prices);
  const attempts = 2;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let answer: Awaited<ReturnType<typeof ask>>;
    try {
      answer = await ask();
    } catch (error) {
      const larger = !raised && error instanceof LlmTruncatedError ? largerCap(model, error.maxOutputTokens ?? cap) : undefined;
      if (larger === undefined) throw error;
      // Asked again at the larger cap; the cut-off reply is not an invalid output.
      cap = larger;
      raised = true;
      answer = await ask();
    }
    const { result, usage: record } = answer;
    usage.push(record);
    options.onUsage?.(record);
    const validated = validateJsonText(schema, result.text);
    if (validated.ok) return { value: validated.value, usage, invalidOutputs: attempt - 1 };
    const data = parsedJson(result.text);
    // An optional number out of its bounds is set to the bound and said; what is left is asked again, with the values given.
    const clamped = data === undefined ? undefined : clampNonEssential(schema, data);
    if (clamped && clamped.adjusted.length > 0) {
      const again = validateValue(schema, clamped.data);
      if (again.ok) {
        options.onAdjusted?.(clamped.adjusted);
        return { value: again.value, usage, invalidOutputs: attempt - 1, adjusted: clamped.adjusted };
      }
      issues = again.issues;
    } else issues = validated.issues;
    messages = [...chat.messages, { role: 'assistant', content: result.text }, { role: 'user', content: repairPrompt(name, schema, issues, clamped?.data ?? data) }];
  }
  throw new StructuredOutputError(model.displayName, name, attempts, issues);
}

/** Twice the cap a call was cut off at, within the model's maximum; undefined when that is no larger. */
function largerCap(model: LanguageModel, cut: number | undefined): number | undefined {
  const from = cut ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const ceiling = model.profile?.capabilities.maxOutputTokens;
  const next = ceiling === undefined ? from * 2 : Math.min(from * 2, ceiling);
  return next > from ? next : undefined;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(stripFence(text)) as unknown;
  } catch {
    return undefined;
  }
}

function repairPrompt(name: string, schema: z.ZodType, issues: readonly OutputIssue[], data: unknown): string {
  const list = issues
    .map((i) => {
      const given = givenAt(data, i.path);
      return `- ${i.path || '(root)'}: ${i.message}${given !== undefined ? ` (you gave ${given})` : ''}`;
    })
    .join('\n');
  return [
    `Your reply is not a valid "${name}". Problems:`,
    list,
    'Reply again with only the JSON value, matching this JSON schema exactly:',
    JSON.stringify(toJsonSchema(schema)),
  ].join('\n');
}
