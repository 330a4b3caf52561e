import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback-only health probe for the bot's own host (container healthcheck); never public. */
export interface HealthServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves GET /health with `report()` as JSON: 200 when `report().status` is ok, 503 otherwise. */
export async function listenHealth(host: string, port: number, report: () => { status: 'ok' | 'degraded' } & Record<string, unknown>): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const body = req.method === 'GET' && req.url === '/health' ? report() : undefined;
    res.writeHead(body ? (body.status === 'ok' ? 200 : 503) : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: { code: 'not_found', message: 'no such route' } }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
