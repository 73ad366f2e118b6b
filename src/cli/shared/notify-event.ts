import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { gateStateRoot } from '../../app/gate/state-folder';
import type { NotificationEvent } from '../../app/notify/config';
import { listeners, notify } from '../../app/notify/notifier';
import { buildPayload, type EventData, type PayloadContext } from '../../app/notify/payload';

/**
 * How the command line's event sources reach the webhooks. A command that has printed its
 * answer (run, loop) delivers in its own process, bounded by the delivery limits; the gate,
 * which must answer its host within a deadline, hands the payload to a detached process and
 * exits: a receiver that is down never holds the host or the agent.
 */

type Warn = (line: string) => void;

/** In this process, after the command's answer. Never throws. */
export async function notifyNow<E extends NotificationEvent>(event: E, data: EventData<E>, context: PayloadContext, options: { workspace: string; warn: Warn; env?: NodeJS.ProcessEnv }): Promise<void> {
  await notify(event, data, context, { workspace: options.workspace, warn: options.warn, ...(options.env ? { env: options.env } : {}) }).catch((error: unknown) => options.warn(`Ideal State: the ${event} notification was not sent: ${error instanceof Error ? error.message : String(error)}`));
}

/** The folder of payloads waiting for the detached deliverer, in the user's state folder. */
export const queueFolder = (env: NodeJS.ProcessEnv) => path.join(gateStateRoot(env), 'notify-queue');

/**
 * From a detached process: the payload (built and redacted here) is written, readable by the
 * user alone, and `ideal-state notify deliver FILE` is started without waiting for it. Returns
 * at once when no webhook listens. Never throws.
 */
export async function notifyDetached<E extends NotificationEvent>(event: E, data: EventData<E>, context: PayloadContext, options: { workspace: string; warn: Warn; env?: NodeJS.ProcessEnv }): Promise<void> {
  const env = options.env ?? process.env;
  try {
    const loaded = await listeners(event, { env, workspace: options.workspace });
    for (const line of [...loaded.problems, ...loaded.ignored]) options.warn(`Ideal State notifications: ${line}`);
    if (!loaded.listening) return;
    const payload = buildPayload(event, data, { ...context, workspace: options.workspace });
    const folder = queueFolder(env);
    await fs.mkdir(folder, { recursive: true, mode: 0o700 });
    const file = path.join(folder, `${randomUUID()}.json`);
    await fs.writeFile(file, JSON.stringify({ payload, workspace: options.workspace }), { encoding: 'utf8', mode: 0o600 });
    const child = spawn(process.execPath, [path.join(__dirname, 'cli.js'), 'notify', 'deliver', file], { detached: true, stdio: 'ignore', env, windowsHide: true });
    child.on('error', (error) => options.warn(`Ideal State: the ${event} notification was not handed off: ${error.message}`));
    child.unref();
  } catch (error) {
    options.warn(`Ideal State: the ${event} notification was not sent: ${error instanceof Error ? error.message : String(error)}`);
  }
}
