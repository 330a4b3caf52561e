import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { Writable } from 'node:stream';
import { Counter, Registry } from 'prom-client';
import { createLogger } from '@wordgame/logging';
import {
  ensureDevCerts,
  openStalled,
  PARTIAL_CLIENT_HELLO,
  PARTIAL_H2_PREFACE,
  PARTIAL_REQUEST_HEAD,
  socketBudget,
} from '@wordgame/testkit';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { guardListener, LISTENER_REFUSED, listenerMetrics, listenMetrics, type ListenerGuard } from '../src/index.js';

const TIMEOUT_MS = 1_000;
/** How long the closes of timed-out sockets may take on a loaded machine: derived from the timeout. */
const CLOSE_DEADLINE_MS = TIMEOUT_MS * 3 + 5_000;

/** A logger whose lines are kept (pino JSON objects). */
function capture(): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('guard-test', 'warn', sink) };
}

/** The refused-connections counter of a test listener. */
const kitMetrics = (registry: Registry, listeners: string[]) =>
  listenerMetrics(new Counter({ name: 'kit_listener_refused_connections_total', ...LISTENER_REFUSED, registers: [registry] }), listeners);

const refusalLines = (lines: Record<string, unknown>[]) => lines.filter((l) => String(l['msg']).startsWith('connections refused'));

async function listening(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** One HTTP/1.1 request on its own keep-alive socket; resolves with the status and the (still open) socket. */
function keptAlive(port: number): Promise<{ status: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /x HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.setEncoding('utf8');
    socket.once('data', (chunk: string) => resolve({ status: chunk.split('\r\n')[0] ?? '', socket }));
    socket.once('error', reject);
  });
}

