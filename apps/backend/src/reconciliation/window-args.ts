import type { Window } from './finding.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The CLI's window: `--from <ISO> --to <ISO>` (to defaults to now) or `--hours N` (the last N
 * hours, 1..744). Anything else throws a RangeError naming the problem.
 */
export function parseWindowArgs(args: readonly string[], now: Date): Window {
  const values = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) {
    const flag = args[i] ?? '';
    const value = args[i + 1];
    if (!['--from', '--to', '--hours'].includes(flag) || value === undefined)
      throw new RangeError(`usage: reconcile --from <ISO time> [--to <ISO time>] | --hours <N> (bad argument ${flag || '(none)'})`);
    values.set(flag, value);
  }
  const hours = values.get('--hours');
  if (hours !== undefined) {
    if (values.has('--from') || values.has('--to')) throw new RangeError('--hours cannot be combined with --from/--to');
    if (!/^\d{1,3}$/.test(hours) || Number(hours) < 1 || Number(hours) > 744)
      throw new RangeError('--hours must be a whole number from 1 to 744');
    return { from: new Date(now.getTime() - Number(hours) * 3_600_000), to: now };
  }
  const from = timeOf(values.get('--from'), '--from');
  const to = values.has('--to') ? timeOf(values.get('--to'), '--to') : now;
  if (from === null) throw new RangeError('usage: reconcile --from <ISO time> [--to <ISO time>] | --hours <N>');
  if (to === null || from.getTime() >= to.getTime()) throw new RangeError('--from must be before --to');
  return { from, to };
}

function timeOf(value: string | undefined, flag: string): Date | null {
  if (value === undefined) return null;
  const at = new Date(value);
  if (!ISO.test(value) || Number.isNaN(at.getTime()))
    throw new RangeError(`${flag} must be an ISO 8601 time with a zone, e.g. 2026-01-31T00:00:00Z`);
  return at;
}
