import http2 from 'node:http2';
import type { DescMessage, DescMethodUnary, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { Code, ConnectError, type Transport, type UnaryResponse } from '@connectrpc/connect';
import {
  headerGrpcStatus,
  requestHeaderWithCompression,
  validateResponseWithCompression,
  validateTrailer,
} from '@connectrpc/connect/protocol-grpc';
import { compressionBrotli, compressionGzip } from '@connectrpc/connect-node';
import { encodeMessage } from '../codec.js';
import { clampTimeoutMs, encodeGrpcTimeout } from '../deadline.js';
import { parseOutput } from './output.js';

/** Opens one HTTP/2 stream on the caller's connection (connect-node's session-manager `request`). */
export type OpenStream = (
  method: string,
  path: string,
  headers: http2.OutgoingHttpHeaders,
  options: Omit<http2.ClientSessionRequestOptions, 'signal'>,
) => Promise<http2.ClientHttp2Stream>;

/** Options of the fast gRPC unary transport. */
export interface GrpcUnaryTransportOptions {
  /** The service's base URL (its path prefix is kept, as connect-node keeps it). */
  baseUrl: string;
  /** Opens a stream on the one connection the streaming transport also uses. */
  openStream: OpenStream;
  /** Handles the streaming methods (connect-node's gRPC transport on the same connection). */
  streams: Transport;
  /** Deadline of a call that names none; undefined = none (connect-node's default). */
  defaultTimeoutMs?: number;
}

/** What connect-node's transports accept by default, in its order. */
const ACCEPT_COMPRESSION = [compressionGzip, compressionBrotli];
const GRPC_FLAG_COMPRESSED = 0b00000001;
type CallHeaders = Parameters<Transport['unary']>[3];

/**
 * A gRPC transport whose unary calls are written straight onto an HTTP/2 stream of the caller's
 * connection instead of through connect-node's per-call machinery (async-iterable pipes, linked
 * abort controllers with a DOMException per finished call, a sentinel per call), which was about a
 * quarter of the bot's CPU per stars payment. A call sends what connect-node's gRPC transport sends
 * (its request headers, built by connect's own `requestHeaderWithCompression`, with the spec's
 * `grpc-timeout`: encodeGrpcTimeout) and ends as it would there: the message with its headers and
 * trailers, or the ConnectError with the code and message connect-node gives, read with connect's
 * own response and trailer checks (tested side by side with connect-node in grpc-unary.test.ts).
 * Streaming methods go to `streams`. No interceptors run on unary calls.
 */
export function createGrpcUnaryTransport(options: GrpcUnaryTransportOptions): Transport {
  const prefix = new URL(options.baseUrl).pathname.replace(/\/+$/, '');

  const unary = <I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: CallHeaders,
    input: MessageInitShape<I>,
  ): Promise<UnaryResponse<I, O>> =>
    new Promise((resolve, reject) => {
      const timeout = clampTimeoutMs(timeoutMs === undefined ? options.defaultTimeoutMs : timeoutMs > 0 ? timeoutMs : undefined);
      let stream: http2.ClientHttp2Stream | undefined;
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (err: ConnectError | undefined, response?: UnaryResponse<I, O>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else if (response) resolve(response);
      };
      // As connect-node: a call given up resets its stream, CANCEL when cancelled, else INTERNAL_ERROR.
      const giveUp = (err: ConnectError): void => {
        if (settled) return;
        if (stream && !stream.closed)
          stream.close(err.code === Code.Canceled ? http2.constants.NGHTTP2_CANCEL : http2.constants.NGHTTP2_INTERNAL_ERROR);
        settle(err);
      };
      const onAbort = (): void => giveUp(ConnectError.from(abortReason(signal), Code.Canceled));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeout !== undefined)
        timer = setTimeout(() => giveUp(new ConnectError('the operation timed out', Code.DeadlineExceeded)), timeout);

      let body: Uint8Array;
      try {
        body = frame(encodeMessage(method.input, input));
      } catch (err: unknown) {
        return settle(ConnectError.from(err));
      }
      const outgoing = nodeHeaders(requestHeaderWithCompression(true, timeout, header, ACCEPT_COMPRESSION, null));
      if (timeout !== undefined) outgoing['grpc-timeout'] = encodeGrpcTimeout(timeout);
      options.openStream('POST', `${prefix}/${method.parent.typeName}/${method.name}`, outgoing, {}).then(
        (opened) => {
          stream = opened;
          if (settled) {
            if (!opened.closed) opened.close(http2.constants.NGHTTP2_CANCEL);
            return;
          }
          let status = 0;
          let responseHeaders: Headers | undefined;
          const trailer = new Headers();
          const chunks: Buffer[] = [];
          opened.on('response', (h) => {
            status = Number(h[':status']);
            responseHeaders = webHeaders(h);
          });
          opened.on('trailers', (t: http2.IncomingHttpHeaders) => webHeaders(t).forEach((value, key) => trailer.set(key, value)));
          opened.on('data', (chunk: Buffer) => chunks.push(chunk));
          opened.on('end', () => {
            if (responseHeaders === undefined) return;
            const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
            decode(method, status, responseHeaders, trailer, bytes).then(
              (response) => settle(undefined, response),
              (err: unknown) => giveUp(ConnectError.from(err)),
            );
          });
          opened.on('error', (err: Error) => {
            if (opened.writableEnded && chainCodes(err).includes('ERR_STREAM_WRITE_AFTER_END')) return;
            giveUp(errorFromNodeReason(err));
          });
          opened.on('close', () => {
            const err = errorFromResetCode(opened.rstCode);
            if (err) giveUp(err);
            else if (!settled && responseHeaders === undefined)
              giveUp(new ConnectError('http/2 stream closed before an answer', Code.Unavailable));
          });
          opened.end(body);
        },
        (err: unknown) => giveUp(ConnectError.from(err)),
      );
    });

  return {
    unary,
    stream: (method, signal, timeoutMs, header, input, contextValues) =>
      options.streams.stream(method, signal, timeoutMs, header, input, contextValues),
  };
}

