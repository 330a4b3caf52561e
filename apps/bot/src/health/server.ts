import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@wordgame/logging';
import { guardListener, type ConnectionRefusal, type ListenerLimits } from '@wordgame/service-kit/listener-guard';

/** A loopback-only health probe for the bot's own host (container healthcheck); never public. */
export interface HealthServer {
  readonly url: string;
  /** Connections closed over the cap or for a request head not sent in time (also in /health as `listenerRefused`). */
  readonly refused: Readonly<Record<ConnectionRefusal, number>>;
  close(): Promise<void>;
}

type Report = { status: 'ok' | 'degraded' } & Record<string, unknown>;

/**
 * Serves GET /health with `report()` as JSON (plus `listenerRefused`, this listener's refused
 * connection counts), GET /livez (the process answers) and GET /readyz with `ready()`: 200 when the
 * status is ok, 503 otherwise; 404 for anything else. `limits` as on every listener
 * (service-kit guardListener, named `health`).
 */
export async function listenHealth(
  host: string,
  port: number,
  report: () => Report,
  ready: () => Promise<Report>,
  limits: ListenerLimits,
  logger: Logger,
): Promise<HealthServer> {
  let refused: Readonly<Record<ConnectionRefusal, number>> = { cap: 0, timeout: 0 };
  const answer = async (req: http.IncomingMessage): Promise<Report | undefined> => {
    if (req.method !== 'GET') return undefined;
    if (req.url === '/livez') return { status: 'ok' };
    if (req.url === '/readyz') return ready();
    return req.url === '/health' ? { ...report(), listenerRefused: { ...refused } } : undefined;
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
  const guard = guardListener(server, { ...limits, listener: 'health', logger }, { http1: [server] });
  refused = guard.refused;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    refused: guard.refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        guard.close();
      }),
  };
}
