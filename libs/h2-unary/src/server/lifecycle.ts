import type http2 from 'node:http2';
import { Code, ConnectError } from '@connectrpc/connect';
import { clampTimeoutMs } from '../deadline.js';

/** The regular (non-pseudo) fields of HTTP/2 headers as a Fetch `Headers`. */
export function headersOf(raw: http2.IncomingHttpHeaders): Headers {
  const header = new Headers();
  for (const key of Object.keys(raw)) {
    if (key.startsWith(':')) continue;
    const value = raw[key];
    if (Array.isArray(value)) for (const v of value) header.append(key, v);
    else if (value !== undefined) header.set(key, value);
  }
  return header;
}

/** What a unary exchange gives its handler: cancellation, the deadline, the headers to answer with. */
export interface UnaryExchange {
  readonly signal: AbortSignal;
  readonly timeoutMs: () => number | undefined;
  readonly responseHeader: Headers;
  readonly responseTrailer: Headers;
}

/** How one unary call on a server stream is read and answered (the protocol's framing). */
export interface UnaryProtocol {
  /** The response headers and trailers a call starts with (as connect-node's handler context). */
  readonly header: Record<string, string>;
  readonly trailer?: Record<string, string>;
  /** The error that ends reading once `received` bytes have arrived (the read limit), if any. */
  checkRead(received: number, chunks: readonly Buffer[]): ConnectError | undefined;
  /** Runs the call on the complete request body; resolves with the answer's bytes. */
  handle(body: Buffer, exchange: UnaryExchange): Promise<Uint8Array>;
  /** Writes a successful answer. */
  succeed(stream: http2.ServerHttp2Stream, message: Uint8Array, exchange: UnaryExchange): void;
  /** Writes a failed answer (`err` is what connect-node would answer for the same failure). */
  fail(stream: http2.ServerHttp2Stream, err: ConnectError, exchange: UnaryExchange): void;
}

/**
 * Serves one unary call straight off an HTTP/2 stream the way connect-node's adapter does: reads
 * the body (the protocol's read limit answers as soon as it is crossed), runs the protocol's
 * handler, answers exactly once. As in connect-node the deadline (`timeoutMs`) only aborts the
 * handler's signal with DeadlineExceeded (the handler's rejection is the answer), a timeout of
 * zero or less aborts it at once (one longer than a timer can wait is clamped to MAX_TIMER_MS,
 * where Node would fire it after 1 ms), and a stream the client resets aborts it with Canceled. Any
 * failure that is not a ConnectError is answered as connect-node does: Internal "internal error".
 * Unlike connect-node, a call that ends normally aborts nothing, so it builds no DOMException.
 */
export function serveUnary(stream: http2.ServerHttp2Stream, requestedMs: number | undefined, protocol: UnaryProtocol): void {
  const timeoutMs = clampTimeoutMs(requestedMs);
  const abort = new AbortController();
  const expires = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  const exchange: UnaryExchange = {
    signal: abort.signal,
    timeoutMs: () => (expires === undefined ? undefined : expires - Date.now()),
    responseHeader: new Headers(protocol.header),
    responseTrailer: new Headers(protocol.trailer),
  };
  let answered = false;
  const timedOut = () => abort.abort(new ConnectError('the operation timed out', Code.DeadlineExceeded));
  const deadline = timeoutMs === undefined || timeoutMs <= 0 ? undefined : setTimeout(timedOut, timeoutMs);
  if (timeoutMs !== undefined && timeoutMs <= 0) timedOut();
  const answer = (write: () => void) => {
    if (answered) return;
    answered = true;
    clearTimeout(deadline);
    if (stream.destroyed || stream.closed) return;
    try {
      write();
    } catch {
      // the connection went away between the check and the write: nobody is left to answer
    }
  };
  const fail = (err: unknown) => {
    const error = err instanceof ConnectError ? err : new ConnectError('internal error', Code.Internal, undefined, undefined, err);
    answer(() => protocol.fail(stream, error, exchange));
  };
  stream.once('close', () => {
    clearTimeout(deadline);
    if (!answered) {
      answered = true;
      if (!abort.signal.aborted) abort.abort(new ConnectError('the client cancelled the call', Code.Canceled));
    }
  });
  stream.on('error', () => undefined); // a reset stream reports through 'close'
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    chunks.push(chunk);
    const tooLarge = protocol.checkRead(size, chunks);
    if (tooLarge === undefined) return;
    stream.off('data', onData);
    stream.resume();
    fail(tooLarge);
  };
  stream.on('data', onData);
  stream.on('end', () => {
    if (answered) return;
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    void Promise.resolve()
      .then(() => protocol.handle(body, exchange))
      .then((message) => answer(() => protocol.succeed(stream, message, exchange)), fail);
  });
}

/** connect's read-limit error (its wording), or undefined when `bytes` is within `maxBytes`. */
export function readLimitError(maxBytes: number, bytes: number, sizeKnown: boolean): ConnectError | undefined {
  if (bytes <= maxBytes) return undefined;
  const message = sizeKnown
    ? `message size ${bytes} is larger than configured readMaxBytes ${maxBytes}`
    : `message size is larger than configured readMaxBytes ${maxBytes}`;
  return new ConnectError(message, Code.ResourceExhausted);
}
