import { z } from 'zod';
import { parseCron } from './cron';

/**
 * A schedule: a loop (`ideal-state loop --glob GLOB --isc TYPE`) started by a clock, on CI or on
 * one machine. What `schedule add` writes and `schedule list` reads back from the files.
 */
export const SCHEDULE_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;

export const ScheduleSpec = z
  .object({
    name: z.string().regex(SCHEDULE_NAME, 'a schedule name is 1 to 40 lower-case letters, digits or "-", starting with a letter or digit'),
    cron: z.string().superRefine((text, ctx) => {
      const read = parseCron(text);
      if (!read.ok) ctx.addIssue({ code: 'custom', message: read.message });
    }),
    glob: z.string().min(1),
    isc: z.string().min(1),
    /** CI: how many shards the matrix runs (1 to 256). */
    shards: z.number().int().min(1).max(256).default(1),
    /** Verify only (what a CI shard does); a local schedule may work the artifacts. */
    verifyOnly: z.boolean().default(true),
    effort: z.string().min(1).optional(),
  })
  .strict();
export type ScheduleSpec = z.infer<typeof ScheduleSpec>;

/** Where a schedule runs. */
export type ScheduleTarget = 'github' | 'crontab' | 'systemd';

/** A schedule read back from a file. */
export interface ListedSchedule {
  readonly target: ScheduleTarget;
  readonly file: string;
  readonly spec: ScheduleSpec;
}

/** What `--started-by` says: a person (the default), or a schedule by name. */
export type StartedBy = { readonly who: 'person' } | { readonly who: 'schedule'; readonly schedule: string };

/** `schedule:NAME` (the flag the written workflow and timer pass) or `person`; undefined when it is neither. */
export function parseStartedBy(text: string): StartedBy | undefined {
  if (text === 'person') return { who: 'person' };
  const m = /^schedule:(.+)$/.exec(text);
  return m && SCHEDULE_NAME.test(m[1]!) ? { who: 'schedule', schedule: m[1]! } : undefined;
}

/** The default name: the template's type in a name's letters (`docs.page` → `docs-page`). */
export function defaultScheduleName(isc: string): string {
  return isc.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'loop';
}
