import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import { issueLeaf, makeCa } from '@wordgame/testkit';
import { LinkClient, type CommandHandler, type CommandOutcome } from '../src/link/client.js';
import { createLinkTransport, type LinkTransport } from '../src/link/transport.js';
import { HealthCounters } from '../src/platform/health-counters.js';
import { Backoff } from '../src/support/backoff.js';
import { tempCerts } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { captureLogs, type LogLine } from './support/logs.js';
import { waitFor } from './support/wait.js';

const certs = tempCerts();
let gateway: TestGateway;
const open: { client: LinkClient; transport: LinkTransport }[] = [];

interface StartOptions {
  onCommand?: CommandHandler;
  counters?: HealthCounters;
  healthIntervalMs?: number;
  backoffResetAfterMs?: number;
  clientCert?: { cert: string; key: string };
  url?: string;
}

function startLink(options: StartOptions = {}): { client: LinkClient; lines: LogLine[] } {
  const { logger, lines } = captureLogs();
  const pair = options.clientCert ?? certs.bot;
  const transport = createLinkTransport({
    url: options.url ?? gateway.url,
    ca: readFileSync(certs.ca.cert),
    cert: readFileSync(pair.cert),
    key: readFileSync(pair.key),
    pingIntervalMs: 30_000,
  });
  const client = new LinkClient({
    transport: transport.transport,
    instanceId: 'bot-a',
    ownsUpdates: true,
    counters: options.counters ?? new HealthCounters(),
    onCommand: options.onCommand ?? (() => Promise.resolve({ delivered: true, error: '', result: '' })),
    backoff: new Backoff({ initialMs: 50, maxMs: 200 }),
    backoffResetAfterMs: options.backoffResetAfterMs ?? 60_000,
    healthIntervalMs: options.healthIntervalMs ?? 60_000,
    answered: () => transport.answered(),
    logger,
  });
  client.start();
  open.push({ client, transport });
  return { client, lines };
}

function delays(lines: LogLine[]): number[] {
  return lines.filter((l) => l.msg === 'bot-link reconnecting after backoff').map((l) => l['delayMs'] as number);
}

beforeEach(async () => {
  gateway = await TestGateway.start(certs);
});

afterEach(async () => {
  for (const { client, transport } of open.splice(0)) {
    await client.stop(100);
    transport.close();
  }
  await gateway.close();
});

afterAll(() => certs.cleanup());

