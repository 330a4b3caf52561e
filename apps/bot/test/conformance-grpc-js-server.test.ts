import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { issueLeaf, makeCa } from '@wordgame/testkit';
import { UNAVAILABLE_REASON } from '../src/payments/pre-checkout.js';
import { repoRoot } from './support/bot.js';
import { POLICY_LINKS, tempCerts } from './support/fixture.js';
import { GrpcJsGateway, type GrpcJsLink, type Wire } from './support/grpc-js-gateway.js';
import { waitFor } from './support/wait.js';

/**
 * Conformance of the bot's BotLink client (connect-es with its own HTTP/2 session) with a gRPC
 * server written by others: @grpc/grpc-js serving botlink.v1.BotLink from the spec's proto
 * (loaded at run time by @grpc/proto-loader) over mutual TLS, with the real bot process
 * (src/main.ts) pointed at it and the platform emulator behind it. Only what the spec and the gRPC
 * protocol (PROTOCOL-HTTP2.md, compression.md, statuscodes.md) promise is asserted.
 */

const certs = tempCerts();
const INSTANCE = 'grpc-js-conformance';
/**
 * 30 days: the bot clamps it to 2^31-1 ms (what a timer can wait) and writes it in seconds, the
 * longest grpc-timeout it ever sends; grpc-js must take it as that deadline.
 */
const RPC_TIMEOUT_MS = 30 * 86_400_000;
const MAX_TIMER_MS = 2 ** 31 - 1;
let emu: PlatformEmulator;
let gw: GrpcJsGateway;
let bot: BotProcess;
let linkOpenedAt = 0;
const started: BotProcess[] = [];

/** The bot as its own process, every JSON log line it printed kept. */
interface BotProcess {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  stop(): Promise<void>;
}

function startBotProcess(url: string, env: Record<string, string> = {}): BotProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'apps/bot/src/main.ts')], {
    cwd: repoRoot,
    env: {
      PATH: process.env['PATH'] ?? '',
      BOTLINK_URL: url,
      BOTLINK_TLS_CA: certs.ca.cert,
      BOTLINK_TLS_CERT: certs.bot.cert,
      BOTLINK_TLS_KEY: certs.bot.key,
      BOTLINK_BACKOFF_INITIAL_MS: '50',
      BOTLINK_BACKOFF_MAX_MS: '200',
      BOTLINK_PING_INTERVAL_MS: '1000',
      BOTLINK_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
      BOT_INSTANCE_ID: INSTANCE,
      BOT_HEALTH_INTERVAL_MS: '300',
      BOT_OUTBOX_PATH: join(certs.dir, `outbox-${started.length}.sqlite`),
      BOT_OUTBOX_RETRY_INITIAL_MS: '100',
      BOT_OUTBOX_RETRY_MAX_MS: '200',
      PLATFORM_API_ROOT: emu.apiRoot,
      PLATFORM_BOT_TOKEN: 'dev-bot-token',
      ...POLICY_LINKS,
      BOT_POLL_TIMEOUT_S: '1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    try {
      lines.push(JSON.parse(text) as Record<string, unknown>);
    } catch {
      // not a log line
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running: BotProcess = {
    child,
    lines,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
  started.push(running);
  return running;
}

const logged = (p: BotProcess, msg: string): Record<string, unknown>[] => p.lines.filter((l) => l['msg'] === msg);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let seq = 0;
/** Pushes one Command and resolves with its Ack (exactly one must come back). */
async function command(link: GrpcJsLink, payload: Wire): Promise<Wire> {
  const commandId = `grpc-js-${++seq}`;
  link.push({ command_id: commandId, ...payload });
  await waitFor(() => link.acks().some((a) => a['command_id'] === commandId), `ack of ${commandId}`);
  await sleep(50);
  const acks = link.acks().filter((a) => a['command_id'] === commandId);
  expect(acks).toHaveLength(1);
  return acks[0]!;
}

/** Has a fresh user pay a new invoice minted through the bot; returns the pre-checkout query id. */
async function pay(link: GrpcJsLink, orderId: string, amount: number): Promise<{ queryId: string; userId: number }> {
  const ack = await command(link, {
    create_invoice: { title: 'Chips', description: '500 chips', payload: orderId, amount: String(amount) },
  });
  expect(ack).toMatchObject({ delivered: true, error: '' });
  const userId = emu.control.createUser({ started: true }).user.id;
  return { queryId: emu.control.pay({ link: String(ack['result']), userId }).preCheckoutQueryId, userId };
}

let botStartedAt = 0;

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gw = new GrpcJsGateway({ ca: certs.ca.cert, server: certs.gateway });
  await gw.start();
  botStartedAt = Date.now();
  bot = startBotProcess(gw.url);
  await gw.link(1, 20_000);
});

