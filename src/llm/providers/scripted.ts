import { z } from 'zod';
import { formatProblem, parseYamlDataFile } from '../../model/data-file';
import { callCancelled, LlmProviderError, LlmTimeoutError, ScriptError } from '../errors';
import { validateValue } from '../json-schema';
import type { ChatRequest, ChatResponse, LanguageModel, ModelClass, TokenUsage, ToolCall } from '../types';
import { estimateTokens } from './sdk-errors';

const ScriptToolCall = z
  .object({
    id: z.string().min(1).optional(),
    name: z.string().min(1),
    arguments: z.unknown().default({}),
  })
  .strict();

const ScriptStep = z
  .object({
    /** Plain text; under a structured-output request it is passed on unchecked (to script invalid output). */
    text: z.string().optional(),
    toolCalls: z.array(ScriptToolCall).min(1).optional(),
    /** A structured answer; checked against the schema the request asks for. */
    object: z.unknown().optional(),
    /** A failure to simulate. */
    error: z
      .object({ kind: z.enum(['timeout', 'rate-limit', 'server', 'connection']), message: z.string().default('scripted failure') })
      .strict()
      .optional(),
    usage: z.object({ inputTokens: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() }).strict().optional(),
    /** Waits before answering (cancellable), for demos and cancellation tests. */
    delayMs: z.number().int().nonnegative().optional(),
    /** Skips checking tool-call arguments against the tools' schemas. */
    unchecked: z.boolean().default(false),
  })
  .strict()
  .refine((s) => [s.text !== undefined || s.toolCalls !== undefined, s.object !== undefined, s.error !== undefined].filter(Boolean).length === 1, {
    message: 'a step has exactly one of: text and/or toolCalls, object, error',
  });

export const Script = z
  .object({
    name: z.string().min(1).optional(),
    /**
     * A demo script says what it answers (e.g. "the README's request"): it answers that only,
     * so Check Model presents it as a demo instead of calling it, and it judges no Custom criterion.
     */
    demo: z.string().min(1).optional(),
    steps: z.array(ScriptStep).min(1, 'a script needs at least one step'),
  })
  .strict();
export type Script = z.infer<typeof Script>;
type Step = z.infer<typeof ScriptStep>;

export interface ScriptedOptions {
  readonly id?: string;
  readonly providerId?: string;
  readonly modelClass?: ModelClass;
}

/**
 * Replays a script of responses, in order, for tests, demos and offline use. Always shown
 * as "scripted: <name>" so no one mistakes its output for a model's.
 */
export class ScriptedModel implements LanguageModel {
  readonly kind = 'scripted' as const;
  readonly id: string;
  readonly providerId: string;
  readonly model: string;
  readonly modelClass: ModelClass;
  readonly displayName: string;
  readonly demo?: string;
  private next = 0;

  constructor(
    readonly file: string,
    private readonly script: Script,
    options: ScriptedOptions = {},
  ) {
    const name = script.name ?? baseName(file);
    this.model = name;
    this.displayName = `scripted: ${name}`;
    this.id = options.id ?? `scripted:${name}`;
    this.providerId = options.providerId ?? 'scripted';
    this.modelClass = options.modelClass ?? 'local';
    if (script.demo) this.demo = script.demo;
  }

  /** Parses a YAML or JSON script; problems name the file and line. */
  static fromText(file: string, text: string, options?: ScriptedOptions): ScriptedModel {
    const parsed = parseYamlDataFile(file, text, Script);
    if (!parsed.ok) throw new ScriptError(file, undefined, parsed.problems.map(formatProblem).join('; '));
    return new ScriptedModel(file, parsed.value, options);
  }

