import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback-only health probe for the bot's own host (container healthcheck); never public. */
export interface HealthServer {
  readonly url: string;
  close(): Promise<void>;
}

type Report = { status: 'ok' | 'degraded' } & Record<string, unknown>;

/**
 * Serves GET /health with `report()` as JSON, GET /livez (the process answers) and GET /readyz
 * with `ready()`: 200 when the status is ok, 503 otherwise; 404 for anything else.
 */
export async function listenHealth(host: string, port: number, report: () => Report, ready: () => Promise<Report>): Promise<HealthServer> {
  const answer = async (req: http.IncomingMessage): Promise<Report | undefined> => {
    if (req.method !== 'GET') return undefined;
    if (req.url === '/livez') return { status: 'ok' };
    if (req.url === '/readyz') return ready();
    return req.url === '/health' ? report() : undefined;
  };
  const server = http.createServer((req, res) => {
    void answer(req).then((body) => {
      res.writeHead(body ? (body.status === 'ok' ? 200 : 503) : 404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(body ?? { error: { code: 'not_found', message: 'no such route' } }, (_k, v: unknown) =>
          typeof v === 'bigint' ? v.toString() : v,
        ),
      );
    });
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