afterAll(async () => {
  for (const p of started.splice(0)) await p.stop();
  gw.stop();
  await emu.stop();
  certs.cleanup();
});

describe('conformance: the bot process against a @grpc/grpc-js BotLink server (mTLS, spec proto)', () => {
  it('the Link opens with Hello {instance_id, owns_updates}, a Health right behind it and then every interval', async () => {
    const link = await gw.link(1);
    await waitFor(() => link.healths().length >= 3, 'three Health reports');
    expect(link.received[0]).toEqual({ msg: 'hello', hello: { instance_id: INSTANCE, owns_updates: true } });
    expect(link.received[1]?.['msg']).toBe('health');
    expect(link.received.filter((m) => m['msg'] === 'hello')).toHaveLength(1);
    const health = link.healths().at(-1)!;
    expect(health).toMatchObject({ connect_failures: '0', api_errors: '0', rate_limited: '0' });
    // A platform call that succeeded since this bot process started, and not in the future.
    expect(Number(health['last_ok_unix'])).toBeGreaterThanOrEqual(Math.floor(botStartedAt / 1000));
    expect(Number(health['last_ok_unix'])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    // The Link has no deadline: grpc-js saw no grpc-timeout.
    expect(link.deadline).toBe(Infinity);
    await waitFor(() => logged(bot, 'bot-link stream opened').length === 1, 'the bot saw the stream accepted');
    linkOpenedAt = Date.now();
  });

  it('answers every Command with exactly one Ack carrying its command_id', async () => {
    const link = await gw.link(1);
    const ids = ['a', 'b', 'c', 'd'].map((x) => `multi-${x}`);
    link.push({ command_id: ids[0], send_to_channel: { text: 'hi' } });
    link.push({ command_id: ids[1], chat_gate: { external_id: '42', allow: true } });
    link.push({ command_id: ids[2], create_invoice: { title: 'Chips', description: 'd', payload: 'order-ack', amount: '5' } });
    link.push({ command_id: ids[3] });
    await waitFor(() => ids.every((id) => link.acks().some((a) => a['command_id'] === id)), 'four acks');
    await sleep(100);
    const acks = link.acks().filter((a) => ids.includes(String(a['command_id'])));
    expect(acks.map((a) => a['command_id']).sort()).toEqual(ids);
    const byId = new Map(acks.map((a) => [a['command_id'], a]));
    // No game channel or discussion chat configured: clean not-delivered.
    expect(byId.get(ids[0])).toMatchObject({ delivered: false, error: '' });
    expect(byId.get(ids[1])).toMatchObject({ delivered: false, error: '' });
    expect(byId.get(ids[2])).toMatchObject({ delivered: true, error: '' });
    expect(String(byId.get(ids[2])?.['result'])).not.toBe('');
    expect(byId.get(ids[3])).toMatchObject({ delivered: false });
    expect(byId.get(ids[3])?.['error']).not.toBe('');
  });

  it('ForwardPayment carries a grpc-timeout grpc-js accepts, reads trailers-only errors, and is retried until the server answers OK', async () => {
    const link = await gw.link(1);
    gw.handlers.ValidatePreCheckout = () => ({ message: { ok: true, reason: '' } });
    gw.handlers.ForwardPayment = (_req, n) => {
      if (n === 1) return { status: grpc.status.UNAVAILABLE, details: 'gateway draining' };
      if (n === 2) return { status: grpc.status.FAILED_PRECONDITION, details: 'refusé: 100% "non" \u{1F6AB}' };
      return { message: { credited: true } };
    };
    const { queryId, userId } = await pay(link, 'order-forward', 50);
    await waitFor(() => gw.calls.ForwardPayment.length >= 3, 'three ForwardPayment calls');
    await sleep(800);
    const calls = gw.calls.ForwardPayment;
    expect(calls).toHaveLength(3);
    const charge = emu.control.preCheckout(queryId)?.payment?.telegramPaymentChargeId;
    for (const call of calls) {
      expect(call.request).toEqual({
        order_id: 'order-forward',
        platform_payment_charge_id: charge,
        amount: '50',
        platform_user_id: String(userId),
        // The additive subscription fields, as a one-time payment carries them.
        is_recurring: false,
        is_first_recurring: false,
        subscription_expiration_unix: '0',
      });
      const left = Number(call.deadline) - call.at;
      expect(left).toBeGreaterThan(MAX_TIMER_MS - 2_000);
      expect(left).toBeLessThanOrEqual(MAX_TIMER_MS);
    }
    // ValidatePreCheckout runs on the default 5 s deadline (a grpc-timeout in milliseconds).
    const [validation] = gw.calls.ValidatePreCheckout;
    expect(gw.calls.ValidatePreCheckout).toHaveLength(1);
    expect(Number(validation?.deadline) - (validation?.at ?? 0)).toBeGreaterThan(4_000);
    expect(Number(validation?.deadline) - (validation?.at ?? 0)).toBeLessThanOrEqual(5_000);
    // The bot read each status from the trailers-only answer: its code and its percent-decoded message.
    const failures = bot.lines.filter((l) => String(l['msg']).startsWith('ForwardPayment ')).map((l) => l['err'] ?? l['reason']);
    expect(failures).toEqual(['Unavailable: gateway draining', 'FailedPrecondition: refusé: 100% "non" \u{1F6AB}']);
    expect(logged(bot, 'payment forwarded and credited')).toEqual([expect.objectContaining({ attempts: 3 })]);
  });

  it('a trailers-only error on ValidatePreCheckout declines the charge (fail-closed)', async () => {
    const link = await gw.link(1);
    gw.handlers.ValidatePreCheckout = () => ({ status: grpc.status.INTERNAL, details: 'backend exploded' });
    const { queryId } = await pay(link, 'order-declined', 7);
    await waitFor(() => emu.control.preCheckout(queryId)?.status !== 'pending', 'pre-checkout answered');
    expect(emu.control.preCheckout(queryId)).toMatchObject({ status: 'rejected', errorMessage: UNAVAILABLE_REASON });
    expect(logged(bot, 'pre-checkout not validated; declining (fail-closed)').at(-1)?.['err']).toMatch(/backend exploded/);
  });

  it('a Link the server ends with a trailers-only error status is reopened with a new Hello', async () => {
    const first = await gw.link(1);
    // The bot PINGs every second; grpc-js answered each one, so the first stream is still the only one.
    await sleep(Math.max(0, linkOpenedAt + 2_500 - Date.now()));
    expect(gw.links).toHaveLength(1);
    expect(logged(bot, 'bot-link stream failed')).toHaveLength(0);
    const before = gw.links.length;
    first.fail(grpc.status.UNAVAILABLE, 'replica restarting');
    const next = await gw.link(before + 1);
    await waitFor(() => next.received.length >= 2, 'hello and health on the new stream');
    expect(next.received[0]).toEqual({ msg: 'hello', hello: { instance_id: INSTANCE, owns_updates: true } });
    expect(next.received[1]?.['msg']).toBe('health');
    expect(logged(bot, 'bot-link stream failed').at(-1)?.['err']).toMatch(/replica restarting/);
    expect((await command(next, { send_to_channel: { text: 'after' } }))['delivered']).toBe(false);
  });

  it('the server shutting down (GOAWAY, then its calls cancelled) makes the bot reconnect to the server that replaces it', async () => {
    const port = gw.port;
    const before = gw.links.length;
    const draining = gw.drain();
    await sleep(300);
    gw.stop();
    await draining;
    gw = Object.assign(new GrpcJsGateway({ ca: certs.ca.cert, server: certs.gateway }), { handlers: gw.handlers });
    await gw.start(port);
    expect(before).toBeGreaterThan(0);
    const link = await gw.link(1);
    await waitFor(() => link.received.length >= 2, 'hello and health on the new server');
    expect(link.received[0]).toEqual({ msg: 'hello', hello: { instance_id: INSTANCE, owns_updates: true } });
    expect((await command(link, { chat_gate: { external_id: '1', allow: false } }))['command_id']).toMatch(/^grpc-js-/);
  });

  it('refuses a server whose certificate comes from another CA: no stream opened, the TLS failure logged', async () => {
    const otherCa = makeCa(join(certs.dir, 'other'), 'other-ca');
    const foreign = issueLeaf(join(certs.dir, 'other'), 'foreign-gateway', otherCa, {
      commonName: 'gateway',
      usage: 'server',
      altNames: ['DNS:localhost', 'IP:127.0.0.1'],
    });
    const impostor = new GrpcJsGateway({ ca: certs.ca.cert, server: foreign });
    await impostor.start();
    const other = startBotProcess(impostor.url, { OWNS_UPDATES: 'false', BOT_INSTANCE_ID: 'grpc-js-wrong-ca' });
    try {
      await waitFor(() => logged(other, 'bot-link stream failed').length >= 2, 'two failed attempts', 15_000);
      expect(impostor.links).toHaveLength(0);
      expect(logged(other, 'bot-link stream opened')).toHaveLength(0);
      expect(String(logged(other, 'bot-link stream failed')[0]?.['err'])).toMatch(/certificate|self.signed|verify/i);
    } finally {
      await other.stop();
      impostor.stop();
    }
  });

  // grpc-js 1.14.7 never compresses what its server sends (the frame flag is always 0 and it answers
  // grpc-encoding: identity), so the response side of compression.md is played by hand here.
  it('advertises gzip in grpc-accept-encoding and reads a gzip-compressed Command; its request headers are gRPC over HTTP/2', async () => {
    const seen: http2.IncomingHttpHeaders[] = [];
    const received: botlink.FromBot[] = [];
    const server = http2.createSecureServer({
      ca: readFileSync(certs.ca.cert),
      cert: readFileSync(certs.gateway.cert),
      key: readFileSync(certs.gateway.key),
      requestCert: true,
      rejectUnauthorized: true,
    });
    server.on('stream', (stream, headers) => {
      seen.push(headers);
      stream.on('error', () => undefined);
      let buffered = Buffer.alloc(0);
      stream.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 5 && buffered.length >= 5 + buffered.readUInt32BE(1)) {
          const size = buffered.readUInt32BE(1);
          expect(buffered[0]).toBe(0);
          received.push(fromBinary(botlink.FromBotSchema, buffered.subarray(5, 5 + size)));
          buffered = buffered.subarray(5 + size);
        }
      });
      const accepts = String(headers['grpc-accept-encoding'] ?? '').split(/\s*,\s*/);
      stream.respond({
        ':status': 200,
        'content-type': 'application/grpc',
        ...(accepts.includes('gzip') ? { 'grpc-encoding': 'gzip' } : {}),
      });
      if (!accepts.includes('gzip')) return;
      const command = create(botlink.ToBotSchema, {
        command: { commandId: 'zipped', payload: { case: 'sendToChannel', value: { text: 'z'.repeat(4_096) } } },
      });
      const zipped = gzipSync(toBinary(botlink.ToBotSchema, command));
      const frame = Buffer.alloc(5 + zipped.length);
      frame.writeUInt8(1, 0);
      frame.writeUInt32BE(zipped.length, 1);
      zipped.copy(frame, 5);
      stream.write(frame);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let zipping: BotProcess | undefined;
    try {
      const port = (server.address() as AddressInfo).port;
      zipping = startBotProcess(`https://127.0.0.1:${port}`, { OWNS_UPDATES: 'false', BOT_INSTANCE_ID: 'grpc-js-gzip' });
      await waitFor(() => received.some((m) => m.msg.case === 'ack'), 'the Ack of the compressed Command', 15_000);
      expect(received[0]?.msg).toMatchObject({ case: 'hello', value: { instanceId: 'grpc-js-gzip', ownsUpdates: false } });
      expect(received.find((m) => m.msg.case === 'ack')?.msg.value).toMatchObject({ commandId: 'zipped', delivered: false, error: '' });
      expect(seen[0]).toMatchObject({ ':method': 'POST', ':path': '/botlink.v1.BotLink/Link', ':scheme': 'https', te: 'trailers' });
      expect(String(seen[0]?.['content-type'])).toMatch(/^application\/grpc(\+proto)?$/);
      expect(String(seen[0]?.['grpc-accept-encoding']).split(/\s*,\s*/)).toContain('gzip');
      expect(seen[0]?.['grpc-timeout']).toBeUndefined();
      expect(seen[0]?.['grpc-encoding'] ?? 'identity').toBe('identity');
    } finally {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await zipping?.stop();
      await closed;
    }
  });
});
