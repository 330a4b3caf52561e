import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';

/** A listening internal h2c server. */
export interface InternalServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Starts the gateway's internal Connect listener (h2c, no TLS): for the backend on a private
 * network or loopback, never the public port. `close()` sends GOAWAY and waits for open calls;
 * sessions still open after `graceMs` are destroyed.
 */
export async function listenInternal(host: string, port: number, routes: (router: ConnectRouter) => void, graceMs = 5_000): Promise<InternalServer> {
  const server = http2.createServer(connectNodeAdapter({ routes }));
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      const force = setTimeout(() => {
        for (const session of sessions) session.destroy();
      }, graceMs);
      force.unref();
      await closed;
      clearTimeout(force);
    },
  };
}
