import { isIP } from 'node:net';
import { Code, ConnectError, type Transport } from '@connectrpc/connect';
import type { Logger } from '@wordgame/logging';
import { expandEndpoints, neverReached, type ClosableTransport, type ResolveAll } from '@wordgame/h2-unary';

/** Makes the transport of one backend replica (its own HTTP/2 session) from its base URL. */
export type TransportFactory = (baseUrl: string) => ClosableTransport;

/** How long a replica that refused a connection or a stream is passed over before it is tried again. */
export const REPLICA_COOLDOWN_MS = 1_000;

export interface BackendPoolOptions {
  /** BACKEND_URL: the configured URLs; each host name stands for all of its DNS addresses. */
  urls: readonly string[];
  factory: TransportFactory;
  /** How often host names are resolved again (ms); 0 = only at start. */
  refreshMs: number;
  logger?: Logger;
  resolve?: ResolveAll;
}

interface Replica {
  readonly url: string;
  readonly transport: ClosableTransport;
  inFlight: number;
  /** performance.now() until which the replica is passed over. */
  downUntil: number;
}

/** A Connect transport over every backend replica that can also follow DNS and close. */
export interface BackendPool extends ClosableTransport {
  /** The replica URLs in use now (observability and tests). */
  replicas(): string[];
  /** Resolves the configured URLs again now (also done every `refreshMs`). */
  refresh(): Promise<void>;
}

/**
 * Spreads the gateway's backend calls over every replica: one transport (one HTTP/2 session) per
 * replica address, each call on the replica with the fewest calls in flight (ties in turn). A
 * replica that refused a connection or a stream (a draining backend's GOAWAY, HTTP/2
 * REFUSED_STREAM) is passed over for REPLICA_COOLDOWN_MS, and a unary call that surely never
 * reached it is sent to the next replica; a call that may have reached a backend is never sent
 * twice and fails as the transport reported it (Unavailable → 503 at the edge). Host names are
 * re-resolved every `refreshMs`: new addresses join, vanished ones are closed once their calls
 * end. Streams (WatchGame) are placed the same way but not retried.
 */
export function createBackendPool(options: BackendPoolOptions): BackendPool {
  const replicas = new Map<string, Replica>();
  let order: Replica[] = [];
  let turn = 0;
  let closed = false;
  const hostNames = options.urls.some((u) => !isLiteral(u));

  const setReplicas = (urls: string[]): void => {
    for (const url of urls) {
      if (!replicas.has(url)) replicas.set(url, { url, transport: options.factory(url), inFlight: 0, downUntil: 0 });
    }
    for (const [url, replica] of replicas) {
      if (urls.includes(url)) continue;
      replicas.delete(url);
      replica.transport.close();
      options.logger?.info({ replica: url }, 'backend replica left');
    }
    order = [...replicas.values()];
  };
  // Addresses are usable at once; host names are added as soon as they resolve.
  setReplicas(options.urls.filter(isLiteral).map((u) => u.replace(/\/+$/, '')));

  const refresh = async (): Promise<void> => {
    const urls = await expandEndpoints(options.urls, options.resolve, (url, err) =>
      options.logger?.warn({ err, url }, 'backend address did not resolve'),
    );
    // A failed lookup keeps what we had rather than dropping every replica.
    if (!closed && urls.length > 0) setReplicas(urls);
  };
  const timer = hostNames && options.refreshMs > 0 ? setInterval(() => void refresh(), options.refreshMs) : undefined;
  timer?.unref();
  const first = hostNames ? refresh() : Promise.resolve();
  let resolved = !hostNames;
  first.then(
    () => (resolved = true),
    () => (resolved = true),
  );

  /** The live replica with the fewest calls in flight, starting the search at the next turn. */
  const pick = (tried: ReadonlySet<Replica>): Replica | undefined => {
    const now = performance.now();
    let best: Replica | undefined;
    let fallback: Replica | undefined;
    const n = order.length;
    turn = (turn + 1) % Math.max(n, 1);
    for (let i = 0; i < n; i += 1) {
      const r = order[(turn + i) % n];
      if (r === undefined || tried.has(r)) continue;
      if (r.downUntil > now) {
        if (fallback === undefined || r.downUntil < fallback.downUntil) fallback = r;
        continue;
      }
      if (best === undefined || r.inFlight < best.inFlight) best = r;
    }
    // Every untried replica is cooling down: try the one that has rested longest rather than fail.
    return best ?? fallback;
  };

  const noReplica = () => new ConnectError('no backend replica is available', Code.Unavailable);

  // One replica: nothing to choose and nowhere to retry, so the call goes straight to it (uncounted:
  // when a second replica joins, the counts start from the calls made after).
  const unary: Transport['unary'] = (method, signal, timeoutMs, header, input, contextValues) => {
    const only = resolved && order.length === 1 ? order[0] : undefined;
    if (only !== undefined) return only.transport.unary(method, signal, timeoutMs, header, input, contextValues);
    return spread(method, signal, timeoutMs, header, input, contextValues);
  };

  const spread: Transport['unary'] = async (method, signal, timeoutMs, header, input, contextValues) => {
    await first;
    const tried = new Set<Replica>();
    const started = performance.now();
    for (;;) {
      const replica = pick(tried);
      if (replica === undefined) throw noReplica();
      tried.add(replica);
      const left =
        timeoutMs === undefined || timeoutMs <= 0 ? timeoutMs : Math.max(1, Math.floor(timeoutMs - (performance.now() - started)));
      replica.inFlight += 1;
      try {
        return await replica.transport.unary(method, signal, left, header, input, contextValues);
      } catch (err: unknown) {
        if (!neverReached(err)) throw err;
        replica.downUntil = performance.now() + REPLICA_COOLDOWN_MS;
        options.logger?.warn({ replica: replica.url, method: method.name }, 'backend replica refused a call; trying another');
        if (tried.size >= order.length || signal?.aborted === true) throw err;
      } finally {
        replica.inFlight -= 1;
      }
    }
  };

  const stream: Transport['stream'] = async (method, signal, timeoutMs, header, input, contextValues) => {
    await first;
    const replica = pick(new Set());
    if (replica === undefined) throw noReplica();
    return replica.transport.stream(method, signal, timeoutMs, header, input, contextValues);
  };

  return {
    unary,
    stream,
    replicas: () => order.map((r) => r.url),
    refresh,
    close() {
      closed = true;
      if (timer) clearInterval(timer);
      for (const replica of replicas.values()) replica.transport.close();
      replicas.clear();
      order = [];
    },
  };
}

/** True when a URL names an address (or localhost), not a name to resolve. */
function isLiteral(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || isIP(host) !== 0;
}
