import { parseCron, type Cron } from './cron';
import { ScheduleSpec, type ListedSchedule } from './schedule';

/**
 * A schedule on one machine: a user crontab line, and a systemd user timer with its service,
 * shown for the person to install (never installed here: a line in someone's crontab is theirs
 * to add). Both run the command line by absolute paths (cron and systemd start with a bare
 * PATH) in the workspace, with `--started-by schedule:NAME`.
 */

export interface LocalCommand {
  /** The node program and the command line's script, absolute. */
  readonly node: string;
  readonly cli: string;
  /** The workspace, absolute. */
  readonly workspace: string;
  /** Where the crontab line appends the loop's output. */
  readonly logFile: string;
}

export const unitName = (name: string) => `ideal-state-${name}`;

/** The loop's arguments (without the program). */
export function loopArgs(spec: ScheduleSpec, workspace: string): string[] {
  return ['loop', '--workspace', workspace, '--glob', spec.glob, '--isc', spec.isc, ...(spec.effort ? ['--effort', spec.effort] : []), ...(spec.verifyOnly ? ['--verify-only'] : []), '--started-by', `schedule:${spec.name}`];
}

/** A word for sh: single-quoted, a quote inside as `'\''`. */
const sh = (word: string) => (/^[A-Za-z0-9_./:=@-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * The crontab line. In a crontab an unescaped `%` ends the command (the rest is its standard
 * input), so each is written `\%`; a line break would end the entry, so none is allowed. It makes
 * its log's folder first: nothing is installed when the line is shown, and sh refuses to append
 * to a file in a folder that does not exist (the loop would never start).
 */
export function crontabLine(spec: ScheduleSpec, c: LocalCommand): string {
  const command = [c.node, c.cli, ...loopArgs(spec, c.workspace)].map(sh).join(' ');
  const logFolder = c.logFile.slice(0, Math.max(1, c.logFile.lastIndexOf('/')));
  const line = `${spec.cron} mkdir -p ${sh(logFolder)} && ${command} >> ${sh(c.logFile)} 2>&1 # ideal-state schedule ${spec.name}`;
  return line.replace(/%/g, '\\%').replace(/[\r\n]+/g, ' ');
}

/** A word for systemd's ExecStart: double-quoted; `\` and `"` escaped, `%` as `%%` (a specifier), `$` as `$$` (a variable). */
const unitWord = (word: string) => `"${word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
const unitValue = (s: string) => s.replace(/[\r\n]+/g, ' ').replace(/%/g, '%%');

export function systemdService(spec: ScheduleSpec, c: LocalCommand): string {
  return [
    '[Unit]',
    `Description=Ideal State schedule ${spec.name}: the loop over ${unitValue(spec.glob)} against ${unitValue(spec.isc)}`,
    '',
    '[Service]',
    'Type=oneshot',
    // A path, not a command line: systemd takes it as written (quotes would make it relative and refused), `%` as a specifier.
    `WorkingDirectory=${unitValue(c.workspace)}`,
    `ExecStart=${[c.node, c.cli, ...loopArgs(spec, c.workspace)].map(unitWord).join(' ')}`,
    '',
  ].join('\n');
}

/** The timer: one OnCalendar per cron (two when both day fields are set: cron runs on either, systemd on both). */
export function systemdTimer(spec: ScheduleSpec): string {
  const read = parseCron(spec.cron);
  if (!read.ok) throw new Error(read.message);
  return [
    '[Unit]',
    `Description=Ideal State schedule ${spec.name} (cron ${spec.cron})`,
    // systemd ignores settings that start with X-: these are what `schedule list` reads back.
    `X-IdealState-Schedule=${spec.name}`,
    `X-IdealState-Cron=${spec.cron}`,
    `X-IdealState-Glob=${unitValue(spec.glob)}`,
    `X-IdealState-Isc=${unitValue(spec.isc)}`,
    ...(spec.effort ? [`X-IdealState-Effort=${unitValue(spec.effort)}`] : []),
    `X-IdealState-VerifyOnly=${spec.verifyOnly}`,
    '',
    '[Timer]',
    ...onCalendar(read.cron).map((c) => `OnCalendar=${c}`),
    'Persistent=true',
    `Unit=${unitName(spec.name)}.service`,
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
  ].join('\n');
}

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** systemd.time(7) calendar events for a cron: each field its list of values, `*` when any. */
export function onCalendar(cron: Cron): string[] {
  const [minute, hour, dom, month, dow] = cron.fields;
  const list = (f: Cron['fields'][number], pad: boolean) => (f.any ? '*' : f.values.map((v) => (pad ? String(v).padStart(2, '0') : String(v))).join(','));
  const time = `${list(hour!, true)}:${list(minute!, true)}:00`;
  const date = (days: string) => `*-${list(month!, true)}-${days}`;
  const weekdays = dow!.values.map((d) => DAY_NAMES[d]).join(',');
  if (dom!.any && dow!.any) return [`${date('*')} ${time}`];
  if (dow!.any) return [`${date(list(dom!, true))} ${time}`];
  if (dom!.any) return [`${weekdays} ${date('*')} ${time}`];
  return [`${date(list(dom!, true))} ${time}`, `${weekdays} ${date('*')} ${time}`];
}


/** Schedules in a crontab's text (`crontab -l`): the lines `crontabLine` wrote. */
export function readCrontab(text: string, file = 'crontab'): (ListedSchedule | string)[] {
  const found: (ListedSchedule | string)[] = [];
  for (const raw of text.split('\n')) {
    const m = /# ideal-state schedule ([a-z0-9-]+)\s*$/.exec(raw);
    if (!m || raw.trimStart().startsWith('#')) continue;
    const fields = raw.trim().split(/\s+/);
    const words = shWords(raw.replace(/\\%/g, '%').trim().split(/\s+/).slice(5).join(' '));
    const arg = (flag: string) => {
      const i = words.indexOf(flag);
      return i >= 0 ? words[i + 1] : undefined;
    };
    const spec = ScheduleSpec.safeParse({ name: m[1], cron: fields.slice(0, 5).join(' '), glob: arg('--glob'), isc: arg('--isc'), verifyOnly: words.includes('--verify-only'), ...(arg('--effort') ? { effort: arg('--effort') } : {}) });
    found.push(spec.success ? { target: 'crontab', file, spec: spec.data } : `${file}: the line of schedule ${m[1]}: ${spec.error.issues.map((i) => i.message).join('; ')}`);
  }
  return found;
}

/** Words of a sh command line as `sh` above quotes them (single quotes, `'\''`), up to a `>>`. */
function shWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      word = (word ?? '') + text.slice(i + 1, end < 0 ? text.length : end);
      i = end < 0 ? text.length : end;
    } else if (ch === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + ch;
  }
  if (word !== undefined) words.push(word);
  const stop = words.indexOf('>>');
  return stop >= 0 ? words.slice(0, stop) : words;
}

/** A timer file `systemdTimer` wrote, read back from its X-IdealState settings. */
export function readSystemdTimer(file: string, text: string): ListedSchedule | string | undefined {
  const get = (key: string) => new RegExp(`^X-IdealState-${key}=(.*)$`, 'm').exec(text)?.[1]?.replace(/%%/g, '%');
  const name = get('Schedule');
  if (name === undefined) return undefined;
  const effort = get('Effort');
  const spec = ScheduleSpec.safeParse({ name, cron: get('Cron'), glob: get('Glob'), isc: get('Isc'), verifyOnly: get('VerifyOnly') === 'true', ...(effort ? { effort } : {}) });
  return spec.success ? { target: 'systemd', file, spec: spec.data } : `${file}: ${spec.error.issues.map((i) => `${i.path.join('.') || 'schedule'}: ${i.message}`).join('; ')}`;
}
