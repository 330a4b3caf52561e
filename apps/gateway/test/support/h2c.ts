import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { ConnectRouter, Interceptor } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';

/** A running cleartext HTTP/2 Connect server on an ephemeral port. */
export interface H2cServer {
  url: string;
  close(): Promise<void>;
}

/** Serves Connect routes over real h2c on 127.0.0.1:0, as the backend does for the gateway. */
export async function serveH2c(routes: (router: ConnectRouter) => void, interceptors: Interceptor[] = []): Promise<H2cServer> {
  const server = http2.createServer(connectNodeAdapter({ routes, interceptors }));
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s: http2.ServerHttp2Session) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}
