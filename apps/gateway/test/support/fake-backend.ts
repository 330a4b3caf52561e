import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { backendApi, encodeTable, fb } from '@wordgame/contracts';

/**
 * A real Connect server (h2c) that implements the backend's SystemService with a status the test
 * controls, so gateway tests exercise the real transport without a database.
 */
export async function startStatusBackend(status: () => 'ok' | 'degraded'): Promise<{ url: string; close(): Promise<void> }> {
  const handler = connectNodeAdapter({
    routes: (router) =>
      router.service(backendApi.SystemService, {
        check: () => ({
          body: encodeTable((b) =>
            fb.CheckResponse.createCheckResponse(b, b.createString(status()), b.createString('test'), b.createString('pglite'), 12n, 1n),
          ),
        }),
      }),
  });
  const server = http2.createServer(handler);
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