  /** The file edits (`edit_file` calls) the script makes: a demo's replay checks the workspace does not hold them already. */
  get scriptedEdits(): { path: string; find: string; replace: string }[] {
    return this.script.steps
      .flatMap((s) => s.toolCalls ?? [])
      .flatMap((c) => {
        const a = (c.arguments ?? {}) as { path?: unknown; find?: unknown; replace?: unknown };
        return c.name === 'edit_file' && typeof a.path === 'string' && typeof a.find === 'string' && typeof a.replace === 'string' ? [{ path: a.path, find: a.find, replace: a.replace }] : [];
      });
  }

  get stepsUsed(): number {
    return this.next;
  }

  get stepsLeft(): number {
    return this.script.steps.length - this.next;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted) throw callCancelled(this.displayName);
    const index = this.next;
    const step = this.script.steps[index];
    const number = index + 1;
    if (!step) throw new ScriptError(this.file, number, `the script ran out: it has ${this.script.steps.length} steps and a call asked for another`);
    this.next++;
    if (step.delayMs) await delay(step.delayMs, request.signal, this.displayName);
    if (step.error) throw this.failure(step.error.kind, step.error.message, request.timeoutMs);
    const response = this.respond(step, number, request);
    if (request.onPart) {
      for (const piece of response.text.match(/\S+\s*|\s+/g) ?? []) request.onPart({ type: 'text', text: piece });
      for (const call of response.toolCalls) request.onPart({ type: 'tool-call', call });
    }
    return response;
  }

  private respond(step: Step, number: number, request: ChatRequest): ChatResponse {
    const format = request.responseFormat;
    if (step.object !== undefined) {
      if (!format) throw new ScriptError(this.file, number, 'the step gives an object but the call asks for no structured output');
      const checked = validateValue(format.schema, step.object);
      if (!checked.ok) {
        const issues = checked.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
        throw new ScriptError(this.file, number, `the object does not match the requested schema "${format.name}": ${issues}`);
      }
      const text = JSON.stringify(step.object);
      return { text, toolCalls: [], stopReason: 'end', usage: this.usage(step, request, text) };
    }
    if (format && step.toolCalls) throw new ScriptError(this.file, number, `the call asks for structured output "${format.name}" but the step gives tool calls`);
    const toolCalls: ToolCall[] = (step.toolCalls ?? []).map((c, i) => {
      const tool = request.tools?.find((t) => t.name === c.name);
      if (!tool) throw new ScriptError(this.file, number, `the step calls tool "${c.name}", which the call does not offer (${(request.tools ?? []).map((t) => t.name).join(', ') || 'no tools'})`);
      if (!step.unchecked) {
        const checked = validateValue(tool.parameters, c.arguments);
        if (!checked.ok) throw new ScriptError(this.file, number, `arguments of tool "${c.name}" do not match its schema: ${checked.issues.map((x) => `${x.path || '(root)'}: ${x.message}`).join('; ')}`);
      }
      return { id: c.id ?? `call_${number}_${i + 1}`, name: c.name, arguments: c.arguments };
    });
    const text = step.text ?? '';
    return { text, toolCalls, stopReason: toolCalls.length > 0 ? 'tool-calls' : 'end', usage: this.usage(step, request, text) };
  }

  private usage(step: Step, request: ChatRequest, text: string): TokenUsage {
    if (step.usage) return step.usage;
    return { inputTokens: estimateTokens(request.messages.map((m) => m.content).join('\n')), outputTokens: estimateTokens(text), estimated: true };
  }

  private failure(kind: NonNullable<Step['error']>['kind'], message: string, timeoutMs: number | undefined): Error {
    if (kind === 'timeout') return new LlmTimeoutError(this.displayName, timeoutMs);
    return new LlmProviderError(this.displayName, kind === 'connection' ? 'connection' : kind, message, kind === 'rate-limit' ? 429 : kind === 'server' ? 500 : undefined);
  }
}

function baseName(file: string): string {
  const last = file.split(/[\\/]/).pop() ?? file;
  return last.replace(/\.(ya?ml|json)$/i, '') || 'script';
}

function delay(ms: number, signal: AbortSignal | undefined, model: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(callCancelled(model));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
