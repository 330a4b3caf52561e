import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Resolves a host name to every address it has (node's `lookup` with `all`). */
export type ResolveAll = (host: string) => Promise<string[]>;

const systemResolve: ResolveAll = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/**
 * The replicas behind configured service URLs: a URL whose host is an address stays as it is; a
 * host name becomes one URL per DNS address (so a headless service name spreads over every
 * replica). A name that does not resolve is skipped (logged by the caller through `onError`); the
 * answer is deduplicated and keeps the configured order.
 */
export async function expandEndpoints(
  urls: readonly string[],
  resolve: ResolveAll = systemResolve,
  onError?: (url: string, err: unknown) => void,
): Promise<string[]> {
  const out: string[] = [];
  for (const raw of urls) {
    const url = new URL(raw);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 || host === 'localhost') {
      out.push(trimSlash(url));
      continue;
    }
    try {
      for (const address of await resolve(host)) {
        const each = new URL(url);
        each.hostname = isIP(address) === 6 ? `[${address}]` : address;
        out.push(trimSlash(each));
      }
    } catch (err: unknown) {
      onError?.(raw, err);
    }
  }
  return [...new Set(out)];
}

function trimSlash(url: URL): string {
  return url.href.replace(/\/+$/, '');
}

/** The `code` a transport puts on the cause of a stream the server refused (RST_STREAM REFUSED_STREAM, or above a GOAWAY's last stream id). */
export const REFUSED_STREAM_CODE = 'ERR_HTTP2_REFUSED_STREAM';

/**
 * The code of the error a transport gives when no connection was made within its connect timeout
 * (a replica that left with its address: packets to it are dropped, nothing refuses them): the call
 * surely never reached a server, so it may go to another replica.
 */
export const CONNECT_TIMEOUT_CODE = 'ERR_H2_CONNECT_TIMEOUT';

/** Error codes that mean a call never reached a server: no connection was made, or none could take a stream. */
const NEVER_REACHED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_INVALID_SESSION',
  REFUSED_STREAM_CODE,
  CONNECT_TIMEOUT_CODE,
]);

/**
 * True when a failed call surely never reached a server, so sending it to another replica cannot
 * run it twice: the connection was refused or never made, the session was already going away, or
 * the server refused the stream (HTTP/2 REFUSED_STREAM: it promises the stream was not processed).
 * Looks through the error's cause chain for a Node error code; a reset, timeout or broken
 * connection mid-call is never counted here.
 */
export function neverReached(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const { code, cause, message } = current as { code?: unknown; cause?: unknown; message?: unknown };
    if (typeof code === 'string' && NEVER_REACHED.has(code)) return true;
    // Node reports a refused stream as ERR_HTTP2_STREAM_ERROR naming the HTTP/2 code.
    if (code === 'ERR_HTTP2_STREAM_ERROR' && typeof message === 'string' && message.includes('NGHTTP2_REFUSED_STREAM')) return true;
    current = cause;
  }
  return false;
}
