import { isCancellation } from '../model/errors';
import type { Logger } from '../model/log';
import type { RunEvent } from '../model';
import { applyLessons, LESSON_PARAMS, type LessonParam, type ModelCapabilities, type ModelLesson } from './catalogue';
import { LlmProviderError, redact } from './errors';
import { chatWithPromptTools } from './prompt-tools';
import type { ChatRequest, ChatResponse, LanguageModel } from './types';
import type { RunEventContext } from './usage';

/**
 * Adapting to what a server refuses instead of failing (item 4). A 400 that names
 * a parameter or feature the model does not take becomes a lesson in the model's profile;
 * the provider reads the changed capabilities on its next call, so the call is made once
 * more without it, and later calls never send it again. A server that takes no tools gets
 * them through the prompt (prompt-tools.ts).
 */

export interface AdaptOptions {
  readonly logger?: Logger;
  /** A new lesson, for the caller to store and to show as a run event. */
  readonly onLesson?: (lesson: ModelLesson, model: LanguageModel) => void;
}

const ADAPTED = Symbol('adapted');

/**
 * The model, adapting to its server's refusals. The wrapper delegates to the model by
 * prototype, so it is the same model to everyone (`id`, `kind`, `profile`, `countTokens`,
 * `instanceof OpenAiModel`), with only `chat` of its own. A model without a profile (the
 * scripted replayer, vscode.lm) is returned as it is.
 */
export function adaptive(model: LanguageModel, options: AdaptOptions = {}): LanguageModel {
  const profile = model.profile;
  if (!profile || (model as { [ADAPTED]?: boolean })[ADAPTED]) return model;
  const logger = options.logger?.child('models');
  const chat = async (request: ChatRequest): Promise<ChatResponse> => {
    const before = profile.learned.length;
    try {
      if (request.tools && request.tools.length > 0 && !profile.capabilities.tools) return await chatWithPromptTools(model, request);
      return await model.chat(request);
    } catch (error) {
      if (isCancellation(error) || request.signal?.aborted) throw error;
      const param = refusedParam(error, model.model);
      if (!param) throw error;
      // Learned by a call that was under way beside this one: this one went out before it.
      if (profile.learned.findIndex((l) => l.param === param) >= before) return chat(request);
      // Known before this call, or nothing it could change: the refusal is something else.
      if (!changes(profile.capabilities, param) || !profile.learn(param, refusalText(error as LlmProviderError))) throw error;
      const lesson = profile.learned.find((l) => l.param === param)!;
      logger?.info(`adapted to ${model.displayName}: ${param} refused, ${param === 'tools' ? 'retried with the tools described in the prompt' : 'retried without it'}`);
      try {
        options.onLesson?.(lesson, wrapper);
      } catch (failure) {
        // Keeping the lesson is the caller's business; the call adapts either way.
        logger?.warn(`the lesson about ${param} for ${model.displayName} could not be kept: ${failure instanceof Error ? failure.message : String(failure)}`);
      }
      return chat(request);
    }
  };
  const wrapper = Object.assign(Object.create(model) as LanguageModel, { chat, [ADAPTED]: true });
  return wrapper;
}

/** Words with which servers say a parameter or feature is not taken (as opposed to a bad value). */
const REFUSAL =
  /not supported|unsupported|does not support|doesn't support|not allowed|not permitted|unknown parameter|unrecognized|unrecognised|only the default|\bonly [^.]{1,20} (?:is|are) (?:allowed|supported)|not available|cannot be used|can't be used|cannot both be specified|may not be (?:used|enabled|specified)|extra inputs|not compatible|incompatible|is deprecated for this model/;

