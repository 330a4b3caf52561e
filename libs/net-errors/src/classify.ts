import { causeChain } from './chain.js';

/** The `code` Node puts on a stream the server refused (RST_STREAM REFUSED_STREAM, or above a GOAWAY's last stream id). */
export const REFUSED_STREAM_CODE = 'ERR_HTTP2_REFUSED_STREAM';

/**
 * The code of the error a transport gives when no connection was made within its connect timeout
 * (a replica that left with its address: packets to it are dropped, nothing refuses them): the call
 * surely never reached a server, so it may go to another replica.
 */
export const CONNECT_TIMEOUT_CODE = 'ERR_H2_CONNECT_TIMEOUT';

/**
 * What a network failure says about the call it ended: `never-reached` when no server can have
 * seen it (no connection was made, or the session was already going away, or the server refused
 * the stream, which HTTP/2 promises was not processed), so another replica may run it;
 * `interrupted` when the connection broke or timed out with the call possibly on the server.
 */
export type NetworkFailure = 'never-reached' | 'interrupted';

/** Codes that mean no connection was made, or none could take a stream. */
const NEVER_REACHED: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_INVALID_SESSION',
  REFUSED_STREAM_CODE,
  CONNECT_TIMEOUT_CODE,
]);

/** Codes of a connection or HTTP/2 session or stream that broke, reset or timed out mid-call. */
const INTERRUPTED: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_STREAM_CANCEL',
]);

function kindOf(e: object): NetworkFailure | undefined {
  const { code, message } = e as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return undefined;
  if (NEVER_REACHED.has(code)) return 'never-reached';
  // Node reports a refused stream as ERR_HTTP2_STREAM_ERROR naming the HTTP/2 code.
  if (code === 'ERR_HTTP2_STREAM_ERROR' && typeof message === 'string' && message.includes('NGHTTP2_REFUSED_STREAM'))
    return 'never-reached';
  return INTERRUPTED.has(code) ? 'interrupted' : undefined;
}

/**
 * The network failure anywhere in `err`'s cause chain (the one depth rule of `causeChain`), or
 * undefined when there is none. A never-reached code anywhere wins over an interrupted one: a
 * stream cancelled because its connection was refused never reached the server.
 */
export function networkFailure(err: unknown): NetworkFailure | undefined {
  let found: NetworkFailure | undefined;
  for (const e of causeChain(err)) {
    const kind = kindOf(e);
    if (kind === 'never-reached') return kind;
    found ??= kind;
  }
  return found;
}

/** True when `err` is, or wraps, a network failure of either kind (the peer is unreachable or went away). */
export function isNetworkFailure(err: unknown): boolean {
  return networkFailure(err) !== undefined;
}

/**
 * True when a failed call surely never reached a server, so sending it to another replica cannot
 * run it twice. A reset, timeout or broken connection mid-call is never counted here.
 */
export function neverReached(err: unknown): boolean {
  return networkFailure(err) === 'never-reached';
}
