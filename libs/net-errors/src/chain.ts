/**
 * How many levels below a failure the classifiers look: `cause` links and AggregateError members
 * each count as one level. A transport wraps a socket error two or three times (a Connect error
 * around Node's HTTP/2 stream cancel around the ECONNREFUSED); eight leaves room without walking
 * an unbounded chain.
 */
export const CAUSE_LEVELS = 8;

/** The most errors one walk visits, so a wide AggregateError (or a tree of them) stays cheap. */
export const MAX_ERRORS = 64;

/**
 * The one rule every classifier follows: `err` and the errors it wraps, breadth first (nearest
 * first), down to CAUSE_LEVELS levels below it: its `cause`, and the members of its `errors` array
 * (an AggregateError's, as Node's happy-eyeballs connect gives when every address failed). Each
 * object is visited once, so a cycle in `cause` ends the walk; non-objects (a thrown string, an
 * undefined cause) are left out. Duck-typed, not `instanceof Error`: errors made in another realm
 * (jest's vm) must classify the same.
 */
export function causeChain(err: unknown): object[] {
  const seen = new Set<object>();
  let level: unknown[] = [err];
  for (let depth = 0; depth <= CAUSE_LEVELS && level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const e of level) {
      if (typeof e !== 'object' || e === null || seen.has(e)) continue;
      if (seen.size === MAX_ERRORS) return [...seen];
      seen.add(e);
      const { cause, errors } = e as { cause?: unknown; errors?: unknown };
      next.push(cause);
      if (Array.isArray(errors)) next.push(...(errors as unknown[]));
    }
    level = next;
  }
  return [...seen];
}
