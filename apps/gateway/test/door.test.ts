import http from 'node:http';
import { startEdge, type Edge } from './support/edge.js';
import { silentBackend, type SilentBackend } from './support/silent-backend.js';

/** One request on its own connection, as the player holding `token`; resolves with its answer, or stays pending (the returned `abort` ends it). */
function request(
  url: string,
  path: string,
  token: string,
): { answer: Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>; abort(): void } {
  const req = http.request(`${url}${path}`, {
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  });
  const answer = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
  answer.catch(() => undefined);
  req.end(JSON.stringify({ product_id: '1' }));
  return { answer, abort: () => req.destroy() };
}

async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 10));
}

const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

describe('the door: overload is refused before any work, admitted work is served', () => {
  let backend: SilentBackend;
  let edge: Edge;
  beforeAll(async () => {
    backend = await silentBackend();
    edge = await startEdge(backend.url, { maxInFlight: 2, sessionCacheMs: 0 });
  });
  afterAll(async () => {
    await edge.close();
    await backend.close();
  });

  it('answers the request over GATEWAY_MAX_IN_FLIGHT 503 overloaded with Retry-After at once, counts it, and admits again once one in progress ends', async () => {
    const first = request(edge.url, '/api/v1/user/wallet', 'player-token-1');
    const second = request(edge.url, '/api/v1/user/wallet', 'player-token-2');
    await until(() => backend.calls() === 2);
    expect(gauge(await edge.metrics(), 'gateway_in_flight_requests')).toBe(2);

    const shed = await request(edge.url, '/api/v1/user/wallet', 'player-token-3').answer;
    expect(shed.status).toBe(503);
    expect(shed.headers['retry-after']).toBe('1');
    expect(JSON.parse(shed.body)).toEqual({
      error: { code: 'overloaded', message: 'the service is busy; try again shortly (see Retry-After)' },
    });
    expect(backend.calls()).toBe(2);
    const metrics = await edge.metrics();
    expect(gauge(metrics, 'gateway_shed_total')).toBe(1);
    expect(gauge(metrics, 'gateway_max_in_flight')).toBe(2);

    // Probes are not behind the door.
    const live = await fetch(`${edge.url}/livez`);
    expect(live.status).toBe(200);

    // A client that gives up leaves; the next request is admitted and reaches the backend.
    first.abort();
    await until(async () => gauge(await edge.metrics(), 'gateway_in_flight_requests') === 1);
    const third = request(edge.url, '/api/v1/user/wallet', 'player-token-4');
    await until(() => backend.calls() === 3);
    expect(gauge(await edge.metrics(), 'gateway_shed_total')).toBe(1);
    second.abort();
    third.abort();
    await until(async () => gauge(await edge.metrics(), 'gateway_in_flight_requests') === 0);

    // A request answered on a connection that stays open leaves too.
    const anonymous = await fetch(`${edge.url}/api/v1/user/wallet`);
    expect(anonymous.status).toBe(401);
    await until(async () => gauge(await edge.metrics(), 'gateway_in_flight_requests') === 0);
    expect(gauge(await edge.metrics(), 'gateway_shed_total')).toBe(1);
  });

  it('a client trickling its body holds no place at the door', async () => {
    const calls = backend.calls();
    const trickling = [1, 2].map((i) => {
      const req = http.request(`${edge.url}/api/v1/user/wallet`, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': '64', authorization: `Bearer trickle-${i}` },
      });
      req.on('error', () => undefined);
      req.write('{"product_id":');
      return req;
    });
    const first = request(edge.url, '/api/v1/user/wallet', 'player-token-5');
    const second = request(edge.url, '/api/v1/user/wallet', 'player-token-6');
    await until(() => backend.calls() === calls + 2);
    const shed = await request(edge.url, '/api/v1/user/wallet', 'player-token-7').answer;
    expect(shed.status).toBe(503);
    for (const r of trickling) r.destroy();
    first.abort();
    second.abort();
    await until(async () => gauge(await edge.metrics(), 'gateway_in_flight_requests') === 0);
  });
});
