import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { gateStateRoot } from '../gate/state-folder';
import { loadNotifications, type LoadedNotifications, type NotificationEvent } from './config';
import { DEFAULT_LIMITS, deliver, nodeDelivery, shownUrl, signedRequest, type DeliveryLimits, type DeliveryPorts, type DeliveryResult } from './deliver';
import { buildPayload, type EventData, type NotificationPayload, type PayloadContext } from './payload';

/**
 * The one way an event reaches the person's webhooks: the user's file read (never the
 * workspace's), each webhook that lists the event sent the payload, each failure said through
 * `warn` (a CLI's stderr, the editor's log channel) and kept in the notifications log.
 */

export interface NotifyOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly workspace?: string;
  readonly settingFile?: string;
  readonly delivery?: DeliveryPorts;
  readonly limits?: DeliveryLimits;
  /** A line for the person: a failed delivery, a refused file. */
  readonly warn?: (line: string) => void;
  /** The config already read (a caller that checked whether anyone listens). */
  readonly loaded?: LoadedNotifications;
}

export interface Sent {
  readonly url: string;
  readonly result: DeliveryResult;
}

/** Whether any webhook of the person's file listens for the event (cheap: read before building anything). */
export async function listeners(event: NotificationEvent, options: NotifyOptions = {}): Promise<LoadedNotifications & { listening: boolean }> {
  const loaded = options.loaded ?? (await loadNotifications({ env: options.env ?? process.env, ...(options.workspace ? { workspace: options.workspace } : {}), ...(options.settingFile ? { settingFile: options.settingFile } : {}) }));
  return { ...loaded, listening: loaded.webhooks.some((w) => w.events.includes(event)) };
}

export async function notify<E extends NotificationEvent>(event: E, data: EventData<E>, context: PayloadContext, options: NotifyOptions = {}): Promise<Sent[]> {
  const loaded = await listeners(event, options);
  for (const line of [...loaded.problems, ...loaded.ignored]) options.warn?.(`Ideal State notifications: ${line}`);
  if (!loaded.listening) return [];
  return sendPayload(buildPayload(event, data, { ...context, ...(options.workspace ? { workspace: options.workspace } : {}) }), { ...options, loaded });
}

/** Sends a built payload to every webhook of the file that lists its event. */
export async function sendPayload(payload: NotificationPayload, options: NotifyOptions & { loaded: LoadedNotifications }): Promise<Sent[]> {
  const env = options.env ?? process.env;
  const hooks = options.loaded.webhooks.filter((w) => w.events.includes(payload.event));
  const sent = await Promise.all(
    hooks.map(async (w): Promise<Sent> => {
      const signed = signedRequest(w, payload, env);
      const result = signed.ok ? await deliver(w.url, signed.body, signed.headers, options.delivery ?? nodeDelivery, options.limits ?? DEFAULT_LIMITS) : { ok: false, attempts: 0, error: signed.error };
      return { url: w.url, result };
    }),
  );
  const lines = sent.map((s) => `${payload.at} ${payload.event} ${payload.id} ${shownUrl(s.url)} ${s.result.ok ? `delivered (attempt ${s.result.attempts})` : `FAILED after ${s.result.attempts} attempt${s.result.attempts === 1 ? '' : 's'}: ${s.result.error}`}`);
  for (const s of sent) if (!s.result.ok) options.warn?.(`Ideal State: the ${payload.event} notification to ${shownUrl(s.url)} failed: ${s.result.error} (after ${s.result.attempts} attempt${s.result.attempts === 1 ? '' : 's'}; ${notificationsLog(env)})`);
  await appendLog(lines, env).catch(() => undefined);
  return sent;
}

/** The notifications log: one line per delivery, in the user's state folder (never the workspace). */
export function notificationsLog(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(gateStateRoot(env), 'notifications.log');
}

/** A line in the notifications log (where the gate, whose stderr is its host's, says what went wrong). Never throws. */
export async function logLine(line: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await appendLog([`${new Date().toISOString()} ${line}`], env).catch(() => undefined);
}

async function appendLog(lines: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  if (lines.length === 0) return;
  const file = notificationsLog(env);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.appendFile(file, `${lines.join('\n')}\n`, 'utf8');
}