/** Where each lesson's parameter is named in a server's words. `strict` is looked for first: it qualifies tools and formats. */
const NAMED: readonly (readonly [LessonParam, RegExp])[] = [
  ['temperature', /\btemperature\b/],
  ['top_p', /\btop_p\b/],
  ['tool_choice', /\btool_choice\b|\btool choice\b|\bforced tool/],
  ['tools', /\btools?\b|\bfunction calling\b/],
  ['max_completion_tokens', /\bmax_completion_tokens\b/],
  ['max_tokens', /\bmax_tokens\b/],
  ['response_format', /\bresponse_format\b|\bjson_schema\b|\btext\.format\b|\boutput_config\.format\b|\boutput_format\b|\bstructured outputs?\b/],
  ['reasoning_effort', /\breasoning_effort\b|\breasoning\.effort\b|\breasoning effort\b|\boutput_config\.effort\b/],
];

/**
 * The parameter a 400 refuses: from the body's `param` (OpenAI's `error.param`) when it names
 * one of ours, else the first one the message names; undefined when the 400 is not a refusal
 * of one of them (a bad value, a bad schema, a context too long) or not a 400 at all.
 */
export function refusedParam(error: unknown, modelName = ''): LessonParam | undefined {
  if (!(error instanceof LlmProviderError) || error.failure !== 'bad-request' || (error.status !== 400 && error.status !== 422)) return undefined;
  let text = refusalText(error).toLowerCase();
  if (!REFUSAL.test(text)) return undefined;
  // The model's own name may contain a parameter's word (`…-tools`); it is not what is refused.
  for (const name of [modelName, error.model]) if (name) text = text.split(name.toLowerCase()).join(' ');
  const strict = /\bstrict\b/.test(text);
  if (error.param) {
    const named = paramNamed(error.param);
    // Strict mode is refused on the tool or format that carries it.
    return strict && (named === 'tools' || named === 'response_format') ? 'strict' : named;
  }
  if (strict) return 'strict';
  let found: { param: LessonParam; at: number } | undefined;
  for (const [param, pattern] of NAMED) {
    const at = text.search(pattern);
    if (at >= 0 && (!found || at < found.at)) found = { param, at };
  }
  return found?.param;
}

function paramNamed(param: string): LessonParam | undefined {
  const p = param.toLowerCase();
  if (p.includes('strict')) return 'strict';
  if ((LESSON_PARAMS as readonly string[]).includes(p)) return p as LessonParam;
  if (p.startsWith('tool_choice')) return 'tool_choice';
  if (p.startsWith('tools') || p.startsWith('functions')) return 'tools';
  if (p.startsWith('reasoning')) return 'reasoning_effort';
  if (p.startsWith('response_format') || p.startsWith('text.format')) return 'response_format';
  return undefined;
}

/** Whether learning `param` would change what is sent (a lesson that changes nothing cannot help). */
function changes(capabilities: ModelCapabilities, param: LessonParam): boolean {
  return JSON.stringify(applyLessons(capabilities, [{ param }])) !== JSON.stringify(capabilities);
}

/** The server's own words, first line, without the model prefix and with anything key-like redacted. */
function refusalText(error: LlmProviderError): string {
  const prefix = `${error.model}: `;
  const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  // The SDK repeats the status in its own message ("HTTP 400: 400 Unsupported …").
  const line = redact(message.split('\n')[0] ?? '').replace(/^(HTTP (\d{3}): )\2 /, '$1');
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** The lesson as one line for the log and the run's history. */
export function describeLesson(lesson: ModelLesson): string {
  return `${lesson.model} (${lesson.providerId}) refused ${lesson.param}; it is no longer sent to this model: "${lesson.message}"`;
}

/** The lesson as a `model` run event, like an escalation: no tokens of its own (the retried call has its usage event). */
export function lessonToRunEvent(lesson: ModelLesson, ctx: Omit<RunEventContext, 'purpose'>): RunEvent {
  return {
    runId: ctx.runId,
    seq: ctx.seq,
    at: ctx.at,
    ...(ctx.phase ? { phase: ctx.phase } : {}),
    kind: 'model',
    message: describeLesson(lesson),
    ...(ctx.role ? { role: ctx.role } : {}),
    model: lesson.model,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
  };
}
