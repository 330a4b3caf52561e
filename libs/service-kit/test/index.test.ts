import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connect, nkeyAuthenticator, PermissionViolationError, type NatsConnection } from '@nats-io/transport-node';
import { Counter, Registry } from 'prom-client';
import { createLogger } from '@wordgame/logging';
import { issueLeaf, makeCa, natsUserKeys, settlesWithin, startNatsServer, type NatsTestServer, type NatsUser } from '@wordgame/testkit';
import { closeNats, connectNats, listenMetrics, type MetricsListener } from '../src/index.js';

const credentials = (u: NatsUser) => ({ seed: u.seed });
/** Listener limits no test here reaches. */
const LIMITS = { handshakeTimeoutMs: 10_000, maxConnections: 64 };

async function waitUntil(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The permission violations the server reports on `nc`, as they arrive. */
function permissionErrors(nc: NatsConnection): PermissionViolationError[] {
  const seen: PermissionViolationError[] = [];
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'error' && s.error instanceof PermissionViolationError) seen.push(s.error);
  })();
  return seen;
}

/** A logger whose lines are kept (pino JSON objects), to check what is and is not logged. */
function capture(): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('service-kit-test', 'debug', sink) };
}

describe('listenMetrics', () => {
  let listener: MetricsListener | undefined;
  afterEach(async () => {
    await listener?.close();
    listener = undefined;
  });

  it('serves the registry on GET and HEAD /metrics on the bound port, 404 elsewhere', async () => {
    const registry = new Registry();
    new Counter({ name: 'kit_test_total', help: 'a test counter', registers: [registry] }).inc(3);
    listener = await listenMetrics('127.0.0.1', 0, registry, capture().logger, LIMITS);
    expect(listener.port).toBeGreaterThan(0);
    expect(listener.url).toBe(`http://127.0.0.1:${listener.port}/metrics`);

    const get = await fetch(`${listener.url}?x=1`);
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe(registry.contentType);
    expect(await get.text()).toContain('kit_test_total 3');

    const head = await fetch(listener.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');

    for (const [path, method] of [
      ['/metrics', 'POST'],
      ['/metricsx', 'GET'],
      ['/', 'GET'],
    ] as const) {
      const res = await fetch(`http://127.0.0.1:${listener.port}${path}`, { method });
      expect(res.status).toBe(404);
      await res.body?.cancel();
    }
  });

  it('answers 500 without the cause when collection fails, and logs the cause', async () => {
    const registry = new Registry();
    registry.metrics = () => Promise.reject(new Error('secret-cause'));
    const { lines, logger } = capture();
    listener = await listenMetrics('127.0.0.1', 0, registry, logger, LIMITS);
    const res = await fetch(listener.url);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('secret-cause');
    expect(lines.some((l) => l['msg'] === 'metrics collection failed' && JSON.stringify(l).includes('secret-cause'))).toBe(true);
  });

  it('rejects when the port is taken', async () => {
    listener = await listenMetrics('127.0.0.1', 0, new Registry(), capture().logger, LIMITS);
    await expect(listenMetrics('127.0.0.1', listener.port, new Registry(), capture().logger, LIMITS)).rejects.toThrow(/EADDRINUSE/);
  });
});

describe('connectNats against ops/nats/nats.conf', () => {
  let server: NatsTestServer;
  const conns: NatsConnection[] = [];
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    for (const nc of conns) await nc.close();
    await server.stop();
  });
  const as = async (user: NatsUser, logger = capture().logger) => {
    const nc = await connectNats(
      {
        servers: [server.url],
        ...credentials(user),
        inboxPrefix: `${server.prefix}.botlink.replies`,
        pingIntervalMs: 2_000,
        name: 'service-kit-test',
      },
      logger,
    );
    conns.push(nc);
    return nc;
  };

  it('connects as the gateway, carries a command request and its reply, and logs its public key, never its seed', async () => {
    const { lines, logger } = capture();
    const nc = await as(server.gateway, logger);
    const subject = `${server.prefix}.botlink.commands.owner`;
    nc.subscribe(subject, { callback: (_err, m) => void m.respond(new TextEncoder().encode(`re:${m.string()}`)) });
    const reply = await nc.request(subject, 'ping', { timeout: 2_000 });
    expect(reply.string()).toBe('re:ping');
    expect(lines.find((l) => l['msg'] === 'nats connected')).toMatchObject({ nkey: server.gateway.publicKey, tls: false });
    expect(JSON.stringify(lines)).not.toContain(server.gateway.seed);
  });

  it('refuses a client without credentials, with a user and password, or with an NKEY the server does not know', async () => {
    await expect(connect({ servers: server.url, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
    await expect(connect({ servers: server.url, user: 'gateway', pass: 'gateway', reconnect: false })).rejects.toThrow(
      /Authorization Violation/i,
    );
    const stranger = natsUserKeys();
    await expect(
      connect({ servers: server.url, authenticator: nkeyAuthenticator(new TextEncoder().encode(stranger.seed)), reconnect: false }),
    ).rejects.toThrow(/Authorization Violation/i);
  });

  it('lets the backend user publish and read game events only', async () => {
    const nc = await as(server.backend);
    const game = `${server.prefix}.game.42.events`;
    const got: string[] = [];
    nc.subscribe(game, { callback: (_err, m) => void got.push(m.string()) });
    nc.publish(game, 'move');
    await nc.flush();
    await waitUntil(() => got.length === 1);
    const refused = permissionErrors(nc);
    const denied = nc.subscribe(`${server.prefix}.botlink.commands.owner`);
    const ended = (async () => {
      for await (const _ of denied) return 'message';
      return 'closed';
    })().catch((err: unknown) => err);
    nc.publish(`${server.prefix}.botlink.commands.any`, 'x');
    nc.publish(`${server.prefix}.game.42.moves`, 'x');
    await nc.flush();
    await waitUntil(() => refused.length >= 3);
    expect(await ended).toBeInstanceOf(PermissionViolationError);
    expect(refused.map((e) => `${e.operation} ${e.subject}`).sort()).toEqual([
      `publish ${server.prefix}.botlink.commands.any`,
      `publish ${server.prefix}.game.42.moves`,
      `subscription ${server.prefix}.botlink.commands.owner`,
    ]);
  });
});

describe('connectNats over TLS (ops/nats/nats-tls.conf)', () => {
  let server: NatsTestServer;
  let dir: string;
  let ca: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-tls-'));
    const root = makeCa(dir, 'nats-ca');
    ca = root.cert;
    const leaf = issueLeaf(dir, 'nats', root, { commonName: 'nats', usage: 'server', altNames: ['IP:127.0.0.1', 'DNS:localhost'] });
    server = await startNatsServer({ tls: leaf });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects with the CA of NATS_TLS_CA, and not without it', async () => {
    const { lines, logger } = capture();
    const options = { servers: [server.url], ...credentials(server.backend), pingIntervalMs: 2_000, name: 'tls-test' };
    const nc = await connectNats({ ...options, tlsCaFile: ca }, logger);
    try {
      expect(server.url.startsWith('tls://')).toBe(true);
      expect(lines.find((l) => l['msg'] === 'nats connected')).toMatchObject({ tls: true });
      const game = `${server.prefix}.game.1.events`;
      const sub = nc.subscribe(game, { max: 1 });
      nc.publish(game, 'over tls');
      for await (const m of sub) expect(m.string()).toBe('over tls');
    } finally {
      await nc.close();
    }
    // The server's certificate chains to a CA the system does not know.
    await expect(
      connect({
        servers: server.url,
        authenticator: nkeyAuthenticator(new TextEncoder().encode(server.backend.seed)),
        tls: {},
        reconnect: false,
      }),
    ).rejects.toThrow(/certificate/i);
  });
});

