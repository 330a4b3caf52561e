import { Writable } from 'node:stream';
import { Counter, Registry } from 'prom-client';
import { createLogger } from '@wordgame/logging';
import { connectNats, listenMetrics, type MetricsListener } from '../src/index.js';

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
    listener = await listenMetrics('127.0.0.1', 0, registry, capture().logger);
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
    listener = await listenMetrics('127.0.0.1', 0, registry, logger);
    const res = await fetch(listener.url);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('secret-cause');
    expect(lines.some((l) => l['msg'] === 'metrics collection failed' && JSON.stringify(l).includes('secret-cause'))).toBe(true);
  });

  it('rejects when the port is taken', async () => {
    listener = await listenMetrics('127.0.0.1', 0, new Registry(), capture().logger);
    await expect(listenMetrics('127.0.0.1', listener.port, new Registry(), capture().logger)).rejects.toThrow(/EADDRINUSE/);
  });
});

// The NATS server the scale-out suite uses (CI starts one at 127.0.0.1:4222).
const NATS_URL = process.env['SCALE_NATS_URL'] ?? 'nats://127.0.0.1:4222';

describe('connectNats', () => {
  it('connects, carries a request and its reply, and logs the server without credentials', async () => {
    const { lines, logger } = capture();
    const withUser = NATS_URL.replace('nats://', 'nats://someone:hunter2@');
    // The local server has no auth: a user in the URL is sent and ignored, and must not be logged.
    const nc = await connectNats([withUser], 2_000, 'service-kit-test', logger);
    try {
      const subject = `kit.test.${process.pid}`;
      const sub = nc.subscribe(subject);
      void (async () => {
        for await (const m of sub) m.respond(new TextEncoder().encode(`re:${m.string()}`));
      })();
      const reply = await nc.request(subject, 'ping', { timeout: 2_000 });
      expect(reply.string()).toBe('re:ping');
      const connected = lines.find((l) => l['msg'] === 'nats connected');
      expect(connected).toBeDefined();
      expect(JSON.stringify(lines)).not.toContain('hunter2');
    } finally {
      await nc.close();
    }
  });
});
