import { readFileSync } from 'node:fs';
import http2 from 'node:http2';

/** What became of one oversized HTTP/2 request. */
export interface FloodResult {
  /** The answer's `:status`, undefined when the stream ended without one. */
  status: number | undefined;
  /** The answer's headers and trailers (gRPC and Connect errors travel there). */
  headers: http2.IncomingHttpHeaders;
  /** Body bytes written before the server answered or reset the stream. */
  sent: number;
  /** True when the server neither answered nor took more bytes for `stallMs`. */
  stalled: boolean;
  /** True when the server reset the stream while its body was still being written. */
  reset: boolean;
}

/** Options of floodRequest. */
export interface FloodOptions {
  chunkBytes?: number;
  stallMs?: number;
  /** Bytes sent before the zeros (e.g. a gRPC envelope header announcing the whole size). */
  prefix?: Buffer;
  /** TLS options of the session (mutual TLS listeners). */
  connect?: http2.SecureClientSessionOptions;
  /**
   * Write on after the server answers, as a client that ignores the answer would: the request
   * ends only when the server resets the stream, stops taking bytes for `stallMs`, or all
   * `totalBytes` are sent.
   */
  ignoreAnswer?: boolean;
}

/**
 * Streams up to `totalBytes` of zeros as one HTTP/2 request body, chunk by chunk and honouring
 * flow control, and stops as soon as the server answers or resets the stream (or, with
 * `ignoreAnswer`, only when the server resets it or stops reading): `sent` shows how early an
 * oversized body was refused.
 */
export function floodRequest(
  url: string,
  headers: http2.OutgoingHttpHeaders,
  totalBytes: number,
  options: FloodOptions = {},
): Promise<FloodResult> {
  const chunk = Buffer.alloc(options.chunkBytes ?? 64 * 1024);
  const stallMs = options.stallMs ?? 5_000;
  const session = http2.connect(url, options.connect ?? {});
  session.on('error', () => undefined);
  return new Promise((resolve) => {
    const stream = session.request({ ':method': 'POST', ...headers });
    let status: number | undefined;
    let answer: http2.IncomingHttpHeaders = {};
    let sent = 0;
    let done = false;
    let stall: NodeJS.Timeout | undefined;
    let reset = false;
    const finish = (stalled: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(stall);
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      session.destroy();
      resolve({ status, headers: answer, sent, stalled, reset });
    };
    const armStall = () => {
      clearTimeout(stall);
      stall = setTimeout(() => finish(true), stallMs);
    };
    let answered = false;
    stream.on('response', (h) => {
      // The server answered: stop writing (unless told to ignore it), and wait for its trailers (a stream's error) or its end.
      answered = options.ignoreAnswer !== true;
      status = Number(h[':status']);
      answer = h;
    });
    stream.on('trailers', (t: http2.IncomingHttpHeaders) => {
      answer = { ...answer, ...t };
      if (options.ignoreAnswer !== true) finish(false);
    });
    stream.on('end', () => {
      if (options.ignoreAnswer !== true) finish(false);
    });
    stream.on('aborted', () => {
      if (!done) reset = true;
      finish(false);
    });
    stream.on('error', () => finish(false));
    stream.on('close', () => finish(false));
    stream.resume();
    if (options.prefix) {
      stream.write(options.prefix);
      sent += options.prefix.length;
    }
    const pump = () => {
      armStall();
      while (!done && !answered && sent < totalBytes) {
        const ok = stream.write(chunk);
        sent += chunk.length;
        if (!ok) {
          stream.once('drain', pump);
          return;
        }
      }
      if (!done && !answered) stream.end();
    };
    pump();
  });
}

/** The resident set size of process `pid` in bytes (Linux: VmRSS of /proc/<pid>/status). */
export function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}
