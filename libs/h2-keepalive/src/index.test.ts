import { jest } from '@jest/globals';
import http2 from 'node:http2';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { keepAlive } from './index.js';

/** A plain h2c server whose sessions can be told to stop reading (so PINGs go unanswered). */
async function startServer(): Promise<{ url: string; sessions: http2.ServerHttp2Session[]; close(): Promise<void> }> {
  const sessions: http2.ServerHttp2Session[] = [];
  const server = http2.createServer();
  server.on('session', (s: http2.ServerHttp2Session) => sessions.push(s));
  server.on('stream', (stream) => {
    stream.respond({ ':status': 200 });
    stream.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function connect(url: string): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const client = http2.connect(url);
    client.once('connect', () => resolve(client));
    client.once('error', reject);
  });
}

/** A TCP relay that can freeze: bytes stop flowing both ways while both sockets stay open (half-open). */
async function startRelay(target: string): Promise<{ url: string; freeze(): void; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const pairs: Array<[net.Socket, net.Socket]> = [];
  const relay = net.createServer((inbound) => {
    const outbound = net.connect(Number(port), hostname);
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    pairs.push([inbound, outbound]);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    freeze: () => {
      for (const [a, b] of pairs) {
        a.unpipe(b);
        b.unpipe(a);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [a, b] of pairs) {
          a.destroy();
          b.destroy();
        }
        relay.close(() => resolve());
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('keepAlive', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(() => server.close());

  it('keeps a session whose peer answers PINGs', async () => {
    const client = await connect(server.url);
    let timeouts = 0;
    keepAlive(client, { intervalMs: 20, timeoutMs: 200, onTimeout: () => timeouts++ });
    await sleep(300);
    expect(client.destroyed).toBe(false);
    expect(timeouts).toBe(0);
    client.close();
  });

  it('destroys a session whose peer stops answering (half-open)', async () => {
    const relay = await startRelay(server.url);
    const client = await connect(relay.url);
    relay.freeze();
    let timeouts = 0;
    keepAlive(client, { intervalMs: 20, timeoutMs: 100, onTimeout: () => timeouts++ });
    const closed = new Promise<void>((resolve) => client.once('close', resolve));
    await closed;
    expect(client.destroyed).toBe(true);
    expect(timeouts).toBe(1);
    await relay.close();
  });

  it('never pings a destroyed session, and stops with it', async () => {
    const client = await connect(server.url);
    const ping = jest.spyOn(client, 'ping');
    keepAlive(client, { intervalMs: 5, timeoutMs: 1_000 });
    client.destroy();
    await sleep(60);
    expect(ping).not.toHaveBeenCalled();
  });

  it('a stop function ends the pings', async () => {
    const client = await connect(server.url);
    const ping = jest.spyOn(client, 'ping');
    const stop = keepAlive(client, { intervalMs: 10, timeoutMs: 1_000 });
    await sleep(45);
    stop();
    const count = ping.mock.calls.length;
    expect(count).toBeGreaterThan(0);
    await sleep(50);
    expect(ping.mock.calls.length).toBe(count);
    client.close();
  });
});
