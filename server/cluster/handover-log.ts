/**
 * One line per team lease or run taken from another process, with the wall-clock time. A takeover is rare and worth
 * a line: the crash test reads these from the servers' logs to split a handover (kill → first progress) into its
 * phases, so scripts/crash/handover.ts parses exactly this shape.
 */
export function logHandover(what: 'team' | 'run', id: string, from: string, by: string, at = Date.now()): void {
  console.log(handoverLine(what, id, from, by, at));
}

export const handoverLine = (what: 'team' | 'run', id: string, from: string, by: string, at: number) =>
  `[handover] ${what} ${id} from ${from} by ${by} at ${at}`;

export const HANDOVER_LINE = /^\[handover\] (team|run) (\S+) from (\S+) by (\S+) at (\d+)$/;
