import http2 from 'node:http2';
import net from 'node:net';
import { backendApi, encodeTable, fb } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import { openStalled, PARTIAL_H2_PREFACE, PARTIAL_REQUEST_HEAD, socketBudget } from '@wordgame/testkit';
import { loadBackendConfig } from '../src/config/index.js';
import { listenDual, type DualListener } from '../src/server/listener.js';
import { startHarness, type Harness } from './support/harness.js';

const HANDSHAKE_MS = 1_000;
/** How long the closes of timed-out sockets may take on a loaded machine: derived from the timeout. */
const CLOSE_DEADLINE_MS = HANDSHAKE_MS * 3 + 10_000;

/** Connects, writes `first` (if any), and resolves with what came back once the server closes. */
function probe(port: number, first?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect(port, '127.0.0.1', () => {
      if (first !== undefined) socket.write(first);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

function get(session: http2.ClientHttp2Session, path = '/health'): Promise<string> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    stream.on('end', () => resolve(body));
    stream.on('error', reject);
  });
}

/** One sample of a scrape: the value of `name{labels}` exactly as exposed, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('backend listener timeouts (hostile clients on the private port)', () => {
  let listener: DualListener;
  beforeAll(async () => {
    // Answers once the whole body is in, as the Connect handlers do.
    listener = await listenDual((req, res) => req.resume().on('end', () => res.end('ok')), '127.0.0.1', 0, 1_000, undefined, {
      limits: { handshakeTimeoutMs: 10_000, maxConnections: 10_000 },
      logger: createLogger('listener-test', 'silent'),
      timeouts: { headersMs: 400, requestMs: 800 },
    });
  });
  afterAll(async () => listener.close());

  it('answers 408 and closes a later HTTP/1.1 request whose headers never end', async () => {
    expect(await probe(listener.port, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n')).toMatch(
      /^HTTP\/1\.1 200 [^]*HTTP\/1\.1 408 /,
    );
  });

  it('closes an HTTP/1.1 request whose body never ends', async () => {
    expect(await probe(listener.port, 'POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab')).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe('backend listener handshake timeout (thousands of silent and stalled connections)', () => {
  let listener: DualListener;
  const refused: string[] = [];
  beforeAll(async () => {
    // The production timeouts for later requests (10 s for headers): the first head is the guard's.
    listener = await listenDual((req, res) => req.resume().on('end', () => res.end('ok')), '127.0.0.1', 0, 1_000, undefined, {
      limits: { handshakeTimeoutMs: HANDSHAKE_MS, maxConnections: 10_000 },
      logger: createLogger('listener-test', 'silent'),
      onRefused: (reason) => refused.push(reason),
    });
  });
  afterAll(async () => listener.close());

  it('closes silent connections and stalled first request heads and prefaces, while an HTTP/2 session and HTTP/1.1 keep answering', async () => {
    const session = http2.connect(`http://127.0.0.1:${listener.port}`);
    try {
      expect(await get(session)).toBe('ok');
      refused.length = 0;
      const silentCount = socketBudget(2_000, 2, 2_000);
      const stalledCount = socketBudget(250, 2, 2_000);
      const silent = await openStalled(listener.port, silentCount);
      const heads = await openStalled(listener.port, stalledCount, PARTIAL_REQUEST_HEAD);
      const prefaces = await openStalled(listener.port, stalledCount, PARTIAL_H2_PREFACE);
      // Every one of them is still being held: the listener answers others meanwhile.
      expect(await get(session)).toBe('ok');
      expect(await probe(listener.port, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
      await silent.closedAtLeast(silentCount, CLOSE_DEADLINE_MS);
      await heads.closedAtLeast(stalledCount, CLOSE_DEADLINE_MS);
      await prefaces.closedAtLeast(stalledCount, CLOSE_DEADLINE_MS);
      expect(refused.filter((r) => r === 'timeout')).toHaveLength(silentCount + 2 * stalledCount);
      expect(refused.filter((r) => r !== 'timeout')).toEqual([]);
      // The session opened before all of them: it said who it is, so the timeout never applied to it.
      expect(session.closed || session.destroyed).toBe(false);
      expect(await get(session)).toBe('ok');
    } finally {
      session.close();
    }
  });
});

describe('backend connection cap', () => {
  it('closes connections over BACKEND_MAX_CONNECTIONS at once and counts them, the held ones stay', async () => {
    const refused: string[] = [];
    const cap = 8;
    const listener = await listenDual((_req, res) => res.end('ok'), '127.0.0.1', 0, 1_000, undefined, {
      // A timeout far beyond every wait below: what closes here is the cap's doing.
      limits: { handshakeTimeoutMs: 120_000, maxConnections: cap },
      logger: createLogger('listener-test', 'silent'),
      onRefused: (reason) => refused.push(reason),
    });
    try {
      const held = await openStalled(listener.port, cap);
      const over = await openStalled(listener.port, 40);
      await over.closedAtLeast(40, 15_000);
      expect(held.closed()).toBe(0);
      expect(refused).toEqual(Array.from({ length: 40 }, () => 'cap'));
      held.destroy();
    } finally {
      await listener.close();
    }
  });

  it('refuses caps that do not fit under the open-file limit, naming the variables', () => {
    const env = {
      BACKEND_SERVICE_TOKEN: 'b'.repeat(32),
      GATEWAY_INTERNAL_TOKEN: 'g'.repeat(32),
      DATABASE_URL: 'postgres://127.0.0.1/unused',
    };
    expect(() => loadBackendConfig({ ...env, BACKEND_MAX_CONNECTIONS: '1000000', BACKEND_METRICS_MAX_CONNECTIONS: '1000000' })).toThrow(
      /BACKEND_MAX_CONNECTIONS: the connection caps \(BACKEND_MAX_CONNECTIONS=1000000, BACKEND_METRICS_MAX_CONNECTIONS=1000000\) must fit under the open-file limit/,
    );
    expect(loadBackendConfig(env).BACKEND_HANDSHAKE_TIMEOUT_MS).toBe(5_000);
  });
});

describe('the started backend puts the limits on both its listeners', () => {
  const CHECK = { body: encodeTable((b) => fb.CheckRequest.createCheckRequest(b)) };
  let h: Harness;
  const warnings: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    h = await startHarness({ BACKEND_HANDSHAKE_TIMEOUT_MS: String(HANDSHAKE_MS), BACKEND_MAX_CONNECTIONS: '3000' }, warnings);
  });
  afterAll(async () => h.stop());

  it('closes silent connections on the Connect and /metrics ports within the timeout while calls are answered, counted and logged', async () => {
    const connectPort = Number(new URL(h.url).port);
    const metricsPort = Number(new URL(h.metricsUrl).port);
    const count = socketBudget(2_000, 2, 2_000);
    const onConnect = await openStalled(connectPort, count);
    const onMetrics = await openStalled(metricsPort, 20, PARTIAL_REQUEST_HEAD);
    expect((await h.client(backendApi.SystemService).check(CHECK)).body.length).toBeGreaterThan(0);
    await onConnect.closedAtLeast(count, CLOSE_DEADLINE_MS);
    await onMetrics.closedAtLeast(20, CLOSE_DEADLINE_MS);
    const text = await (await fetch(h.metricsUrl)).text();
    expect(sample(text, 'backend_listener_refused_connections_total{listener="connect",reason="timeout"}')).toBe(count);
    expect(sample(text, 'backend_listener_refused_connections_total{listener="metrics",reason="timeout"}')).toBe(20);
    expect(sample(text, 'backend_listener_refused_connections_total{listener="connect",reason="cap"}')).toBe(0);
    const lines = warnings.filter((w) => String(w['msg']).startsWith('connections refused'));
    // Rate-limited: a line per listener for the first refusal, then at most one per 10 s window.
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThan(10);
    expect((await h.client(backendApi.SystemService).check(CHECK)).body.length).toBeGreaterThan(0);
  });
});
