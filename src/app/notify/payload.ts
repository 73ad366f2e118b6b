import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { redactEvidence } from '../../verify/secret-env';
import { NotificationEvent } from './config';

/**
 * The body every webhook gets (docs/notifications.md): versioned by `schema`, one `event`, when,
 * which workspace (its folder name, not the path: a path names the user), who started the work,
 * and the event's `data`. Every string in `data` goes through the redaction reports use, and
 * evidence is clipped: a payload leaves the machine.
 */
export const PAYLOAD_SCHEMA = 'ideal-state.notification/v1';

const Failing = z.object({ id: z.string(), outcome: z.string(), evidence: z.string() }).strict();
const StartedBy = z.object({ who: z.enum(['person', 'schedule']), schedule: z.string().optional() }).strict();

/** Each event's data: what a receiver can rely on, per event. */
export const EVENT_DATA = {
  'run.finished': z.object({ runId: z.string(), state: z.string(), reason: z.string().optional(), prd: z.string().optional(), passing: z.number().int(), total: z.number().int(), failing: z.array(Failing) }).strict(),
  'gate.released': z.object({ host: z.string(), why: z.enum(['block-limit', 'agent-blocked']), summary: z.string(), prds: z.array(z.object({ prd: z.string(), failing: z.array(Failing) }).strict()) }).strict(),
  'criteria.tampered': z.object({ host: z.string().optional(), prd: z.string(), changes: z.array(z.object({ id: z.string(), summary: z.string() }).strict()) }).strict(),
  'loop.finished': z.object({ loopId: z.string(), state: z.string(), reason: z.string().optional(), passing: z.number().int(), total: z.number().int(), unmet: z.array(z.string()), prd: z.string().optional() }).strict(),
  'schedule.failed': z.object({ schedule: z.string(), loopId: z.string().optional(), state: z.string(), reason: z.string() }).strict(),
  'approval.waiting': z.object({ runId: z.string(), kind: z.string(), subject: z.string() }).strict(),
} as const satisfies Record<NotificationEvent, z.ZodType>;

export type EventData<E extends NotificationEvent> = z.input<(typeof EVENT_DATA)[E]>;

export const NotificationPayload = z
  .object({
    schema: z.literal(PAYLOAD_SCHEMA),
    id: z.string(),
    event: NotificationEvent,
    at: z.iso.datetime(),
    workspace: z.string().optional(),
    startedBy: StartedBy.nullable(),
    /** A test delivery (`ideal-state notify test`): not a real event. */
    test: z.boolean(),
    data: z.record(z.string(), z.unknown()),
  })
  .strict();
export type NotificationPayload = z.infer<typeof NotificationPayload>;

/** Evidence and other free text, at most this long in a payload. */
export const MAX_TEXT = 2000;
/** At most this many failing criteria or artifacts listed. */
export const MAX_ITEMS = 50;

export interface PayloadContext {
  readonly workspace?: string;
  readonly startedBy?: z.infer<typeof StartedBy>;
  readonly test?: boolean;
  readonly now?: Date;
}

export function buildPayload<E extends NotificationEvent>(event: E, data: EventData<E>, context: PayloadContext = {}): NotificationPayload {
  const checked = EVENT_DATA[event].parse(data) as Record<string, unknown>;
  return {
    schema: PAYLOAD_SCHEMA,
    id: randomUUID(),
    event,
    at: (context.now ?? new Date()).toISOString(),
    ...(context.workspace ? { workspace: clean(context.workspace.split(/[\\/]/).filter(Boolean).pop() ?? '') } : {}),
    startedBy: context.startedBy ?? null,
    test: context.test === true,
    data: clean(checked) as Record<string, unknown>,
  };
}

/** Every string redacted and clipped, every list bounded. */
function clean<T>(value: T): T {
  if (typeof value === 'string') {
    const text = redactEvidence(value).text;
    return (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text) as T;
  }
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map(clean) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v)])) as T;
  return value;
}

/** A one-line summary of a payload, for Slack and for the log. */
export function describePayload(p: NotificationPayload): string {
  const d = p.data as Record<string, unknown>;
  const where = p.workspace ? ` in ${p.workspace}` : '';
  const by = p.startedBy?.who === 'schedule' ? ` (schedule ${p.startedBy.schedule})` : '';
  const test = p.test ? '[test] ' : '';
  switch (p.event) {
    case 'run.finished':
      return `${test}Run ${d.runId} finished ${d.state}${where}: ${d.passing}/${d.total} criteria passing${by}`;
    case 'gate.released':
      return `${test}The done gate let the ${d.host} agent stop with criteria unmet${where} (${d.why}): ${d.summary}`;
    case 'criteria.tampered':
      return `${test}Criteria of ${d.prd} were changed since a person approved them${where}: ${(d.changes as { id: string }[]).map((c) => c.id).join(', ')}`;
    case 'loop.finished':
      return `${test}Loop ${d.loopId} finished ${d.state}${where}: ${d.passing}/${d.total} artifacts passing${by}`;
    case 'schedule.failed':
      return `${test}Schedule ${d.schedule} failed${where}: ${d.state}: ${d.reason}`;
    case 'approval.waiting':
      return `${test}Run ${d.runId} waits for a person to approve ${d.kind}: ${d.subject}${where}`;
  }
}

/** A Slack incoming webhook's body: `{ "text": … }` (https://api.slack.com/messaging/webhooks). */
export function slackBody(p: NotificationPayload): { text: string } {
  // Slack reads &, < and > as its own markup (https://api.slack.com/reference/surfaces/formatting#escaping).
  return { text: describePayload(p).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') };
}
