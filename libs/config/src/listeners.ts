import { readFileSync } from 'node:fs';

/**
 * The process's soft limit on open files (RLIMIT_NOFILE, the "Max open files" row of
 * /proc/self/limits), or undefined where it cannot be read (not Linux) or is unlimited. Node raises
 * the soft limit to the hard one at start, so this is what every socket, file and pool connection of
 * the process shares. `read` is for tests.
 */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const row = text.split('\n').find((line) => line.startsWith('Max open files'));
  const soft = row?.slice('Max open files'.length).trim().split(/\s+/)[0];
  if (soft === undefined || !/^\d+$/.test(soft)) return undefined;
  return Number(soft);
}

/**
 * Descriptors no listener's cap may take: a fifth of the limit, at least 256 (the database pool,
 * outbound calls to the backend, the gateways and the providers, NATS, files, the event loop).
 */
export function fileReserve(limit: number): number {
  return Math.max(256, Math.ceil(limit / 5));
}

/** A problem with the connection caps, on the variable it names. */
export interface CapIssue {
  path: string[];
  message: string;
}

/** The caps each listener gets and what is wrong with the requested ones. */
export interface ResolvedCaps<K extends string> {
  caps: Record<K, number>;
  issues: CapIssue[];
}

/**
 * Each listener's connection cap. A cap set explicitly is taken as it is; together the explicit ones
 * must fit in what the open-file limit leaves after fileReserve (an issue on each of them otherwise).
 * An unset one gets its default, lowered (in proportion to the other unset defaults) to fit what the
 * explicit ones leave of that budget, so a service on a host with a low limit still starts with caps
 * it can hold. With no readable limit (`null`) every unset cap is its default.
 */
export function connectionCaps<K extends string>(
  requested: Record<K, number | undefined>,
  defaults: Record<K, number>,
  limit: number | null = openFileLimit() ?? null,
): ResolvedCaps<K> {
  const names = Object.keys(defaults) as K[];
  const caps = {} as Record<K, number>;
  const issues: CapIssue[] = [];
  const explicit = names.filter((n) => requested[n] !== undefined);
  const unset = names.filter((n) => requested[n] === undefined);
  for (const n of explicit) caps[n] = requested[n] as number;
  if (limit === null) {
    for (const n of unset) caps[n] = defaults[n];
    return { caps, issues };
  }
  const budget = limit - fileReserve(limit);
  const taken = explicit.reduce((sum, n) => sum + caps[n], 0);
  const left = budget - taken;
  if (taken > budget || (unset.length > 0 && left < unset.length)) {
    const named = explicit.length > 0 ? explicit.map((n) => `${n}=${caps[n]}`).join(', ') : 'all unset';
    for (const n of explicit.length > 0 ? explicit : unset)
      issues.push({
        path: [n],
        message: `the connection caps (${named}) must fit under the open-file limit (${limit}, of which ${fileReserve(limit)} are kept for files and outbound connections${unset.length > 0 ? ', and at least 1 for each unset cap' : ''}): lower them or raise the limit (ulimit -n)`,
      });
  }
  const wanted = unset.reduce((sum, n) => sum + defaults[n], 0);
  const scale = wanted <= Math.max(0, left) ? 1 : Math.max(0, left) / wanted;
  for (const n of unset) caps[n] = Math.max(1, Math.floor(defaults[n] * scale));
  return { caps, issues };
}
