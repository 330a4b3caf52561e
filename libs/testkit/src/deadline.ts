/**
 * Awaits `work`, failing with `what` if it has not settled `deadlineMs` after the call. A test
 * gives a wait the deadline of what it replaces (the command's own deadline, the keep-alive
 * timeout, the long poll it cuts short), never a guess at how fast the machine is; the rule
 * `wordgame/no-elapsed-upper-bound` refuses elapsed-time upper bounds written as assertions.
 */
export async function settlesWithin<T>(work: Promise<T>, deadlineMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not settled within ${deadlineMs} ms`)), deadlineMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * True when `work` settles before a macrotask turn has passed: it finished from work already
 * done (microtasks), with no timer or I/O wait in between, however busy the machine is.
 */
export async function settlesAtOnce(work: Promise<unknown>): Promise<boolean> {
  const later = new Promise<false>((resolve) => setImmediate(() => resolve(false)));
  return Promise.race([work.then(() => true as const), later]);
}
