import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; 0 once it is gone. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, inside parentheses): utime is the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The processes whose parent is `parentPid`, with their command lines. */
export function childrenOf(parentPid: number): { pid: number; commandLine: string }[] {
  const children: { pid: number; commandLine: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parentPid) continue;
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\u0000', ' ');
      children.push({ pid: Number(entry), commandLine });
    } catch {
      // The process ended while the table was read.
    }
  }
  return children;
}

/** The whole machine's busy CPU seconds so far (all cores, every process: /proc/stat minus idle and iowait). */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, ...values] = line.trim().split(/\s+/);
  const ticks = values.map(Number);
  const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return (total - idle) / TICKS_PER_SECOND;
}
