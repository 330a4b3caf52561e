import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { ensureDevCerts, settlesWithin, type DevCerts } from '@wordgame/testkit';
import { h2Closer } from '../src/index.js';

/** A TLS HTTP/2 server on 127.0.0.1:0 with the dev certificates, closed by an h2Closer. */
async function tlsServer(certs: DevCerts) {
  const server = http2.createSecureServer({ cert: readFileSync(certs.gateway.cert), key: readFileSync(certs.gateway.key) });
  server.on('stream', (stream) => {
    stream.respond({ ':status': 200 });
    stream.end('ok');
  });
  const closer = h2Closer(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, closer, port: (server.address() as AddressInfo).port };
}

/** A TCP connection the server has accepted, with no TLS byte sent yet. */
async function accepted(server: http2.Http2SecureServer, port: number): Promise<net.Socket> {
  const seen = new Promise((resolve) => server.once('connection', resolve));
  const socket = net.connect(port, '127.0.0.1');
  await seen;
  return socket;
}

const ms = (since: number) => performance.now() - since;

describe('h2Closer', () => {
  let dir: string;
  let certs: DevCerts;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'h2-close-'));
    certs = ensureDevCerts(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sends GOAWAY to a session whose handshake completes after close(), which then ends without waiting for the grace', async () => {
    const { server, closer, port } = await tlsServer(certs);
    const raw = await accepted(server, port);
    const graceMs = 60_000;
    const closed = closer.close(graceMs);
    // The handshake and the session start only now, after the listener closed.
    const session = http2.connect(`https://localhost:${port}`, {
      createConnection: () => tls.connect({ socket: raw, servername: 'localhost', ca: readFileSync(certs.ca.cert), ALPNProtocols: ['h2'] }),
    });
    session.on('error', () => undefined);
    const goaway = new Promise<boolean>((resolve) => session.once('goaway', () => resolve(true)));
    expect(await goaway).toBe(true);
    await settlesWithin(closed, graceMs, 'the close, before the grace it would otherwise wait out');
    session.destroy();
  });

  it('destroys a connection whose peer went silent once the grace is over', async () => {
    const { closer, port } = await tlsServer(certs);
    // A relay that stops moving bytes both ways and closes nothing: the GOAWAY is never answered, no FIN comes.
    const relayed: net.Socket[] = [];
    const relay = net.createServer((client) => {
      const upstream = net.connect(port, '127.0.0.1');
      client.pipe(upstream);
      upstream.pipe(client);
      relayed.push(client, upstream);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const session = http2.connect(`https://localhost:${(relay.address() as AddressInfo).port}`, { ca: readFileSync(certs.ca.cert) });
    session.on('error', () => undefined);
    const req = session.request({ ':path': '/' });
    req.resume();
    await new Promise((resolve) => req.once('end', resolve));
    for (const socket of relayed) {
      socket.unpipe();
      socket.pause();
    }
    const began = performance.now();
    await closer.close(500);
    // The grace's own timer ended it (a close that waited for the silent peer would never resolve).
    expect(ms(began)).toBeGreaterThanOrEqual(450);
    session.destroy();
    for (const socket of relayed) socket.destroy();
    relay.close();
  });
});
