import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { create, toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { connector, gatewayApi } from '@wordgame/contracts';
import { withServiceToken } from '@wordgame/h2-unary';
import {
  DEV_BOT_CLIENT_NAME,
  DEV_POLICY_LINKS,
  ensureDevCerts,
  floodRequest,
  rssBytes,
  startChildService,
  TEST_SERVICE_TOKENS,
  type ChildService,
  type DevCerts,
} from '@wordgame/testkit';
import { eventually, sample, startTestGateway, type TestGateway } from './support/botlink-gateway.js';
import { TestBot } from './support/botlink-bot.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SEND_PATH = '/gateway.v1.BotCommandService/Send';
const MiB = 1024 * 1024;

/** A Send request for a notify command, as the backend would make it. */
function sendBody(): Buffer {
  const request = create(gatewayApi.SendRequestSchema, {
    command: {
      payload: {
        case: 'notify',
        value: {
          recipient: { kind: connector.PlatformKind.TELEGRAM, externalId: '42' },
          kind: connector.NotificationKind.PAYMENT_CREDITED,
        },
      },
    },
    timeoutMs: 2_000,
  });
  return Buffer.from(toBinary(gatewayApi.SendRequestSchema, request));
}

/** One raw HTTP/2 unary Connect call to `url`; answers status and body text. */
async function rawSend(url: string, headers: http2.OutgoingHttpHeaders): Promise<{ status: number; text: string }> {
  const session = http2.connect(url);
  try {
    return await new Promise((done, fail) => {
      const stream = session.request({ ':method': 'POST', ':path': SEND_PATH, 'content-type': 'application/proto', ...headers });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => done({ status, text: Buffer.concat(chunks).toString('utf8') }));
      stream.on('error', fail);
      stream.end(sendBody());
    });
  } finally {
    session.close();
  }
}

describe('gateway internal port: only the backend may make the bot speak', () => {
  let gw: TestGateway;
  let bot: TestBot;
  const received: string[] = [];
  beforeAll(async () => {
    gw = await startTestGateway();
    bot = new TestBot({
      url: gw.urls.botlinkUrl,
      ca: gw.certs.ca.cert,
      client: gw.certs.bot,
      answer: (c) => {
        received.push(c.payload.case ?? '');
        return { delivered: true };
      },
    });
    bot.hello('internal-edge', true);
    await eventually(async () => sample(await gw.metrics(), 'botlink_connected_bots') === 1);
  });
  afterAll(async () => {
    await bot.close();
    await gw.stop();
  });

  it('refuses a call without the token or with a wrong one (Unauthenticated, counted, nothing sent to the bot); with it the bot gets the command', async () => {
    expect(await rawSend(gw.urls.internalUrl, {})).toMatchObject({ status: 401 });
    const wrong = await rawSend(gw.urls.internalUrl, { authorization: 'Bearer not-the-internal-token-0123456789abcdef' });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text)).toMatchObject({ code: 'unauthenticated' });
    // The backend's other token is not this port's.
    const crossed = createClient(
      gatewayApi.BotCommandService,
      createConnectTransport({
        baseUrl: gw.urls.internalUrl,
        httpVersion: '2',
        interceptors: [withServiceToken(TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN)],
      }),
    );
    const err = await crossed
      .send({ command: { payload: { case: 'chatGate', value: { externalId: '7', allow: true } } } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unauthenticated);

    const text = await gw.metrics();
    expect(sample(text, 'gateway_internal_refusals_total{reason="missing_token"}')).toBe(1);
    expect(sample(text, 'gateway_internal_refusals_total{reason="wrong_token"}')).toBe(2);
    expect(sample(text, 'botlink_commands_total{kind="notify",outcome="delivered"}') ?? 0).toBe(0);
    expect(received).toEqual([]);

    const ok = await rawSend(gw.urls.internalUrl, { authorization: `Bearer ${TEST_SERVICE_TOKENS.GATEWAY_INTERNAL_TOKEN}` });
    expect(ok.status).toBe(200);
    expect(received).toEqual(['notify']);
  });
});

