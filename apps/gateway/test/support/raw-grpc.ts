import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { gzipSync } from 'node:zlib';
import type { DevCerts } from '@wordgame/testkit';

/** What a gRPC server answered to one raw call: headers, the body bytes and the trailers. */
export interface RawGrpcAnswer {
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  /** grpc-status from the trailers (or the headers of a trailers-only answer). */
  status: number | undefined;
  message: string;
  body: Buffer;
}

/** One length-prefixed gRPC message (`compressed` sets the flag and gzips the bytes). */
export function envelope(message: Uint8Array, compressed = false): Buffer {
  const bytes = compressed ? gzipSync(message) : Buffer.from(message);
  const out = Buffer.alloc(5 + bytes.length);
  out[0] = compressed ? 1 : 0;
  out.writeUInt32BE(bytes.length, 1);
  bytes.copy(out, 5);
  return out;
}

/**
 * A client connection to the bot-link written straight on node:http2 with mutual TLS (the dev
 * bot certificate), for calls whose headers a gRPC library would not send as given: a
 * `grpc-timeout` at the edge of its grammar, an encoding nobody supports.
 */
export class RawGrpc {
  readonly session: http2.ClientHttp2Session;

  constructor(url: string, certs: DevCerts) {
    this.session = http2.connect(url, {
      ca: readFileSync(certs.ca.cert),
      cert: readFileSync(certs.bot.cert),
      key: readFileSync(certs.bot.key),
    });
    this.session.on('error', () => undefined);
  }

  /** Opens a call on `path` with `headers` added to the gRPC call definition. */
  open(path: string, headers: Record<string, string>): http2.ClientHttp2Stream {
    return this.session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
  }

  /** Sends `body` as the whole request and collects the answer. */
  call(path: string, headers: Record<string, string>, body: Buffer): Promise<RawGrpcAnswer> {
    const stream = this.open(path, headers);
    const answer = collect(stream);
    stream.end(body);
    return answer;
  }

  close(): void {
    this.session.close();
  }
}

/** Collects a call's answer until the stream closes. */
export function collect(stream: http2.ClientHttp2Stream): Promise<RawGrpcAnswer> {
  return new Promise((resolve, reject) => {
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (headers = h));
    stream.on('trailers', (t: http2.IncomingHttpHeaders) => (trailers = t));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', reject);
    stream.on('close', () => {
      const source = trailers['grpc-status'] !== undefined ? trailers : headers;
      const status = source['grpc-status'];
      resolve({
        headers,
        trailers,
        status: status === undefined ? undefined : Number(status),
        message: decodeURIComponent(String(source['grpc-message'] ?? '')),
        body: Buffer.concat(chunks),
      });
    });
  });
}
