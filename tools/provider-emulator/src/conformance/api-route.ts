import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The API root `@a2seven/yoo-checkout` 1.1.4 calls; it has no option to change it. */
export const YOOKASSA_API_ROOT = 'https://api.yookassa.ru/v3';

/** A request the route refused because it was not addressed to the YooKassa API. */
export interface Refused {
  method: string;
  target: string;
}

/** A running route: the proxy URL to configure and what it refused. */
export interface ApiRoute {
  proxyUrl: string;
  refused: Refused[];
  close(): Promise<void>;
}

/**
 * Routes an unmodified SDK to the emulator. `@a2seven/yoo-checkout` sends every call to the
 * hard-coded `https://api.yookassa.ru/v3` with its own axios (0.21), which honours the standard
 * `https_proxy` variable: with an `http:` proxy it sends the request in plain HTTP to the proxy
 * with the absolute URL as the request target (no CONNECT, no TLS). This is that proxy: it forwards
 * `https://api.yookassa.ru/v3/...` to the same path under `emulatorUrl` (headers and body as sent)
 * and refuses any other target with 502, recording it, so a test sees whether anything would
 * have left for another host.
 */
export async function startApiRoute(emulatorUrl: string): Promise<ApiRoute> {
  const refused: Refused[] = [];
  const upstream = new URL(emulatorUrl);
  const server = http.createServer((request, response) => {
    const target = request.url ?? '';
    if (!target.startsWith(`${YOOKASSA_API_ROOT}/`)) {
      refused.push({ method: request.method ?? '', target });
      response.writeHead(502, { 'content-type': 'text/plain' }).end('only the YooKassa API is routed');
      return;
    }
    const path = target.slice('https://api.yookassa.ru'.length);
    const forwarded = http.request(
      { host: upstream.hostname, port: upstream.port, method: request.method, path, headers: { ...request.headers, host: upstream.host } },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    proxyUrl: `http://127.0.0.1:${port}`,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
