import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { http1Drain, IDLE_LINGER_MS } from '../src/index.js';
import { settlesAtOnce, settlesWithin } from '@wordgame/testkit';

/** One GET on `agent`; answers status, the Connection header and whether the socket was reused. */
function get(agent: http.Agent, port: number, path = '/'): Promise<{ status: number; connection: string | undefined; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, reused: req.reusedSocket }));
    });
    req.once('error', reject);
  });
}

describe('http1Drain', () => {
  let server: http.Server;
  let port: number;
  let release: (() => void)[] = [];
  const closedSockets: number[] = [];

  beforeEach(async () => {
    release = [];
    closedSockets.length = 0;
    // '/slow' answers when the test releases it; everything else at once.
    server = http.createServer((req, res) => {
      if (req.url === '/slow') release.push(() => res.end('slow'));
      else res.end('ok');
    });
    server.keepAliveTimeout = 60_000;
    server.on('connection', (socket) => socket.once('close', () => closedSockets.push(performance.now())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('ends an idle keep-alive socket after the linger, and a busy one right after its answer, which says Connection: close', async () => {
    const drain = http1Drain(server);
    const idleAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const busyAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get(idleAgent, port)).connection).toBe('keep-alive');
    const slow = get(busyAgent, port, '/slow');
    while (release.length === 0) await new Promise((r) => setTimeout(r, 5));

    const t0 = performance.now();
    const drained = drain.start();
    release[0]?.();
    expect((await slow).connection).toBe('close');
    // Closed by the linger, not by the 60 s keep-alive timeout that would otherwise hold it.
    await settlesWithin(drained, server.keepAliveTimeout, 'the drain, before the keep-alive timeout');
    expect(closedSockets).toHaveLength(2);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(IDLE_LINGER_MS - 20);
    idleAgent.destroy();
    busyAgent.destroy();
  });

  it('answers a request that arrives on an idle socket during the linger (Connection: close) instead of resetting it', async () => {
    const drain = http1Drain(server);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    await get(agent, port);
    const drained = drain.start();
    await new Promise((r) => setTimeout(r, IDLE_LINGER_MS / 3));
    const late = await get(agent, port);
    expect(late).toEqual({ status: 200, connection: 'close', reused: true });
    await drained;
    expect(closedSockets).toHaveLength(1);
    agent.destroy();
  });

  it('resolves at once with no connections', async () => {
    // No linger timer and no socket to wait for: settled before the event loop's next turn.
    expect(await settlesAtOnce(http1Drain(server).start())).toBe(true);
  });
});