describe('gateway request size limits (a child process, its RSS measured)', () => {
  let dir: string;
  let certs: DevCerts;
  let gateway: ChildService;
  let internalUrl: string;
  let botlinkUrl: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-flood-'));
    certs = ensureDevCerts(dir);
    gateway = await startChildService(
      ROOT,
      'apps/gateway/src/main.ts',
      {
        ...TEST_SERVICE_TOKENS,
        BOTLINK_ALLOWED_CLIENTS: DEV_BOT_CLIENT_NAME,
        ...DEV_POLICY_LINKS,
        BACKEND_URL: 'http://127.0.0.1:1',
        GATEWAY_HTTP_PORT: '0',
        BOTLINK_PORT: '0',
        GATEWAY_INTERNAL_PORT: '0',
        GATEWAY_METRICS_PORT: '0',
        BOTLINK_TLS_CA: certs.ca.cert,
        BOTLINK_TLS_CERT: certs.gateway.cert,
        BOTLINK_TLS_KEY: certs.gateway.key,
        LOG_LEVEL: 'info',
      },
      (line) => line['msg'] === 'gateway listening',
    );
    internalUrl = String(gateway.ready['internalUrl']);
    botlinkUrl = String(gateway.ready['botlinkUrl']);
  }, 90_000);
  afterAll(async () => {
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses 100 MiB bodies early on the internal port (with and without the token) and on the bot-link, with RSS bounded', async () => {
    const before = rssBytes(gateway.pid);
    let peak = before;
    const watch = setInterval(() => (peak = Math.max(peak, rssBytes(gateway.pid))), 50);
    const tls = {
      ca: readFileSync(certs.ca.cert),
      cert: readFileSync(certs.bot.cert),
      key: readFileSync(certs.bot.key),
      servername: 'localhost',
    };
    // A gRPC envelope header announcing one 100 MiB message.
    const envelope = Buffer.from([0, 0, 0, 0, 0]);
    envelope.writeUInt32BE(100 * MiB, 1);
    try {
      const token = { authorization: `Bearer ${TEST_SERVICE_TOKENS.GATEWAY_INTERNAL_TOKEN}` };
      const internal = await floodRequest(internalUrl, { ':path': SEND_PATH, 'content-type': 'application/proto', ...token }, 100 * MiB);
      const stranger = await floodRequest(internalUrl, { ':path': SEND_PATH, 'content-type': 'application/proto' }, 100 * MiB);
      const grpc = { 'content-type': 'application/grpc', te: 'trailers' };
      const unary = await floodRequest(botlinkUrl, { ':path': '/botlink.v1.BotLink/ForwardPayment', ...grpc }, 100 * MiB, {
        connect: tls,
        prefix: envelope,
      });
      const link = await floodRequest(botlinkUrl, { ':path': '/botlink.v1.BotLink/Link', ...grpc }, 100 * MiB, {
        connect: tls,
        prefix: envelope,
      });
      for (const result of [internal, stranger, unary, link]) {
        expect(result.stalled).toBe(false);
        expect(result.sent).toBeLessThan(16 * MiB);
      }
      expect(internal.status).toBe(429); // ResourceExhausted
      expect(stranger.status).toBe(401);
      expect(unary.headers['grpc-status']).toBe(String(Code.ResourceExhausted));
      expect(link.headers['grpc-status']).toBe(String(Code.ResourceExhausted));
    } finally {
      clearInterval(watch);
    }
    expect(peak - before).toBeLessThan(64 * MiB);
  }, 120_000);

  it("refuses an authenticated sender's oversized body at the 1 MiB limit (streamed, declared, compressed, gRPC-framed) and resets the stream, with RSS bounded", async () => {
    const before = rssBytes(gateway.pid);
    let peak = before;
    const watch = setInterval(() => (peak = Math.max(peak, rssBytes(gateway.pid))), 50);
    const headers = {
      ':path': SEND_PATH,
      'content-type': 'application/proto',
      authorization: `Bearer ${TEST_SERVICE_TOKENS.GATEWAY_INTERNAL_TOKEN}`,
    };
    // The listener's documented limit, plus one flow-control window of bytes already in flight.
    const withinLimit = MiB + 256 * 1024;
    try {
      // A sender that ignores the answer and writes on: the stream is reset, not left open.
      const streamed = await floodRequest(internalUrl, headers, 100 * MiB, { ignoreAnswer: true });
      expect(streamed).toMatchObject({ status: 429, reset: true, stalled: false });
      expect(streamed.sent).toBeLessThan(withinLimit);

      const declared = await floodRequest(internalUrl, { ...headers, 'content-length': String(100 * MiB) }, 100 * MiB, {
        ignoreAnswer: true,
      });
      expect(declared).toMatchObject({ status: 429, reset: true, stalled: false });
      expect(declared.sent).toBeLessThan(withinLimit);

      // 200 KiB of gzip that inflates to 200 MiB: the inflated size is what is counted.
      const bomb = gzipSync(Buffer.alloc(200 * MiB));
      const compressed = await floodRequest(internalUrl, { ...headers, 'content-encoding': 'gzip' }, bomb.length, {
        prefix: bomb,
        chunkBytes: 1,
      });
      expect(compressed).toMatchObject({ status: 429, stalled: false });

      // The listener also speaks gRPC: one message announced at 100 MiB.
      const envelope = Buffer.from([0, 0, 0, 0, 0]);
      envelope.writeUInt32BE(100 * MiB, 1);
      const grpc = await floodRequest(internalUrl, { ...headers, 'content-type': 'application/grpc', te: 'trailers' }, 100 * MiB, {
        prefix: envelope,
        ignoreAnswer: true,
      });
      expect(grpc.headers['grpc-status']).toBe(String(Code.ResourceExhausted));
      expect(grpc).toMatchObject({ reset: true, stalled: false });
      expect(grpc.sent).toBeLessThan(withinLimit);
    } finally {
      clearInterval(watch);
    }
    expect(peak - before).toBeLessThan(64 * MiB);
    // The refusals cost the listener nothing: the next call with the token is served.
    expect((await rawSend(internalUrl, { authorization: `Bearer ${TEST_SERVICE_TOKENS.GATEWAY_INTERNAL_TOKEN}` })).status).toBe(200);
  }, 120_000);
});