/** One complete answer as connect-node's gRPC transport reads it, checks in its order. */
async function decode<I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  status: number,
  header: Headers,
  trailer: Headers,
  bytes: Buffer,
): Promise<UnaryResponse<I, O>> {
  const { compression, headerError } = validateResponseWithCompression(ACCEPT_COMPRESSION, status, header);
  let message: MessageShape<O> | undefined;
  let offset = 0;
  while (offset < bytes.length) {
    if (bytes.length - offset < 5) throw new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
    const flags = bytes[offset] ?? 0;
    const length = bytes.readUInt32BE(offset + 1);
    if (bytes.length - offset - 5 < length) throw new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
    let data: Uint8Array = bytes.subarray(offset + 5, offset + 5 + length);
    offset += 5 + length;
    if ((flags & GRPC_FLAG_COMPRESSED) === GRPC_FLAG_COMPRESSED) {
      if (!compression) throw new ConnectError('received compressed envelope, but do not know how to decompress', Code.Internal);
      data = await compression.decompress(data, 0xffffffff);
    }
    if (message !== undefined) throw new ConnectError('protocol error: received extra output message for unary method', Code.Unimplemented);
    message = parseOutput(method, data);
  }
  validateTrailer(trailer, header);
  if (message === undefined) {
    if (headerError) throw headerError;
    throw new ConnectError(
      'protocol error: missing output message for unary method',
      trailer.has(headerGrpcStatus) ? Code.Unimplemented : Code.Unknown,
    );
  }
  if (headerError) throw new ConnectError('protocol error: received output message for unary method with error status', Code.Unknown);
  return { stream: false, service: method.parent, method, header, message, trailer };
}

