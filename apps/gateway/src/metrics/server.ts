import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '@wordgame/logging';

/** The `/metrics` listener: where it is and how to close it. */
export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (Prometheus text of `registry`) on its own listener, apart from the public
 * REST port, so only what reaches this host and port (default loopback) can scrape it; anything
 * else is 404. Reads no request body.
 */
export async function listenMetrics(host: string, port: number, registry: Registry, logger: Logger): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => {
        logger.error({ err }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n');
      },
    );
  });
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
