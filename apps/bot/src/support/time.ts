/** Resolves after `ms`, or at once (without rejecting) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Waits for `promise` to settle, but at most `ms`; never rejects and leaves no timer behind. */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  const timeout = new AbortController();
  try {
    await Promise.race([promise.catch(() => undefined), sleep(ms, timeout.signal)]);
  } finally {
    timeout.abort();
  }
}
