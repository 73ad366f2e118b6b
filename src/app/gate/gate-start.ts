import { readFileSync, statSync } from 'node:fs';

/**
 * When the stop hook began, as the fingerprint's change-time rule needs it (workspace-fingerprint.ts):
 * a watcher sees the hook's process the moment it is started and can write before Node has even
 * set its clock, so Node's own start (performance.timeOrigin) is too late. On Linux it is the start
 * of this process, or of the shell the host ran the hook through (`sh -c "… gate …"`) where that
 * shell started within a second before it, from /proc, never before it truly began (an honest
 * agent's last write is before its host runs the hook), or when /proc first showed it to anyone,
 * if that was earlier. Elsewhere: Node's start.
 */
export function gateStartMs(timeOrigin: number = performance.timeOrigin): number {
  if (process.platform !== 'linux') return timeOrigin;
  try {
    const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    const bootMs = Date.now() - uptime * 1000;
    let start = Math.min(timeOrigin, startedMs(process.pid, bootMs), looked(process.pid));
    // The shell the host started the hook through, if it started within a second before this process.
    const parent = process.ppid;
    if (parent > 1 && SHELLS.has(readFileSync(`/proc/${parent}/comm`, 'utf8').trim())) {
      const shell = startedMs(parent, bootMs);
      if (start - shell <= 1000) start = Math.min(start, shell, looked(parent));
    }
    return Number.isFinite(start) ? start : timeOrigin;
  } catch {
    return timeOrigin;
  }
}

/**
 * When a process was first looked at through /proc (its folder there is made then, dated by the same
 * coarse clock as files): a watcher must look before it can react, so its writes come at or after
 * it; an honest agent's writes came before the hook's process existed.
 */
function looked(pid: number): number {
  // Not "just after": a watcher's look and its write can fall in the same tick of that clock.
  return statSync(`/proc/${pid}`).ctimeMs;
}

const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ksh', 'fish']);

/**
 * A process's start (ms since the epoch) from /proc: field 22 of its stat, in clock ticks (100 a
 * second) since boot, rounded up to the tick's end, so it is never before the true start (boot
 * time from /proc/uptime, itself rounded down, errs the same way): a write made before the hook's
 * process began is never counted as one made during it.
 */
function startedMs(pid: number, bootMs: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return bootMs + (Number(fields[19]) + 1) * 10;
}
