import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import type { DevCerts } from '@wordgame/testkit';

/**
 * A minimal gRPC unary client for load generation: one mutual-TLS HTTP/2 session with the bot's
 * certificate, each call one stream (enveloped request, `te: trailers`, status from the trailers).
 * It does what connect-node's gRPC transport does on the wire for a unary call, at a fraction of
 * its CPU, so the load generator takes less of the cores the measured services share (as the
 * wallet bench's raw HTTP/1.1 connections do).
 */
export class GrpcUnaryClient {
  private readonly session: http2.ClientHttp2Session;

  constructor(url: string, certs: DevCerts) {
    this.session = http2.connect(url, {
      ca: readFileSync(certs.ca.cert),
      cert: readFileSync(certs.bot.cert),
      key: readFileSync(certs.bot.key),
    });
    this.session.on('error', () => undefined); // each call reports its own failure
  }

  /** Calls `method` with `input`; rejects with the grpc-status and message of a failed call. */
  call<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>, input: MessageInitShape<I>): Promise<MessageShape<O>> {
    const message = toBinary(method.input, create(method.input, input));
    const envelope = Buffer.allocUnsafe(5 + message.length);
    envelope[0] = 0;
    envelope.writeUInt32BE(message.length, 1);
    envelope.set(message, 5);
    return new Promise((resolve, reject) => {
      const stream = this.session.request({
        ':method': 'POST',
        ':path': `/${method.parent.typeName}/${method.name}`,
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      const chunks: Buffer[] = [];
      let status: string | undefined;
      let grpcMessage: string | undefined;
      const read = (h: http2.IncomingHttpHeaders) => {
        if (typeof h['grpc-status'] === 'string') status = h['grpc-status'];
        if (typeof h['grpc-message'] === 'string') grpcMessage = decodeURIComponent(h['grpc-message']);
      };
      stream.on('response', read);
      stream.on('trailers', read);
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', reject);
      stream.on('end', () => {
        if (status !== '0') {
          reject(new Error(`grpc-status ${status ?? '(none)'}: ${grpcMessage ?? ''}`));
          return;
        }
        const body = Buffer.concat(chunks);
        try {
          resolve(fromBinary(method.output, body.subarray(5, 5 + body.readUInt32BE(1))));
        } catch (err: unknown) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
      stream.end(envelope);
    });
  }

  close(): void {
    this.session.close();
  }
}