describe('guardListener (real sockets against real servers)', () => {
  const servers: net.Server[] = [];
  const guards: ListenerGuard[] = [];
  afterEach(async () => {
    for (const g of guards.splice(0)) g.close();
    await Promise.all(servers.splice(0).map(closeServer));
  });

  it('closes silent HTTP/1.1 connections and ones whose first request head never ends, and keeps one that sent a request', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    servers.push(server);
    const registry = new Registry();
    const metrics = kitMetrics(registry, ['web']);
    const guard = guardListener(
      server,
      {
        handshakeTimeoutMs: TIMEOUT_MS,
        maxConnections: 10_000,
        listener: 'web',
        logger: capture().logger,
        onRefused: metrics.onRefused('web'),
      },
      { http1: [server] },
    );
    guards.push(guard);
    const port = await listening(server);

    const served = await keptAlive(port);
    expect(served.status).toBe('HTTP/1.1 200 OK');
    const count = socketBudget(500, 2);
    const silent = await openStalled(port, count);
    const partial = await openStalled(port, count, PARTIAL_REQUEST_HEAD);
    await silent.closedAtLeast(count, CLOSE_DEADLINE_MS);
    await partial.closedAtLeast(count, CLOSE_DEADLINE_MS);
    // Opened before all of them with the same timeout: had the request not settled it, it would be closed by now.
    expect(served.socket.destroyed).toBe(false);
    expect(guard.refused).toEqual({ cap: 0, timeout: 2 * count });
    expect(guard.unsettled).toBe(0);
    expect(await registry.getSingleMetricAsString('kit_listener_refused_connections_total')).toContain(
      `kit_listener_refused_connections_total{listener="web",reason="timeout"} ${2 * count}`,
    );
    served.socket.destroy();
  });

  it('closes h2c connections that send nothing or part of the preface, and keeps a session that sent its SETTINGS', async () => {
    const server = http2.createServer((_req, res) => res.end('ok'));
    servers.push(server);
    const guard = guardListener(
      server,
      { handshakeTimeoutMs: TIMEOUT_MS, maxConnections: 10_000, listener: 'h2c', logger: capture().logger },
      { http2: [server] },
    );
    guards.push(guard);
    const port = await listening(server);
    const session = http2.connect(`http://127.0.0.1:${port}`);
    await new Promise<void>((resolve) => session.once('remoteSettings', () => resolve()));
    const count = socketBudget(300, 2);
    const silent = await openStalled(port, count);
    const partial = await openStalled(port, count, PARTIAL_H2_PREFACE);
    await silent.closedAtLeast(count, CLOSE_DEADLINE_MS);
    await partial.closedAtLeast(count, CLOSE_DEADLINE_MS);
    expect(session.closed || session.destroyed).toBe(false);
    const body = await new Promise<string>((resolve, reject) => {
      const stream = session.request({ ':path': '/' });
      let text = '';
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => (text += c));
      stream.on('end', () => resolve(text));
      stream.on('error', reject);
    });
    expect(body).toBe('ok');
    expect(guard.refused).toEqual({ cap: 0, timeout: 2 * count });
    session.close();
  });

  it('covers the TLS handshake: a silent client and a stalled ClientHello are closed, a full handshake with SETTINGS is kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guard-tls-'));
    try {
      const certs = ensureDevCerts(dir);
      const server = http2.createSecureServer(
        { key: readFileSync(certs.gateway.key), cert: readFileSync(certs.gateway.cert) },
        (_req, res) => res.end('ok'),
      );
      servers.push(server);
      const tlsErrors: string[] = [];
      server.on('tlsClientError', (err: Error & { code?: string }) => tlsErrors.push(err.code ?? err.message));
      const guard = guardListener(
        server,
        { handshakeTimeoutMs: TIMEOUT_MS, maxConnections: 10_000, listener: 'tls', logger: capture().logger },
        { http2: [server] },
      );
      guards.push(guard);
      const port = await listening(server);
      const session = http2.connect(`https://127.0.0.1:${port}`, { ca: readFileSync(certs.ca.cert), servername: 'localhost' });
      await new Promise<void>((resolve, reject) => {
        session.once('remoteSettings', () => resolve());
        session.once('error', reject);
      });
      const count = socketBudget(300, 2);
      const silent = await openStalled(port, count);
      const hello = await openStalled(port, count, PARTIAL_CLIENT_HELLO);
      await silent.closedAtLeast(count, CLOSE_DEADLINE_MS);
      await hello.closedAtLeast(count, CLOSE_DEADLINE_MS);
      expect(session.closed || session.destroyed).toBe(false);
      expect(guard.refused).toEqual({ cap: 0, timeout: 2 * count });
      // What the timeout ends reaches the TLS server as a reset before the handshake finished.
      expect(new Set(tlsErrors)).toEqual(new Set(['ECONNRESET']));
      session.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closes connections over the cap as soon as they are accepted, counts each and logs once per window', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    servers.push(server);
    const { lines, logger } = capture();
    const cap = 5;
    // A timeout far beyond every wait below: what closes here is the cap's doing.
    const guard = guardListener(
      server,
      { handshakeTimeoutMs: 120_000, maxConnections: cap, listener: 'capped', logger, logWindowMs: 600_000 },
      { http1: [server] },
    );
    guards.push(guard);
    const port = await listening(server);
    const held = await openStalled(port, cap);
    const deadline = Date.now() + 10_000;
    while (guard.unsettled < cap) {
      if (Date.now() > deadline) throw new Error(`the server accepted ${guard.unsettled} of ${cap}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const over = await openStalled(port, 50);
    await over.closedAtLeast(50, 10_000);
    expect(held.closed()).toBe(0);
    expect(guard.refused).toEqual({ cap: 50, timeout: 0 });
    // One line for the first refusal; the other 49 wait for the window's end (or the close).
    expect(refusalLines(lines)).toEqual([expect.objectContaining({ listener: 'capped', counts: { cap: 1 }, maxConnections: cap })]);
    guard.close();
    expect(refusalLines(lines).map((l) => l['counts'])).toEqual([{ cap: 1 }, { cap: 49 }]);
    held.destroy();
  });

  it('puts the limits on the /metrics listener too', async () => {
    const { logger } = capture();
    const registry = new Registry();
    const metrics = kitMetrics(registry, ['metrics']);
    const listener = await listenMetrics(
      '127.0.0.1',
      0,
      registry,
      logger,
      { handshakeTimeoutMs: TIMEOUT_MS, maxConnections: 10_000 },
      metrics.onRefused('metrics'),
    );
    try {
      const count = socketBudget(300, 2);
      const silent = await openStalled(listener.port, count);
      const partial = await openStalled(listener.port, count, PARTIAL_REQUEST_HEAD);
      await silent.closedAtLeast(count, CLOSE_DEADLINE_MS);
      await partial.closedAtLeast(count, CLOSE_DEADLINE_MS);
      const text = await (await fetch(listener.url)).text();
      expect(text).toContain(`kit_listener_refused_connections_total{listener="metrics",reason="timeout"} ${2 * count}`);
      expect(text).toContain('kit_listener_refused_connections_total{listener="metrics",reason="cap"} 0');
    } finally {
      await listener.close();
    }
  });
});
