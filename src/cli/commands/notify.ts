import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { loadNotifications, NOTIFICATION_EVENTS, NotificationEvent } from '../../app/notify/config';
import { shownUrl } from '../../app/notify/deliver';
import { sendPayload } from '../../app/notify/notifier';
import { buildPayload, NotificationPayload } from '../../app/notify/payload';
import { defineCommand } from '../shared/command';
import { queueFolder } from '../shared/notify-event';
import { NOTIFY_USAGE } from '../shared/usage';

type Output = { out: (s: string) => void; err: (s: string) => void };


const NOTIFY = defineCommand({ name: 'ideal-state notify', usage: NOTIFY_USAGE, options: { workspace: { type: 'string' }, event: { type: 'string' }, json: { type: 'boolean', default: false } } });

/** `ideal-state notify check|test`, and `notify deliver FILE`: the detached deliverer the gate starts. */
export async function notifyCommand(argv: string[], io: Output, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = NOTIFY.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values: v, positionals } = parsed;
  const workspace = path.resolve(v.workspace ?? process.cwd());
  if (positionals[0] === 'deliver' && positionals.length === 2) return deliverQueued(positionals[1]!, env);
  if (positionals.length !== 1 || (positionals[0] !== 'test' && positionals[0] !== 'check')) return NOTIFY.usageError(io, 'say check or test');
  const event = v.event === undefined ? undefined : NotificationEvent.safeParse(v.event);
  if (event && !event.success) return NOTIFY.usageError(io, `--event takes one of ${NOTIFICATION_EVENTS.join(', ')}, not "${v.event}"`);
  const loaded = await loadNotifications({ env, workspace });
  for (const line of loaded.ignored) io.err(`ideal-state notify: ${line}`);
  if (loaded.problems.length > 0) {
    for (const p of loaded.problems) io.err(`ideal-state notify: ${p}`);
    io.err('No webhook is used until the file is fixed.');
    return 2;
  }
  if (loaded.webhooks.length === 0) {
    io.err(`ideal-state notify: no webhooks in ${loaded.file} (docs/notifications.md says how to add one)`);
    return positionals[0] === 'check' ? 0 : 2;
  }
  if (positionals[0] === 'check') {
    for (const w of loaded.webhooks) io.out(`${shownUrl(w.url)}  ${w.events.join(', ')}  secret in ${w.secretEnv}${env[w.secretEnv] ? '' : ' (NOT SET)'}${w.format === 'slack' ? '  slack' : ''}`);
    io.out(`from ${loaded.file}`);
    return 0;
  }
  let failed = 0;
  let sent = 0;
  for (const w of loaded.webhooks) {
    const e = event?.data ?? w.events[0]!;
    if (!w.events.includes(e)) continue;
    const payload = buildPayload(e, sampleData(e) as never, { workspace, test: true });
    const [one] = await sendPayload(payload, { env, loaded: { ...loaded, webhooks: [w] }, warn: io.err });
    sent++;
    if (one && one.result.ok) io.out(`sent ${e} to ${shownUrl(w.url)}: HTTP ${one.result.status} (attempt ${one.result.attempts})`);
    else failed++;
  }
  if (sent === 0) io.err(`ideal-state notify: no webhook lists ${event?.data}`);
  return failed > 0 || sent === 0 ? 1 : 0;
}

/** A test delivery's data: each event's shape, with made-up values. */
function sampleData(event: NotificationEvent): unknown {
  const failing = [{ id: 'ISC-1', outcome: 'FAIL', evidence: 'a test notification: no criterion was verified' }];
  switch (event) {
    case 'run.finished':
      return { runId: 'run-test', state: 'COMPLETE', passing: 1, total: 1, failing: [] };
    case 'gate.released':
      return { host: 'test', why: 'block-limit', summary: 'a test notification', prds: [{ prd: 'PRD-test.md', failing }] };
    case 'criteria.tampered':
      return { prd: 'PRD-test.md', changes: [{ id: 'ISC-1', summary: 'a test notification' }] };
    case 'loop.finished':
      return { loopId: 'loop-test', state: 'COMPLETE', passing: 1, total: 1, unmet: [] };
    case 'schedule.failed':
      return { schedule: 'test', state: 'FAILED', reason: 'a test notification' };
    case 'approval.waiting':
      return { runId: 'run-test', kind: 'edit', subject: 'a test notification' };
  }
}

/** The detached deliverer: one queued payload, sent, then removed. Writes nowhere but the notifications log. */
async function deliverQueued(file: string, env: NodeJS.ProcessEnv): Promise<number> {
  // Only a file of the queue folder: this subcommand sends what it is given to the person's webhooks.
  if (path.dirname(path.resolve(file)) !== queueFolder(env)) return 2;
  let job: { payload: unknown; workspace?: string };
  try {
    job = JSON.parse(await fs.readFile(file, 'utf8')) as typeof job;
  } catch {
    return 2;
  } finally {
    await fs.rm(file, { force: true });
  }
  const payload = NotificationPayload.safeParse(job.payload);
  if (!payload.success) return 2;
  const loaded = await loadNotifications({ env, ...(job.workspace ? { workspace: job.workspace } : {}) });
  const sent = await sendPayload(payload.data, { env, loaded, warn: () => undefined });
  return sent.every((s) => s.result.ok) ? 0 : 1;
}
