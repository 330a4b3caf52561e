import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '@wordgame/logging';
import { guardListener, type ConnectionRefusal, type ListenerLimits } from './listener-guard.js';

/** A service's `/metrics` listener: where it is and how to close it. */
export interface MetricsListener {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (and HEAD; Prometheus text of `registry`) on its own listener, apart from
 * the service's traffic ports (the backend's Connect port needs the service token, the gateway's
 * REST port is public), so only what reaches `host` (default loopback in both) can scrape it; any
 * other path or method is 404 and a failed collection is 500 with the cause logged, not sent.
 * Reads no request body. `limits` are enforced as on every listener (guardListener, named `metrics`).
 */
export async function listenMetrics(
  host: string,
  port: number,
  registry: Registry,
  logger: Logger,
  limits: ListenerLimits,
  onRefused?: (reason: ConnectionRefusal) => void,
): Promise<MetricsListener> {
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
  const guard = guardListener(server, { ...limits, listener: 'metrics', logger, ...(onRefused ? { onRefused } : {}) }, { http1: [server] });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    port: bound,
    url: `http://${shownHost}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        guard.close();
      }),
  };
}
