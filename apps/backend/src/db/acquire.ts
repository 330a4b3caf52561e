import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import { isNetworkFailure } from '@wordgame/net-errors';

/** How long work outside a call (jobs, the reaper, CLIs) waits for a pool connection (ms). */
export const JOB_ACQUIRE_TIMEOUT_MS = 5_000;
/**
 * The hard cap on one checkout, a call's included (pg's connectionTimeoutMillis): a call without a
 * deadline, or a connection attempt that hangs, still ends; kept short so connection attempts
 * hanging on a failing-over database free their pool slots soon after it is back.
 */
export const ACQUIRE_CAP_MS = 15_000;

/**
 * Waits before another try at opening a connection that failed on the network (a DNS answer
 * missing for a moment while a container network settles, a refused connect during a database
 * restart): nothing was sent yet, so trying again is safe; after these the failure is the answer.
 */
export const CONNECT_RETRY_DELAYS_MS: readonly number[] = [100, 250];

/** The message pg gives its own checkout timeout; the unavailable-database classifier knows it. */
const TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

type Done = (release?: unknown) => void;
type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: Done) => void;
type Connect = (callback?: ConnectCallback) => Promise<pg.PoolClient> | undefined;

const callSignals = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `fn` as part of a call whose signal aborts at its deadline or when its caller goes away:
 * every pool checkout inside waits for a connection as long as the call may last, not a fixed
 * time, so a busy pool makes a call slower but never fails one its caller still waits for.
 */
export function withinCall<T>(signal: AbortSignal, fn: () => T): T {
  return callSignals.run(signal, fn);
}

/**
 * Bounds every checkout of `pool` (kysely's, pool.query's and prepared statements' alike: both
 * call forms of `connect` are wrapped): inside withinCall until the call's signal aborts (the
 * checkout rejects with the signal's reason), elsewhere JOB_ACQUIRE_TIMEOUT_MS (pg's own timeout
 * error). A connection granted after its waiter gave up goes straight back to the pool. A new
 * connection that fails on the network is tried again after each of CONNECT_RETRY_DELAYS_MS while
 * the checkout may still wait.
 */
export function boundCheckouts(pool: pg.Pool, jobTimeoutMs = JOB_ACQUIRE_TIMEOUT_MS): void {
  const holder = pool as unknown as { connect: Connect };
  const connect = holder.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const acquire = (): Promise<pg.PoolClient> => {
    const signal = callSignals.getStore();
    if (signal?.aborted) return Promise.reject(reasonOf(signal));
    return new Promise((resolve, reject) => {
      let settled = false;
      const giveUp = (err: Error) => {
        if (settled) return;
        settled = true;
        reject(err);
      };
      const onAbort = () => giveUp(signal ? reasonOf(signal) : new Error(TIMEOUT_MESSAGE));
      const timer = signal ? undefined : setTimeout(onAbort, jobTimeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      const attempt = (retries: number) => {
        connect().then(
          (client) => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            if (settled) client.release();
            else {
              settled = true;
              resolve(client);
            }
          },
          (err: unknown) => {
            const delay = CONNECT_RETRY_DELAYS_MS[retries];
            if (!settled && delay !== undefined && isNetworkFailure(err)) {
              setTimeout(() => {
                if (!settled) attempt(retries + 1);
              }, delay);
              return;
            }
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            giveUp(asError(err));
          },
        );
      };
      attempt(0);
    });
  };
  holder.connect = (callback) => {
    if (!callback) return acquire();
    acquire().then(
      (client) => callback(undefined, client, (release) => client.release(release as boolean | Error | undefined)),
      (err: unknown) => callback(asError(err), undefined, () => undefined),
    );
    return undefined;
  };
}

/** The call's abort reason (connect's DeadlineExceeded or Canceled), as the checkout's rejection. */
function reasonOf(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the call ended', { cause: signal.reason });
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
