import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '@wordgame/logging';

export interface MtlsOptions {
  host: string;
  port: number;
  caPath: string;
  certPath: string;
  keyPath: string;
  logger: Logger;
}

/** A listening HTTP/2 server that only completes handshakes with CA-signed client certificates. */
export interface MtlsServer {
  readonly port: number;
  readonly server: http2.Http2SecureServer;
  close(): Promise<void>;
}

/**
 * Starts the bot-link's HTTP/2 TLS server. A client certificate is required and verified against
 * the configured CA during the handshake (no certificate, another CA's, or an expired one never
 * reaches a handler); TLS 1.3 only, no HTTP/1 fallback. HTTP/2 pings every 30 s detect half-open
 * connections. `close()` sends GOAWAY to every session and waits for them to end.
 */
export async function listenMtls(
  options: MtlsOptions,
  handler: (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
): Promise<MtlsServer> {
  const server = http2.createSecureServer(
    {
      ca: readFileSync(options.caPath),
      cert: readFileSync(options.certPath),
      key: readFileSync(options.keyPath),
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.3',
      allowHTTP1: false,
    },
    handler,
  );
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('tlsClientError', (err: Error, socket: TLSSocket) => {
    options.logger.warn({ err: err.message, remote: socket.remoteAddress }, 'bot-link TLS handshake refused');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    server,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      const force = setTimeout(() => {
        for (const session of sessions) session.destroy();
      }, 5_000);
      force.unref();
      await closed;
      clearTimeout(force);
    },
  };
}
