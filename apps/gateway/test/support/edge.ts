import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '@wordgame/logging';
import { TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { createBackendClients } from '../../src/backend/client.js';
import { createHttpApp } from '../../src/http-app.js';
import { createRegistry } from '../../src/metrics/registry.js';
import { TEST_POLICY_LINKS } from './gateway-config.js';

/** The gateway's HTTP edge listening on an ephemeral port, with its log lines captured. */
export interface Edge {
  url: string;
  logs: Record<string, unknown>[];
  /** The edge's metrics as the metrics listener would serve them. */
  metrics(): Promise<string>;
  close(): Promise<void>;
}

/** Starts the real HTTP edge (createHttpApp) against a backend URL, on 127.0.0.1:0. */
export async function startEdge(
  backendUrl: string,
  options: {
    sessionCacheMs?: number;
    draining?: () => boolean;
    maxInFlight?: number;
    directWallet?: boolean;
    trustProxy?: boolean | number | string[];
  } = {},
): Promise<Edge> {
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const registry = createRegistry();
  const handler = createHttpApp({
    logger: createLogger('gateway-test', 'info', sink),
    registry,
    backend: createBackendClients(backendUrl, TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN),
    confirmPageSecret: TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN,
    walletLinks: { privacyPolicyUrl: TEST_POLICY_LINKS.PRIVACY_POLICY_URL, termsOfServiceUrl: TEST_POLICY_LINKS.TERMS_OF_SERVICE_URL },
    ...options,
  });
  const server: Server = await new Promise((resolve) => {
    const s = createServer(handler).listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    logs,
    metrics: () => registry.metrics(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** fetch with a JSON body and the given headers; answers status, headers and the parsed body. */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; json?: unknown; raw?: string } = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  } else if (init.raw !== undefined) {
    body = init.raw;
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}
