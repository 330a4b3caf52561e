import type { Transport } from '@connectrpc/connect';
import { expandEndpoints, neverReached } from '@wordgame/h2-unary';

/** A Transport for one base URL. */
export type TransportFor = (baseUrl: string) => Transport;

/** How often host names among the URLs are resolved again (ms). */
const REFRESH_MS = 10_000;

/**
 * A Connect transport over several replicas of one service (GATEWAY_INTERNAL_URL's list; a host
 * name stands for all of its DNS addresses, re-resolved every 10 s). Calls start at the next
 * replica in turn; a unary call that surely never reached a replica (connection refused, session
 * going away, stream refused) goes to the next one, anything else fails as it is: a call that may
 * have been delivered is never sent twice (bot commands are at-most-once).
 */
export function failoverTransport(urls: readonly string[], transportFor: TransportFor): Transport {
  const byUrl = new Map<string, Transport>();
  let current: string[] = urls.map((u) => u.replace(/\/+$/, ''));
  let resolvedAt = -Infinity;
  let turn = 0;

  const replicas = async (): Promise<Transport[]> => {
    if (performance.now() - resolvedAt > REFRESH_MS) {
      resolvedAt = performance.now();
      const expanded = await expandEndpoints(urls);
      if (expanded.length > 0) current = expanded;
    }
    turn = (turn + 1) % current.length;
    const ordered = [...current.slice(turn), ...current.slice(0, turn)];
    return ordered.map((url) => {
      let transport = byUrl.get(url);
      if (!transport) {
        transport = transportFor(url);
        byUrl.set(url, transport);
      }
      return transport;
    });
  };

  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const all = await replicas();
      let last: unknown;
      for (const transport of all) {
        try {
          return await transport.unary(method, signal, timeoutMs, header, input, contextValues);
        } catch (err: unknown) {
          if (!neverReached(err) || signal?.aborted === true) throw err;
          last = err;
        }
      }
      throw last;
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      const [first] = await replicas();
      if (!first) throw new Error('no replica configured');
      return first.stream(method, signal, timeoutMs, header, input, contextValues);
    },
  };
}
