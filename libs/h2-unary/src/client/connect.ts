import http2 from 'node:http2';
import type { Duplex } from 'node:stream';
import type { DescMessage, DescMethodUnary, MessageInitShape } from '@bufbuild/protobuf';
import { appendHeaders, Code, ConnectError, type Transport, type UnaryResponse } from '@connectrpc/connect';
import { errorFromJsonBytes, trailerDemux, validateResponseWithCompression } from '@connectrpc/connect/protocol-connect';
import { keepAlive } from '@wordgame/h2-keepalive';
import { CONNECT_TIMEOUT_CODE } from '@wordgame/net-errors';
import { encodeMessage } from '../codec.js';
import { clampTimeoutMs } from '../deadline.js';
import { ADAPTER_COMPRESSIONS } from '../server/options.js';
import { headersOf } from '../server/lifecycle.js';
import { serviceAuthorization } from '../service-gate.js';
import { parseOutput } from './output.js';

/** Options of the fast Connect unary transport (one connection to one URL). */
export interface ConnectUnaryTransportOptions {
  /** `http://host:port`: the backend's cleartext HTTP/2 (prior knowledge) listener. */
  baseUrl: string;
  /** The service token presented on every call (`Authorization: Bearer`). */
  token: string;
  /** Deadline of a call that names none. */
  defaultTimeoutMs: number;
  /** Handles the streaming methods (connect-node's transport over its own connection). */
  streams: Transport;
  /** PING interval of the connection; an unanswered PING destroys it (half-open detection). */
  pingIntervalMs?: number;
  /**
   * How long a new connection may take until the server's HTTP/2 SETTINGS arrive (default 2000 ms).
   * Past it the connection is destroyed with
   * CONNECT_TIMEOUT_CODE and its waiting calls fail as never reached, instead of waiting out their
   * deadline on an address nobody answers (a replaced backend's, until DNS drops it).
   */
  connectTimeoutMs?: number;
  /** Makes the TCP connection (http2.connect's createConnection); tests pass one that never connects. */
  createConnection?: (authority: URL) => Duplex;
  /** False sends unary calls through `streams` too (connect-node; the bench's comparison). Default true. */
  fast?: boolean;
}

/** A Connect transport that can also close its connection. */
export interface ClosableTransport extends Transport {
  close(): void;
}

type HeaderRecord = Record<string, string>;
/** The headers a Connect call may carry (the Fetch API's HeadersInit, which this lib set lacks). */
type CallHeaders = Parameters<Transport['unary']>[3];

/**
 * A Connect-protocol transport for unary calls written straight onto one multiplexed h2c
 * session to one URL (a pool makes one per address): POST `/<service>/<method>` with
 * `application/proto`, `Connect-Timeout-Ms`, the call's headers and the service token. The answer
 * is read with connect's own response checks, so a call ends as it would through connect-node's
 * transport: the message with its headers and `trailer-*` trailers, or the ConnectError with its
 * code, message, details and metadata (headers and trailers). It skips connect-node's per-call
 * machinery (linked abort controllers, async-iterable pipes), which was a quarter of the
 * gateway's CPU per REST request. Streaming methods go to `streams`. A failed connection is
 * reopened on the next call.
 */
