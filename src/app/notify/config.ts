import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { formatProblem, parseYamlDataFile } from '../../model/data-file';

/**
 * Notifications are the person's: the webhooks live in a file of the user's config folder, and
 * a file or setting in the workspace can never add one. The workspace is the agent's to write
 * (and a cloned repository's to ship), and a webhook it could add would be a way to send the
 * work's evidence out. A config folder moved into the workspace (`XDG_CONFIG_HOME` set there,
 * as an agent could in its host's settings) is refused the same way, and said so.
 */

export const NOTIFICATION_EVENTS = ['run.finished', 'gate.released', 'criteria.tampered', 'loop.finished', 'schedule.failed', 'approval.waiting'] as const;
export const NotificationEvent = z.enum(NOTIFICATION_EVENTS);
export type NotificationEvent = z.infer<typeof NotificationEvent>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const Webhook = z
  .object({
    /** Where to POST; https, or http to this machine (a local receiver). */
    url: z.url({ protocol: /^https?$/ }).refine((u) => u.startsWith('https:') || isLoopback(u), { message: 'a webhook URL is https (http only to this machine: localhost, 127.0.0.1, [::1])' }),
    events: z.array(NotificationEvent).min(1, 'list at least one event'),
    /** The environment variable that holds the signing secret (never the secret itself in the file). */
    secretEnv: z.string().regex(ENV_NAME, 'secretEnv is the name of an environment variable (letters, digits, _), not the secret'),
    /** `slack`: the body is a Slack incoming webhook's `{ "text": … }`; default the JSON payload. */
    format: z.enum(['json', 'slack']).default('json'),
  })
  .strict();
export type Webhook = z.infer<typeof Webhook>;

export const NotificationsFile = z
  .object({
    version: z.literal(1).default(1),
    webhooks: z.array(Webhook).max(20).default([]),
  })
  .strict();
export type NotificationsFile = z.infer<typeof NotificationsFile>;

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}

export const NOTIFICATIONS_FILE_NAME = 'notifications.yaml';

/** The user's config folder for Ideal State: `$XDG_CONFIG_HOME/ideal-state`, `~/.config/ideal-state`, or the OS's own. */
export function userConfigFolder(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) && platform !== 'win32') return path.join(env.XDG_CONFIG_HOME, 'ideal-state');
  return defaultConfigFolder(env, platform);
}

function defaultConfigFolder(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'ideal-state');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'ideal-state');
  return path.join(home, '.config', 'ideal-state');
}

export interface LoadedNotifications {
  /** The file read (or looked for). */
  readonly file: string;
  readonly webhooks: readonly Webhook[];
  /** Bad input in the file, each `file:line:column: field: message`: no webhook is used then. */
  readonly problems: readonly string[];
  /** What was ignored and why (a workspace file, a folder inside the workspace). */
  readonly ignored: readonly string[];
}

export interface LoadOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  /** The workspace: a config file inside it is refused, and its own notifications files are named as ignored. */
  readonly workspace?: string;
  /** The editor's `idealState.notifications.file` (application scope), when set. */
  readonly settingFile?: string;
}

/** The workspace files that look like notification settings: never read, only said to be ignored. */
export const WORKSPACE_LOOKALIKES = ['notifications.yaml', '.ideal-state/notifications.yaml', '.ideal-state/notifications.yml'];

/** The user's webhooks, never throwing: a missing file is none, a bad one is its problems. */
export async function loadNotifications(options: LoadOptions = {}): Promise<LoadedNotifications> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const ignored: string[] = [];
  const candidates: { file: string; why: string }[] = [];
  if (options.settingFile) candidates.push({ file: path.resolve(options.settingFile), why: 'the setting idealState.notifications.file' });
  candidates.push({ file: path.join(userConfigFolder(env, platform), NOTIFICATIONS_FILE_NAME), why: 'XDG_CONFIG_HOME' });
  let file = path.join(defaultConfigFolder(env, platform), NOTIFICATIONS_FILE_NAME);
  for (const c of candidates) {
    if (options.workspace && (await inside(c.file, options.workspace))) {
      ignored.push(`${c.file} (from ${c.why}) is inside the workspace, which cannot add a webhook; it is ignored`);
      continue;
    }
    file = c.file;
    break;
  }
  if (options.workspace) {
    for (const rel of WORKSPACE_LOOKALIKES) {
      const there = path.join(options.workspace, rel);
      if (there !== file && (await fs.stat(there).catch(() => undefined))?.isFile()) ignored.push(`${there} is in the workspace, which cannot add a webhook; it is ignored (webhooks go in ${file})`);
    }
  }
  let text: string;
  try {
    const stat = await fs.stat(file);
    // A FIFO or a device would hold the read (and the command) forever.
    if (!stat.isFile()) return { file, webhooks: [], problems: [`${file}: not a regular file; no webhook is used`], ignored };
    if (stat.size > 256 * 1024) return { file, webhooks: [], problems: [`${file}: larger than 256 KB; no webhook is used`], ignored };
    text = await fs.readFile(file, 'utf8');
  } catch {
    return { file, webhooks: [], problems: [], ignored };
  }
  const parsed = parseYamlDataFile(file, text, NotificationsFile);
  if (!parsed.ok) return { file, webhooks: [], problems: parsed.problems.map(formatProblem), ignored };
  return { file, webhooks: parsed.value.webhooks, problems: [], ignored };
}

/** Whether `file` is inside the workspace, by its path or its real path (a symlink out of or into it). */
async function inside(file: string, workspace: string): Promise<boolean> {
  const within = (child: string, parent: string) => {
    const r = path.relative(parent, child);
    return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
  };
  if (within(path.resolve(file), path.resolve(workspace))) return true;
  const realWs = await fs.realpath(workspace).catch(() => path.resolve(workspace));
  let dir = path.resolve(file);
  const rest: string[] = [];
  for (;;) {
    const real = await fs.realpath(dir).catch(() => undefined);
    if (real !== undefined) return within(path.join(real, ...rest.reverse()), realWs);
    const parent = path.dirname(dir);
    if (parent === dir) return false;
    rest.push(path.basename(dir));
    dir = parent;
  }
}
