import { randomBytes } from 'node:crypto';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { readFileSync } from 'node:fs';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { botlink, connector } from '@wordgame/contracts';
import { issueLeaf, makeCa, type CertPair } from '@wordgame/testkit';
import fc from 'fast-check';
import { eventually, sample, startTestGateway, type TestGateway } from './support/botlink-gateway.js';
import { TestBot } from './support/botlink-bot.js';
import { FUZZ_SCALE, FUZZ_SEED } from './support/hostile.js';

const notify = {
  case: 'notify' as const,
  value: { recipient: { kind: connector.PlatformKind.TELEGRAM, externalId: '42' }, kind: connector.NotificationKind.PAYMENT_CREDITED },
};

/** Writes bytes to the bot-link port, then waits until the gateway closes the socket (or 2 s pass). */
function rawBytes(port: number, bytes: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, 2_000);
    socket.on('connect', () => socket.end(bytes));
    socket.on('close', done);
    socket.on('error', done);
  });
}

/** A TLS handshake with the given client identity; answers whether the server accepted it (any TLS alert is a refusal). */
function handshake(
  port: number,
  ca: string,
  options: { cert?: string; key?: string; minVersion?: 'TLSv1.2' | 'TLSv1.3'; maxVersion?: 'TLSv1.2' | 'TLSv1.3' },
): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: '127.0.0.1',
      port,
      ca: readFileSync(ca),
      servername: 'localhost',
      ALPNProtocols: ['h2'],
      ...(options.cert && options.key ? { cert: readFileSync(options.cert), key: readFileSync(options.key) } : {}),
      ...(options.minVersion ? { minVersion: options.minVersion } : {}),
      ...(options.maxVersion ? { maxVersion: options.maxVersion } : {}),
    });
    let settled = false;
    const finish = (ok: boolean) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(ok);
    };
    // TLS 1.3 reports a refused client certificate only after the handshake: wait for data or the alert.
    socket.once('secureConnect', () => setTimeout(() => finish(!socket.destroyed), 300));
    socket.once('error', () => finish(false));
    socket.once('close', () => finish(false));
  });
}

/** ForwardPayment from a bot presenting `client` (binary: the fast path; JSON: connect-node); answers the Connect code. */
async function forwardPayment(port: number, ca: string, client: CertPair, binary = true): Promise<Code> {
  const transport = createGrpcTransport({
    baseUrl: `https://localhost:${port}`,
    useBinaryFormat: binary,
    nodeOptions: { ca: readFileSync(ca), cert: readFileSync(client.cert), key: readFileSync(client.key) },
  });
  const request = {
    orderId: '00000000-0000-4000-8000-000000000001',
    platformPaymentChargeId: 'forged-charge',
    amount: 100n,
    platformUserId: 7n,
  };
  const err = await createClient(botlink.BotLink, transport)
    .forwardPayment(request, { timeoutMs: 3_000 })
    .then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
  return err?.code ?? Code.Unknown;
}