export function createConnectUnaryTransport(options: ConnectUnaryTransportOptions): ClosableTransport {
  if (options.fast === false)
    return {
      unary: options.streams.unary.bind(options.streams),
      stream: options.streams.stream.bind(options.streams),
      close: () => undefined,
    };
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const authorization = serviceAuthorization(options.token);
  let session: http2.ClientHttp2Session | undefined;
  let closed = false;

  const open = (): http2.ClientHttp2Session => {
    if (closed) throw new ConnectError('transport closed', Code.Unavailable);
    if (session && !session.closed && !session.destroyed) return session;
    const s = options.createConnection
      ? http2.connect(base.origin, { createConnection: options.createConnection })
      : http2.connect(base.origin);
    s.on('error', () => undefined); // each stream reports its own failure
    const connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
    const connecting = setTimeout(() => {
      const err = new Error(`no connection to ${base.origin} within ${connectTimeoutMs} ms`) as Error & { code: string };
      err.code = CONNECT_TIMEOUT_CODE;
      s.destroy(err);
    }, connectTimeoutMs);
    connecting.unref();
    // Connected means the server spoke: its SETTINGS arrived (not merely the socket's connect).
    s.once('remoteSettings', () => clearTimeout(connecting));
    s.once('close', () => clearTimeout(connecting));
    s.on('goaway', () => {
      if (session === s) session = undefined;
    });
    s.on('close', () => {
      if (session === s) session = undefined;
    });
    keepAlive(s, { intervalMs: options.pingIntervalMs ?? 30_000, timeoutMs: options.pingIntervalMs ?? 30_000 });
    s.unref();
    session = s;
    return s;
  };

  const unary = <I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: CallHeaders,
    input: MessageInitShape<I>,
  ): Promise<UnaryResponse<I, O>> =>
    new Promise((resolve, reject) => {
      // As connect-node: no timeout given = the default; zero or less = no deadline; clamped to
      // what a timer can wait (a longer one would fire after 1 ms).
      const timeout = clampTimeoutMs(timeoutMs === undefined ? options.defaultTimeoutMs : timeoutMs > 0 ? timeoutMs : undefined);
      const outgoing: http2.OutgoingHttpHeaders = {
        ':method': 'POST',
        ':path': `${prefix}/${method.parent.typeName}/${method.name}`,
        'content-type': 'application/proto',
        'connect-protocol-version': '1',
      };
      if (timeout !== undefined) outgoing['connect-timeout-ms'] = String(timeout);
      copyHeaders(header, outgoing);
      outgoing['authorization'] = authorization;
      let stream: http2.ClientHttp2Stream;
      try {
        stream = open().request(outgoing);
      } catch (err: unknown) {
        reject(ConnectError.from(err, Code.Unavailable));
        return;
      }
      let settled = false;
      const settle = (err: ConnectError | undefined, response?: UnaryResponse<I, O>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else if (response) resolve(response);
      };
      // Only a call given up before its answer is reset. Resetting a stream the server has already
      // ended counts as an invalid frame there, and Node's server closes the whole connection after
      // 1,000 of them (maxSessionInvalidFrames): every error answer did that before.
      const giveUp = (err: ConnectError) => {
        if (settled) return;
        if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
        settle(err);
      };
      const timer =
        timeout === undefined
          ? undefined
          : setTimeout(() => giveUp(new ConnectError('the operation timed out', Code.DeadlineExceeded)), timeout);
      const onAbort = () => giveUp(ConnectError.from(signal?.reason, Code.Canceled));
      if (signal) {
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
      }
      let status = 0;
      let responseHeaders: http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      stream.on('response', (h) => {
        status = Number(h[':status']);
        responseHeaders = h;
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        // Ended without response headers: the connection went away mid-call (outcome unknown).
        if (status === 0) return settle(new ConnectError('connection closed before an answer', Code.Unavailable));
        decode(method, status, responseHeaders, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).then(
          (response) => settle(undefined, response),
          (err: unknown) => settle(ConnectError.from(err, Code.Internal)),
        );
      });
      stream.on('error', (err: Error) => settle(ConnectError.from(networkCause(err), Code.Unavailable)));
      stream.on('close', () => {
        if (!settled) settle(new ConnectError(`stream closed before an answer (HTTP/2 code ${stream.rstCode})`, Code.Unavailable));
      });
      stream.end(encodeMessage(method.input, input));
    });

  return {
    unary,
    stream: (method, signal, timeoutMs, header, input, contextValues) =>
      options.streams.stream(method, signal, timeoutMs, header, input, contextValues),
    close() {
      closed = true;
      session?.close();
      session = undefined;
    },
  };
}

/** Turns one complete answer into the response or the Connect error it carries. */
async function decode<I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  status: number,
  raw: http2.IncomingHttpHeaders,
  bytes: Buffer,
): Promise<UnaryResponse<I, O>> {
  const all = headersOf(raw);
  if (plainSuccess(status, raw))
    return { stream: false, service: method.parent, method, header: all, message: parseOutput(method, bytes), trailer: new Headers() };
  const { compression, isUnaryError, unaryError } = validateResponseWithCompression(
    method.methodKind,
    ADAPTER_COMPRESSIONS,
    true,
    status,
    all,
  );
  const [header, trailer] = trailerDemux(all);
  const body = compression ? await compression.decompress(bytes, 0xffffffff) : bytes;
  if (isUnaryError) throw errorFromJsonBytes(body, appendHeaders(header, trailer), unaryError);
  return { stream: false, service: method.parent, method, header, message: parseOutput(method, body), trailer };
}

/**
 * The common answer, which connect's checks would pass unchanged: 200, `application/proto`, not
 * compressed, no `trailer-*` fields (so the headers are all header and the trailers empty).
 */
function plainSuccess(status: number, raw: http2.IncomingHttpHeaders): boolean {
  if (status !== 200 || raw['content-type'] !== 'application/proto' || raw['content-encoding'] !== undefined) return false;
  for (const key in raw) if (key.startsWith('trailer-')) return false;
  return true;
}

/**
 * The error that made a stream fail: Node cancels the streams waiting on a connection that could
 * not be made with ERR_HTTP2_STREAM_CANCEL, the network error (ECONNREFUSED, …) being its cause.
 */
function networkCause(err: Error): Error {
  const { code, cause } = err as Error & { code?: unknown };
  // Duck-typed: Node's errors come from another realm under jest's vm, where instanceof fails.
  return code === 'ERR_HTTP2_STREAM_CANCEL' && typeof cause === 'object' && cause !== null && 'message' in cause ? (cause as Error) : err;
}

function copyHeaders(from: CallHeaders, to: http2.OutgoingHttpHeaders): void {
  if (from === undefined) return;
  if (from instanceof Headers) from.forEach((value, key) => (to[key] = value));
  else if (Array.isArray(from)) for (const [key, value] of from as [string, string][]) to[key.toLowerCase()] = value;
  else for (const [key, value] of Object.entries(from as HeaderRecord)) to[key.toLowerCase()] = value;
}