/** A gRPC length-prefixed message: flags 0 (not compressed), 4-byte big-endian length, bytes. */
function frame(message: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

function nodeHeaders(header: Headers): http2.OutgoingHttpHeaders {
  const out: http2.OutgoingHttpHeaders = {};
  header.forEach((value, key) => (out[key] = value));
  return out;
}

/** As connect-node's nodeHeaderToWebHeader: pseudo-headers left out, repeated values appended. */
function webHeaders(raw: http2.IncomingHttpHeaders): Headers {
  const header = new Headers();
  for (const [key, value] of Object.entries(raw)) {
    if (key.startsWith(':') || value === undefined) continue;
    if (typeof value === 'string') header.append(key, value);
    else if (typeof value === 'number') header.append(key, String(value));
    else for (const v of value) header.append(key, v);
  }
  return header;
}

function abortReason(signal: AbortSignal | undefined): unknown {
  const reason: unknown = signal?.reason;
  if (reason !== undefined) return reason;
  const err = new Error('This operation was aborted');
  err.name = 'AbortError';
  return err;
}

/** The `code` of every error in `err`'s cause chain (duck-typed: Node's errors may come from another realm). */
function chainCodes(err: unknown): string[] {
  const codes: string[] = [];
  const seen = new Set<unknown>();
  for (let e = err; e instanceof Object && 'message' in e && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

/** connect-node's mapping of a Node stream error (its connectErrorFromNodeReason). */
function errorFromNodeReason(reason: unknown): ConnectError {
  const codes = chainCodes(reason);
  let code = Code.Internal;
  if (codes.includes('ERR_STREAM_WRITE_AFTER_END')) code = Code.Aborted;
  else if (codes.some((c) => c === 'ERR_STREAM_DESTROYED' || c === 'ERR_HTTP2_INVALID_STREAM' || c === 'ECONNRESET')) code = Code.Aborted;
  else if (codes.some((c) => c === 'ETIMEDOUT' || c === 'ENOTFOUND' || c === 'EAI_AGAIN' || c === 'ECONNREFUSED')) code = Code.Unavailable;
  const ce = ConnectError.from(reason, code);
  if (ce !== reason) ce.cause = reason;
  return ce;
}

/** connect-node's mapping of an RST_STREAM code (its connectErrorFromH2ResetCode); undefined for NO_ERROR and STREAM_CLOSED. */
function errorFromResetCode(rstCode: number): ConnectError | undefined {
  const c = http2.constants;
  const name = RESET_NAMES.get(rstCode);
  const message = `http/2 stream closed with error code ${name ?? ''} (0x${rstCode.toString(16)})`;
  switch (rstCode) {
    case c.NGHTTP2_PROTOCOL_ERROR:
    case c.NGHTTP2_INTERNAL_ERROR:
    case c.NGHTTP2_FLOW_CONTROL_ERROR:
    case c.NGHTTP2_SETTINGS_TIMEOUT:
    case c.NGHTTP2_FRAME_SIZE_ERROR:
    case c.NGHTTP2_COMPRESSION_ERROR:
    case c.NGHTTP2_CONNECT_ERROR:
      return new ConnectError(message, Code.Internal);
    case c.NGHTTP2_REFUSED_STREAM:
      return new ConnectError(message, Code.Unavailable);
    case c.NGHTTP2_CANCEL:
      return new ConnectError(message, Code.Canceled);
    case c.NGHTTP2_ENHANCE_YOUR_CALM:
      return new ConnectError(message, Code.ResourceExhausted);
    case c.NGHTTP2_INADEQUATE_SECURITY:
    case c.NGHTTP2_HTTP_1_1_REQUIRED:
      return new ConnectError(message, Code.PermissionDenied);
    default:
      return undefined;
  }
}

/** connect-node's names of the HTTP/2 error codes (its H2Code enum), for the same messages. */
const RESET_NAMES = new Map<number, string>([
  [0x1, 'PROTOCOL_ERROR'],
  [0x2, 'INTERNAL_ERROR'],
  [0x3, 'FLOW_CONTROL_ERROR'],
  [0x4, 'SETTINGS_TIMEOUT'],
  [0x6, 'FRAME_SIZE_ERROR'],
  [0x7, 'REFUSED_STREAM'],
  [0x8, 'CANCEL'],
  [0x9, 'COMPRESSION_ERROR'],
  [0xa, 'CONNECT_ERROR'],
  [0xb, 'ENHANCE_YOUR_CALM'],
  [0xc, 'INADEQUATE_SECURITY'],
  [0xd, 'HTTP_1_1_REQUIRED'],
]);