describe('bot-link client', () => {
  it('opens the stream over mutual TLS with Hello {instance_id, owns_updates} as the first message', async () => {
    const { client, lines } = startLink();
    const session = await gateway.session(1);
    await waitFor(() => session.received.length > 0, 'hello');
    const first = session.received[0]?.msg;
    expect(first?.case).toBe('hello');
    expect(first?.value).toMatchObject({ instanceId: 'bot-a', ownsUpdates: true });
    await waitFor(() => client.connected, 'gateway accepted the stream');
    expect(lines.filter((l) => l.msg === 'bot-link stream opened')).toHaveLength(1);
  });

  it('sends a Health right behind the Hello on every new stream, carrying the last-ok stamp', async () => {
    const counters = new HealthCounters(() => 1_700_000_321);
    counters.stampOk();
    counters.apiError();
    startLink({ counters });
    const first = await gateway.session(1);
    await waitFor(() => first.received.length >= 2, 'two messages on the first stream');
    expect(first.received.map((m) => m.msg.case)).toEqual(['hello', 'health']);
    expect(first.healths()[0]).toMatchObject({ apiErrors: 1n, lastOkUnix: 1_700_000_321n });
    gateway.dropConnections();
    const second = await gateway.session(2);
    await waitFor(() => second.received.length >= 2, 'two messages on the second stream');
    expect(second.received.map((m) => m.msg.case)).toEqual(['hello', 'health']);
    expect(second.healths()[0]).toMatchObject({ apiErrors: 0n, lastOkUnix: 1_700_000_321n });
  });

  it('acks every one of 500 concurrent commands exactly once through the single sender, with Health interleaved', async () => {
    const counters = new HealthCounters();
    const onCommand: CommandHandler = async (command) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
      return { delivered: true, error: '', result: `r-${command.commandId}` };
    };
    const { client } = startLink({ onCommand, counters, healthIntervalMs: 5 });
    const session = await gateway.session(1);
    const ids = Array.from({ length: 500 }, (_, i) => `c-${i}`);
    for (const id of ids) session.push({ commandId: id, payload: { case: 'sendToChannel', value: { text: 'x' } } });
    await waitFor(() => session.acks().length >= ids.length, 'all acks');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const acks = session.acks();
    expect(acks).toHaveLength(ids.length);
    expect(new Set(acks.map((a) => a.commandId))).toEqual(new Set(ids));
    for (const ack of acks) expect(ack.result).toBe(`r-${ack.commandId}`);
    expect(session.received[0]?.msg.case).toBe('hello');
    expect(session.received.filter((m) => m.msg.case === 'hello')).toHaveLength(1);
    expect(session.healths().length).toBeGreaterThan(0);
    expect(client.streamsOpened).toBe(1);
    expect(session.requestEnded).toBe(false);
  });

  it('acks a handler that throws as an unexpected failure, and a command without payload as an error', async () => {
    startLink({
      onCommand: (command) => {
        if (command.commandId === 'boom') return Promise.reject(new Error('render exploded'));
        return Promise.resolve({ delivered: false, error: command.payload.case === undefined ? 'command has no payload' : '', result: '' });
      },
    });
    const session = await gateway.session(1);
    session.push({ commandId: 'boom', payload: { case: 'sendToChannel', value: { text: 'x' } } });
    session.push({ commandId: 'empty' });
    await waitFor(() => session.acks().length === 2, 'two acks');
    const byId = new Map(session.acks().map((a) => [a.commandId, a]));
    expect(byId.get('boom')).toMatchObject({ delivered: false, error: 'internal error' });
    expect(byId.get('empty')).toMatchObject({ delivered: false, error: 'command has no payload' });
  });

  it('reconnects with a new Hello after the gateway drops the connection or ends the stream', async () => {
    const { client } = startLink();
    await gateway.session(1);
    gateway.dropConnections();
    const second = await gateway.session(2);
    await waitFor(() => second.received.length > 0, 'hello on the second stream');
    expect(second.received[0]?.msg.case).toBe('hello');
    second.end(new ConnectError('replaced', Code.Aborted));
    const third = await gateway.session(3);
    await waitFor(() => third.received.length > 0, 'hello on the third stream');
    expect(third.received[0]?.msg.case).toBe('hello');
    third.end();
    await gateway.session(4);
    await waitFor(() => client.connected, 'connected again');
  });

  it('backs off exponentially with jitter while the gateway is unreachable, capped, and reconnects when it is back', async () => {
    const port = gateway.port;
    await gateway.close();
    const { client, lines } = startLink({ url: `https://127.0.0.1:${port}` });
    await waitFor(() => delays(lines).length >= 6, 'six reconnect attempts');
    const seen = delays(lines);
    const expected = [50, 80, 128, 200, 200, 200];
    expected.forEach((base, i) => {
      expect(seen[i]).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
      expect(seen[i]).toBeLessThanOrEqual(Math.ceil(base * 1.2));
    });
    expect(client.connected).toBe(false);
    gateway = await TestGateway.start(certs, port);
    await gateway.session(1);
    await waitFor(() => client.connected, 'connected after the gateway came back');
  });

  it('starts the backoff over once a stream stayed healthy', async () => {
    const { lines } = startLink({ backoffResetAfterMs: 100 });
    await gateway.session(1);
    gateway.sessions[0]?.end(new ConnectError('flap', Code.Unavailable));
    await gateway.session(2);
    gateway.sessions[1]?.end(new ConnectError('flap', Code.Unavailable));
    await gateway.session(3);
    await new Promise((resolve) => setTimeout(resolve, 150));
    gateway.sessions[2]?.end(new ConnectError('flap', Code.Unavailable));
    await gateway.session(4);
    const seen = delays(lines);
    expect(seen[1]).toBeGreaterThanOrEqual(64);
    expect(seen[2]).toBeLessThanOrEqual(60);
  });

  it('reports health deltas that add up to what was counted, and never re-adds a report lost with a stream', async () => {
    const counters = new HealthCounters(() => 1_700_000_000);
    startLink({ counters, healthIntervalMs: 20 });
    let counted = 0;
    for (let round = 0; round < 6; round += 1) {
      const session = await gateway.session(round + 1);
      for (let i = 0; i < 5; i += 1) {
        counters.apiError();
        counted += 1;
        await new Promise((resolve) => setTimeout(resolve, 7));
      }
      counters.stampOk();
      if (round < 5) {
        gateway.dropConnections();
        await waitFor(() => session.requestEnded, 'stream gone');
      }
    }
    const last = gateway.sessions[5]!;
    await waitFor(() => last.healths().some((h) => h.lastOkUnix === 1_700_000_000n), 'a report with the stamp');
    await new Promise((resolve) => setTimeout(resolve, 60));
    const reported = gateway.sessions.flatMap((s) => s.healths()).reduce((sum, h) => sum + Number(h.apiErrors), 0);
    expect(reported).toBeLessThanOrEqual(counted);
    expect(reported).toBeGreaterThan(0);
    const quiet = last.healths().slice(-2);
    for (const h of quiet) expect(h).toMatchObject({ apiErrors: 0n, connectFailures: 0n, rateLimited: 0n, lastOkUnix: 1_700_000_000n });
  });

  it('adds up exactly when no stream is lost', async () => {
    const counters = new HealthCounters(() => 1_700_000_123);
    startLink({ counters, healthIntervalMs: 15 });
    const session = await gateway.session(1);
    for (let i = 0; i < 40; i += 1) {
      if (i % 2 === 0) counters.connectFailure();
      if (i % 5 === 0) counters.rateLimit();
      counters.apiError();
      if (i % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    counters.stampOk();
    await waitFor(() => session.healths().some((h) => h.lastOkUnix === 1_700_000_123n), 'stamped report');
    await new Promise((resolve) => setTimeout(resolve, 40));
    const sum = (pick: (h: { connectFailures: bigint; apiErrors: bigint; rateLimited: bigint }) => bigint) =>
      session.healths().reduce((total, h) => total + pick(h), 0n);
    expect(sum((h) => h.connectFailures)).toBe(20n);
    expect(sum((h) => h.apiErrors)).toBe(40n);
    expect(sum((h) => h.rateLimited)).toBe(8n);
  });

  it('never sends an ack on a later stream for a command received on an earlier one (at-most-once)', async () => {
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const onCommand: CommandHandler = async (command): Promise<CommandOutcome> => {
      if (command.commandId === 'slow') await gate;
      return { delivered: true, error: '', result: '' };
    };
    const { lines } = startLink({ onCommand });
    const first = await gateway.session(1);
    first.push({ commandId: 'slow', payload: { case: 'sendToChannel', value: { text: 'x' } } });
    await new Promise((resolve) => setTimeout(resolve, 30));
    gateway.dropConnections();
    const second = await gateway.session(2);
    await waitFor(() => second.received.length > 0, 'hello');
    release?.();
    await waitFor(() => lines.some((l) => l.msg === 'ack dropped: its stream has ended'), 'ack dropped');
    second.push({ commandId: 'after', payload: { case: 'sendToChannel', value: { text: 'y' } } });
    await waitFor(() => second.acks().length === 1, 'ack of the new command');
    expect(second.acks().map((a) => a.commandId)).toEqual(['after']);
    expect(first.acks()).toHaveLength(0);
  });

  it('stop() lets in-flight commands ack before it ends the stream', async () => {
    const { client } = startLink({
      onCommand: async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { delivered: true, error: '', result: 'done' };
      },
    });
    const session = await gateway.session(1);
    session.push({ commandId: 'late', payload: { case: 'sendToChannel', value: { text: 'x' } } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await client.stop(2_000);
    await waitFor(() => session.requestEnded, 'request side ended');
    expect(session.acks().map((a) => [a.commandId, a.result])).toEqual([['late', 'done']]);
    expect(client.connected).toBe(false);
  });

  it('is refused by the gateway with a client certificate from another CA, and keeps retrying without crashing', async () => {
    const otherDir = join(certs.dir, 'other');
    const otherCa = makeCa(otherDir, 'rogue-ca');
    const rogue = issueLeaf(otherDir, 'rogue-bot', otherCa, { commonName: 'bot', usage: 'client' });
    const { client, lines } = startLink({ clientCert: rogue });
    await waitFor(() => delays(lines).length >= 2, 'two failed attempts');
    expect(gateway.sessions).toHaveLength(0);
    expect(client.connected).toBe(false);
    // Refused at the TLS layer: the stream never opened, and the log never says it did.
    expect(lines.filter((l) => l.msg === 'bot-link stream opened')).toEqual([]);
  });
});
