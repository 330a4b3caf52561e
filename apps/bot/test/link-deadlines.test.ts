import { readFileSync } from 'node:fs';
import { create } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { botlink } from '@wordgame/contracts';
import { createLinkTransport, type LinkTransport } from '../src/link/transport.js';
import { tempCerts } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';

/**
 * The bot's unary RPCs with long deadlines, over real HTTP/2 with mutual TLS: a deadline longer
 * than a Node timer can wait (2^31-1 ms) used to fail the call after 1 ms on the bot's own timer,
 * and connect-es writes it as `${ms}m`, which is no grpc-timeout past 8 digits (27.8 hours).
 */
const certs = tempCerts();
let gateway: TestGateway;
let link: LinkTransport;
const seen: Array<string | null> = [];

beforeAll(async () => {
  gateway = await TestGateway.start(certs);
  gateway.handlers.validatePreCheckout = (_req, ctx) => {
    seen.push(ctx.requestHeader.get('grpc-timeout'));
    return Promise.resolve({ ok: true });
  };
  link = createLinkTransport({
    url: gateway.url,
    ca: readFileSync(certs.ca.cert),
    cert: readFileSync(certs.bot.cert),
    key: readFileSync(certs.bot.key),
    pingIntervalMs: 30_000,
  });
});
afterAll(async () => {
  link.close();
  await gateway.close();
  certs.cleanup();
});

it.each([
  [5_000, '5000m'],
  [99_999_999, '99999999m'],
  [100_000_000, '100000S'],
  [2 ** 31 - 1, '2147483S'], // rounded down: a grpc-js server wraps 2147484S negative
  [2 ** 31, '2147483S'], // clamped to 2^31-1 first
  [30 * 24 * 3_600_000, '2147483S'],
])('ValidatePreCheckout with a %d ms deadline is answered, sent as grpc-timeout %s', async (timeoutMs, header) => {
  const rpc = createClient(botlink.BotLink, link.transport);
  const res = await rpc.validatePreCheckout(create(botlink.PreCheckoutRequestSchema, { orderId: 'o', amount: 1n, currency: 'XTR' }), {
    timeoutMs,
  });
  expect(res.ok).toBe(true);
  expect(seen.at(-1)).toBe(header);
});