describe('closeNats', () => {
  let server: NatsTestServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server.stop();
  });
  const options = (port: number) => ({
    servers: [`nats://127.0.0.1:${port}`],
    ...credentials(server.gateway),
    inboxPrefix: `${server.prefix}.botlink.replies`,
    pingIntervalMs: 2_000,
    name: 'service-kit-close',
  });

  it('drains a healthy connection and answers true', async () => {
    const nc = await connectNats(options(server.port), capture().logger);
    await expect(closeNats(nc, 1_000)).resolves.toBe(true);
    expect(nc.isClosed()).toBe(true);
  });

  it('closes a connection whose server went silent once the drain wait is over (its reconnect timers would hold the process)', async () => {
    // A relay that stops forwarding both ways while both sockets stay open: a half-open link.
    const pairs: net.Socket[] = [];
    const relay = net.createServer((client) => {
      const upstream = net.connect(server.port, '127.0.0.1');
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('error', () => undefined);
      upstream.on('error', () => undefined);
      pairs.push(client, upstream);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    try {
      const nc = await connectNats(options((relay.address() as net.AddressInfo).port), capture().logger);
      await nc.flush();
      for (const socket of pairs) {
        socket.unpipe();
        socket.pause();
      }
      // Ended by the 300 ms bound, not by the client's missed pings (pingIntervalMs x 2).
      await expect(settlesWithin(closeNats(nc, 300), 2 * 2_000, 'the bounded close, before two missed pings')).resolves.toBe(false);
      expect(nc.isClosed()).toBe(true);
    } finally {
      for (const socket of pairs) socket.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    }
  });
});