describe('bot-link mutual TLS edge cases and junk on the port', () => {
  let gw: TestGateway;
  let port: number;
  const bots: TestBot[] = [];

  beforeAll(async () => {
    gw = await startTestGateway();
    port = Number(new URL(gw.urls.botlinkUrl).port);
  });
  afterAll(async () => {
    await Promise.all(bots.splice(0).map((b) => b.close()));
    await gw.stop();
  });

  it('refuses an expired client certificate, one from another CA, a server certificate, none, and TLS 1.2', async () => {
    const dir = join(gw.dir, 'edge');
    const expired = issueLeaf(
      dir,
      'expired',
      { cert: gw.certs.ca.cert, key: gw.certs.ca.key },
      { commonName: 'bot', usage: 'client', days: 0 },
    );
    const otherCa = makeCa(join(dir, 'other'), 'other-ca');
    const foreign = issueLeaf(join(dir, 'other'), 'foreign', otherCa, { commonName: 'bot', usage: 'client' });
    const serverUsage = issueLeaf(
      dir,
      'server-usage',
      { cert: gw.certs.ca.cert, key: gw.certs.ca.key },
      { commonName: 'bot', usage: 'server' },
    );
    const ca = gw.certs.ca.cert;

    expect(await handshake(port, ca, { ...gw.certs.bot })).toBe(true);
    expect(await handshake(port, ca, { ...expired })).toBe(false);
    expect(await handshake(port, ca, { ...foreign })).toBe(false);
    expect(await handshake(port, ca, { ...serverUsage })).toBe(false);
    expect(await handshake(port, ca, {})).toBe(false);
    expect(await handshake(port, ca, { ...gw.certs.bot, maxVersion: 'TLSv1.2' })).toBe(false);

    for (const client of [expired, foreign, undefined]) {
      const b = new TestBot({ url: gw.urls.botlinkUrl, ca, ...(client ? { client } : {}) });
      bots.push(b);
      b.hello('refused');
      expect(await b.ended).toBeDefined();
    }
    const text = await gw.metrics();
    expect(sample(text, 'botlink_connected_bots')).toBe(0);
    expect(sample(text, 'botlink_link_rejections_total{reason="no_hello"}')).toBe(0);
    expect(await gw.gateway.hub.send(notify, { timeoutMs: 1_000 })).toEqual({ status: 'no_bot' });
  }, 60_000);

  it('takes only a clientAuth certificate naming an allowed bot: no EKU or a name off BOTLINK_ALLOWED_CLIENTS is refused for Link and ForwardPayment, and counted', async () => {
    const dir = join(gw.dir, 'identity');
    const ca = { cert: gw.certs.ca.cert, key: gw.certs.ca.key };
    const noUsage = issueLeaf(dir, 'no-usage', ca, { commonName: 'bot', usage: 'none' });
    const stranger = issueLeaf(dir, 'stranger', ca, { commonName: 'mallory', usage: 'client', altNames: ['DNS:mallory.example'] });
    const bySan = issueLeaf(dir, 'by-san', ca, { commonName: 'bot-7', usage: 'client', altNames: ['DNS:bot'] });
    const rejections = async () => sample(await gw.metrics(), 'botlink_link_rejections_total{reason="client_identity"}') ?? 0;
    expect(await rejections()).toBe(0);

    // The TLS handshake itself completes (the CA signed both): the refusal is the gateway's own.
    expect(await handshake(port, gw.certs.ca.cert, { ...noUsage })).toBe(true);
    for (const [client, code] of [
      [noUsage, Code.Unauthenticated],
      [stranger, Code.PermissionDenied],
    ] as const) {
      const b = new TestBot({ url: gw.urls.botlinkUrl, ca: gw.certs.ca.cert, client });
      bots.push(b);
      b.hello('impostor', true);
      expect((await b.ended)?.code).toBe(code);
      expect(await forwardPayment(port, gw.certs.ca.cert, client)).toBe(code);
      expect(await forwardPayment(port, gw.certs.ca.cert, client, false)).toBe(code);
    }
    expect(await rejections()).toBe(6);
    expect(sample(await gw.metrics(), 'botlink_connected_bots')).toBe(0);
    expect(await gw.gateway.hub.send(notify, { timeoutMs: 1_000 })).toEqual({ status: 'no_bot' });

    // An allowed name in a DNS subjectAltName is taken; the call reaches the (here unreachable) backend.
    expect(await forwardPayment(port, gw.certs.ca.cert, bySan)).toBe(Code.Unavailable);
    expect(await forwardPayment(port, gw.certs.ca.cert, gw.certs.bot)).toBe(Code.Unavailable);
    const good = new TestBot({ url: gw.urls.botlinkUrl, ca: gw.certs.ca.cert, client: bySan });
    bots.push(good);
    good.hello('by-san', true);
    await eventually(async () => sample(await gw.metrics(), 'botlink_connected_bots') === 1);
    await good.close();
    await eventually(async () => sample(await gw.metrics(), 'botlink_connected_bots') === 0);
    expect(await rejections()).toBe(6);
  }, 60_000);

  it('survives random bytes and truncated handshakes on the bot-link port; a real bot still links and gets commands', async () => {
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 2_048 }).map((a) => Buffer.from(a)),
          fc
            .nat({ max: 200 })
            .map((n) => Buffer.concat([Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]), randomBytes(n)])),
          fc.constantFrom(
            Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
            Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
            Buffer.alloc(0),
          ),
        ),
        async (bytes) => {
          tried++;
          await rawBytes(port, bytes);
        },
      ),
      { numRuns: 60 * FUZZ_SCALE, seed: FUZZ_SEED },
    );
    expect(tried).toBeGreaterThanOrEqual(60);
    const good = new TestBot({ url: gw.urls.botlinkUrl, ca: gw.certs.ca.cert, client: gw.certs.bot });
    bots.push(good);
    good.hello('after-junk', true);
    await eventually(async () => sample(await gw.metrics(), 'botlink_connected_bots') === 1);
    expect(await gw.gateway.hub.send(notify, { timeoutMs: 5_000 })).toMatchObject({ status: 'delivered' });
    expect(sample(await gw.metrics(), 'botlink_link_rejections_total{reason="tls_handshake"}')).toBeGreaterThan(0);
  }, 90_000);
});
