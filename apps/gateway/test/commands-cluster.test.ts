import { Writable } from 'node:stream';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { createInbox, Empty, headers, PermissionViolationError, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { botlink, commandOutcomeOf, gatewayApi, toSendResponse, type CommandOutcome } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import { connectNats } from '@wordgame/service-kit';
import { settlesWithin, startNatsServer, TEST_SERVICE_TOKENS, type NatsTestServer, type NatsUser } from '@wordgame/testkit';
import { Registry } from 'prom-client';
import { ClusterCommandRouter, commandSeals, commandSubjects, replyPrefix } from '../src/commands/cluster.js';
import { CommandHub, type Link } from '../src/commands/hub.js';
import type { CommandPayload } from '../src/commands/outcome.js';
import { createBotlinkMetrics } from '../src/metrics/botlink-metrics.js';
import { createClusterMetrics, type ClusterRejection } from '../src/metrics/cluster-metrics.js';
import { startTcpProxy } from './support/tcp-proxy.js';

const logger = createLogger('cluster-test', 'silent');
const TOKEN = TEST_SERVICE_TOKENS.GATEWAY_INTERNAL_TOKEN;
const notify: CommandPayload = { case: 'sendToUser', value: { text: 'hello' } };
const refund: CommandPayload = { case: 'refundStarPayment', value: { userId: 7n, platformPaymentChargeId: 'charge-1' } };
const utf8 = (s: string) => new TextEncoder().encode(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client of `server` as the NKEY user `user` (a gateway's or a backend's, as an intruder holding it would). */
const client = (server: NatsTestServer, user: NatsUser, url = server.url) =>
  connectNats(
    { servers: [url], seed: user.seed, inboxPrefix: replyPrefix(server.prefix), pingIntervalMs: 2_000, name: 'cluster-test' },
    logger,
  );

/** A logger whose lines are kept (pino JSON objects), to check what is and is not logged. */
function capture(): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('cluster-test', 'warn', sink) };
}

/** One gateway as the cluster sees it: its own hub and router on its own NATS connection (the gateway's NKEY). */
async function gateway(server: NatsTestServer, log = logger, url = server.url) {
  const nc = await client(server, server.gateway, url);
  const late: { router?: ClusterCommandRouter } = {};
  const registry = new Registry();
  const hubRegistry = new Registry();
  const hub = new CommandHub({
    metrics: createBotlinkMetrics(hubRegistry),
    logger,
    queueLimit: 16,
    onLinksChanged: () => late.router?.sync(),
  });
  const router = new ClusterCommandRouter({
    nc,
    hub,
    metrics: createBotlinkMetrics(new Registry()),
    clusterMetrics: createClusterMetrics(registry),
    seals: commandSeals(TOKEN),
    logger: log,
    prefix: server.prefix,
    offerTtlMs: 1_000,
  });
  late.router = router;
  router.sync();
  const rejected = async (reason: ClusterRejection) =>
    (await registry.getSingleMetric('gateway_nats_rejected_total')?.get())?.values.find((v) => v.labels['reason'] === reason)?.value;
  const lapsed = async () => (await registry.getSingleMetric('gateway_nats_offers_lapsed_total')?.get())?.values[0]?.value;
  const duplicates = async () => (await hubRegistry.getSingleMetric('botlink_duplicate_commands_total')?.get())?.values[0]?.value;
  return { nc, hub, router, rejected, lapsed, duplicates };
}

/** A bot on `link`: acks every command (after `delayMs`) with `result` = its own name, recording what it got. */
function bot(hub: CommandHub, link: Link, name: string, got: string[], ack = true, delayMs = 0): void {
  void (async () => {
    while (await link.queue.wait()) {
      const command = link.queue.shift();
      if (!command) continue;
      const id = command.message.command?.commandId ?? '';
      got.push(id);
      if (delayMs > 0) await sleep(delayMs);
      if (ack) hub.ack(link, create(botlink.AckSchema, { commandId: id, delivered: true, result: name }));
    }
  })();
}

/** The permission violations the server reports on `nc`, as they arrive. */
function permissionErrors(nc: NatsConnection): PermissionViolationError[] {
  const seen: PermissionViolationError[] = [];
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'error' && s.error instanceof PermissionViolationError) seen.push(s.error);
  })();
  return seen;
}

async function waitFor(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!(await done())) {
    if (performance.now() > until) throw new Error(`timed out: ${what}`);
    await sleep(10);
  }
}

/**
 * One relay of `payload` under `commandId` made by hand as a gateway holding the token makes it
 * (request, the offer, the grant to it; the outcome), on `nc`.
 */
async function relayByHand(
  nc: NatsConnection,
  prefix: string,
  subject: string,
  commandId: string,
  payload: CommandPayload,
): Promise<CommandOutcome> {
  const seals = commandSeals(TOKEN);
  const inbox = createInbox(replyPrefix(prefix));
  const answers: AsyncIterator<Msg> = nc.subscribe(inbox, { timeout: 5_000 })[Symbol.asyncIterator]();
  const next = async (what: string): Promise<Msg> => {
    const answer = await answers.next();
    if (answer.done === true) throw new Error(`no ${what}`);
    return answer.value;
  };
  const request = toBinary(
    gatewayApi.SendRequestSchema,
    create(gatewayApi.SendRequestSchema, { command: { commandId, payload }, timeoutMs: 2_000 }),
  );
  const sealed = seals.requests.seal(subject, request, utf8(inbox));
  nc.publish(subject, sealed.bytes, { reply: inbox });
  const offer = seals.offers.open(inbox, (await next('offer')).data, sealed.nonce);
  if (!offer.ok) throw new Error(`offer refused: ${offer.reason}`);
  const grantSubject = new TextDecoder().decode(offer.payload);
  const grant = seals.grants.seal(grantSubject, offer.nonce, utf8(inbox));
  nc.publish(grantSubject, grant.bytes, { reply: inbox });
  const reply = seals.replies.open(inbox, (await next('outcome')).data, grant.nonce);
  await answers.return?.();
  if (!reply.ok) throw new Error(`outcome refused: ${reply.reason}`);
  return commandOutcomeOf(fromBinary(gatewayApi.SendResponseSchema, reply.payload));
}

const sendRequest = (payload: CommandPayload) =>
  toBinary(gatewayApi.SendRequestSchema, create(gatewayApi.SendRequestSchema, { command: { payload }, timeoutMs: 2_000 }));

describe('cluster command router over a real NATS server (ops/nats/nats.conf)', () => {
  let server: NatsTestServer;
  let conns: NatsConnection[] = [];
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterEach(async () => {
    for (const nc of conns) await nc.close();
    conns = [];
  });
  afterAll(() => server.stop());
  const pair = async (logB = logger) => {
    const a = await gateway(server);
    const b = await gateway(server, logB);
    conns.push(a.nc, b.nc);
    return { a, b };
  };
  const intruder = async (user: NatsUser) => {
    const nc = await client(server, user);
    conns.push(nc);
    return nc;
  };
  /** Gateway b holds the owner's Link; its bot records every command it gets. */
  const ownerAtB = async (delayMs = 0, logB = logger) => {
    const { a, b } = await pair(logB);
    const got: string[] = [];
    bot(b.hub, b.hub.open({ instanceId: 'owner', ownsUpdates: true, peer: 'bot' }), 'owner', got, true, delayMs);
    await b.nc.flush();
    return { a, b, got };
  };

  it('no bot linked anywhere: no_bot at once', async () => {
    const { a } = await pair();
    // At once: before the command's own deadline, which waiting for an owner would run out.
    const timeoutMs = 60_000;
    expect(await settlesWithin(a.router.send(notify, { timeoutMs }), timeoutMs, 'no_bot before the command deadline')).toEqual({
      status: 'no_bot',
    });
  }, 120_000);

  it('a command sent at one gateway reaches the owner of updates linked at the other, once', async () => {
    const { a, b } = await pair();
    const ownerGot: string[] = [];
    const otherGot: string[] = [];
    const other = a.hub.open({ instanceId: 'sender', ownsUpdates: false, peer: 'bot' });
    bot(a.hub, other, 'sender', otherGot);
    const owner = b.hub.open({ instanceId: 'owner', ownsUpdates: true, peer: 'bot' });
    bot(b.hub, owner, 'owner', ownerGot);
    await a.nc.flush();
    await b.nc.flush();
    // At gateway a, the local non-owner Link loses to the owner's Link on gateway b.
    expect(await a.router.send(notify, { timeoutMs: 5_000 })).toEqual({ status: 'delivered', result: 'owner' });
    expect(ownerGot).toHaveLength(1);
    expect(otherGot).toHaveLength(0);
    // Without the owner, any Link anywhere takes it.
    b.hub.end(owner, 'stream_closed');
    await b.nc.flush();
    expect(await b.router.send(notify, { timeoutMs: 5_000 })).toEqual({ status: 'delivered', result: 'sender' });
    expect(otherGot).toHaveLength(1);
  });

  it('the Link ends while the command is in flight: link_lost, never re-sent elsewhere', async () => {
    const { a, b } = await pair();
    const got: string[] = [];
    const silent = b.hub.open({ instanceId: 'owner', ownsUpdates: true, peer: 'bot' });
    bot(b.hub, silent, 'owner', got, false);
    const spare: string[] = [];
    bot(a.hub, a.hub.open({ instanceId: 'spare', ownsUpdates: false, peer: 'bot' }), 'spare', spare);
    await b.nc.flush();
    await a.nc.flush();
    const pending = a.router.send(notify, { timeoutMs: 5_000 });
    await waitFor('the command reached the bot', () => got.length > 0);
    b.hub.end(silent, 'stream_closed');
    expect(await pending).toEqual({ status: 'error', error: 'link_lost' });
    expect(spare).toHaveLength(0);
  });

  it('a client with the backend NKEY can neither read the command subjects nor get a command to the bot', async () => {
    const { got } = await ownerAtB();
    const nc = await intruder(server.backend);
    const refused = permissionErrors(nc);
    const subjects = commandSubjects(server.prefix);
    const reading = (async () => {
      for await (const _ of nc.subscribe(subjects.owner)) return 'read a command';
      return 'ended';
    })().catch((err: unknown) => err);
    // Even a request sealed with the right key: the server refuses to take it from this user.
    const inbox = createInbox(replyPrefix(server.prefix));
    nc.publish(subjects.owner, commandSeals(TOKEN).requests.seal(subjects.owner, sendRequest(refund), utf8(inbox)).bytes, { reply: inbox });
    nc.publish(subjects.any, sendRequest(refund));
    await nc.flush();
    await sleep(300);
    expect(got).toEqual([]);
    await waitFor('three permission violations', () => refused.length >= 3);
    expect(await reading).toBeInstanceOf(PermissionViolationError);
    expect(refused.map((e) => `${e.operation} ${e.subject}`).sort()).toEqual([
      `publish ${subjects.any}`,
      `publish ${subjects.owner}`,
      `subscription ${subjects.owner}`,
    ]);
  });

  it('a forged or unsealed command on the subject (a stolen gateway NKEY) is dropped unanswered, counted and logged without its body; the bot gets nothing', async () => {
    const { lines, logger: logB } = capture();
    const { b, got } = await ownerAtB(0, logB);
    const nc = await intruder(server.gateway);
    const owner = commandSubjects(server.prefix).owner;
    const inbox = createInbox(replyPrefix(server.prefix));
    const answers: Msg[] = [];
    nc.subscribe(inbox, { callback: (_err, m) => void answers.push(m) });
    const forger = commandSeals('not-the-gateway-internal-token-0123456789');
    nc.publish(owner, forger.requests.seal(owner, sendRequest(refund), utf8(inbox)).bytes, { reply: inbox });
    // The body a gateway sent before seals existed: shorter than a seal's header.
    nc.publish(owner, sendRequest(refund), { reply: inbox });
    // A seal-sized body of garbage.
    nc.publish(owner, new Uint8Array(120).fill(1), { reply: inbox });
    await nc.flush();
    await sleep(300);
    expect(got).toEqual([]);
    expect(answers).toEqual([]);
    await waitFor('three rejections', async () => (await b.rejected('bad_mac')) === 2 && (await b.rejected('malformed')) === 1);
    const warned = lines.filter((l) => l['msg'] === 'nats message rejected: no valid seal');
    expect(warned.map((l) => [l['level'], l['reason'], l['message'], l['subject']])).toEqual([
      [40, 'bad_mac', 'command', owner],
      [40, 'malformed', 'command', owner],
      [40, 'bad_mac', 'command', owner],
    ]);
    expect(JSON.stringify(lines)).not.toContain('charge-1');
  });

  it('a replayed copy of a real command, or a copy older than the window, is dropped and counted; the bot ran it once', async () => {
    const { a, b, got } = await ownerAtB();
    const nc = await intruder(server.gateway);
    const owner = commandSubjects(server.prefix).owner;
    const captured: Msg[] = [];
    nc.subscribe(owner, { callback: (_err, m) => void captured.push(m) });
    await nc.flush();
    expect(await a.router.send(refund, { timeoutMs: 5_000 })).toEqual({ status: 'delivered', result: 'owner' });
    expect(got).toHaveLength(1);
    const [copy] = captured;
    if (!copy?.reply) throw new Error('no request captured');
    nc.publish(owner, copy.data, { reply: copy.reply });
    // Another reply subject breaks the seal: replies cannot be redirected.
    nc.publish(owner, copy.data, { reply: createInbox(replyPrefix(server.prefix)) });
    // Sealed with the right key, but 31 s ago (a copy kept and sent later).
    const inbox = createInbox(replyPrefix(server.prefix));
    const old = commandSeals(TOKEN, () => Date.now() - 31_000).requests.seal(owner, sendRequest(refund), utf8(inbox));
    nc.publish(owner, old.bytes, { reply: inbox });
    await nc.flush();
    await sleep(300);
    expect(got).toHaveLength(1);
    await waitFor(
      'replay, bad_mac and stale counted',
      async () => (await b.rejected('replay')) === 1 && (await b.rejected('bad_mac')) === 1 && (await b.rejected('stale')) === 1,
    );
  });

  it('a forged "no responders" (a stolen gateway NKEY answering owner requests with an unsealed 503) never gets a command out twice', async () => {
    // Gateway b reaches NATS through a relay that can hold what b sends: the forged answer then surely comes first.
    const proxy = await startTcpProxy(server.port);
    const a = await gateway(server);
    const b = await gateway(server, logger, `nats://127.0.0.1:${proxy.port}`);
    conns.push(a.nc, b.nc);
    const got: string[] = [];
    bot(b.hub, b.hub.open({ instanceId: 'owner', ownsUpdates: true, peer: 'bot' }), 'owner', got);
    await b.nc.flush();
    const nc = await intruder(server.gateway);
    let forged = 0;
    // Receives each owner request beside gateway b and answers it as the server's "no responders" would.
    nc.subscribe(commandSubjects(server.prefix).owner, {
      callback: (_err, m) => {
        if (!m.reply) return;
        m.respond(Empty, { headers: headers(503, 'No Responders') });
        forged += 1;
      },
    });
    await nc.flush();
    /** Sends with b's answers held until the forged one is on its way to a. */
    const forgedFirst = async (payload: CommandPayload) => {
      proxy.hold();
      const sent = a.router.send(payload, { timeoutMs: 5_000 });
      const before = forged;
      await waitFor('the forged answer', () => forged > before);
      await nc.flush();
      proxy.release();
      return sent;
    };
    try {
      // The sender moves on to the any subject; b holds the only Link: the owner's bot runs it once.
      expect(await forgedFirst(refund)).toEqual({ status: 'delivered', result: 'owner' });
      expect(got).toHaveLength(1);
      // b offered to write the owner request too; never granted, the offer lapses unwritten.
      await waitFor("the owner request's offer lapsed", async () => (await b.lapsed()) === 1, 15_000);
      expect(got).toHaveLength(1);
      // With a Link of its own, the sender writes locally after the forged answer: the owner's bot never gets it.
      const spare: string[] = [];
      bot(a.hub, a.hub.open({ instanceId: 'spare', ownsUpdates: false, peer: 'bot' }), 'spare', spare);
      expect(await forgedFirst(notify)).toEqual({ status: 'delivered', result: 'spare' });
      await waitFor('the second offer lapsed', async () => (await b.lapsed()) === 2, 15_000);
      expect(spare).toHaveLength(1);
      expect(got).toHaveLength(1);
      expect(forged).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('one command id relayed twice to one gateway (two authentic requests) is written to its Link once; the second is dropped and counted', async () => {
    const { b, got } = await ownerAtB();
    const nc = await intruder(server.gateway);
    const { owner, any } = commandSubjects(server.prefix);
    const id = '5b0c1f0e-6a57-4d2f-9a51-1d2f3e4c5b6a';
    expect(await relayByHand(nc, server.prefix, owner, id, refund)).toEqual({ status: 'delivered', result: 'owner' });
    expect(await relayByHand(nc, server.prefix, any, id, refund)).toEqual({ status: 'error', error: 'duplicate_command' });
    expect(got).toEqual([id]);
    expect(await b.duplicates()).toBe(1);
    // Another id is written as usual.
    expect(await relayByHand(nc, server.prefix, owner, '0f1e2d3c-4b5a-4697-8877-665544332211', refund)).toEqual({
      status: 'delivered',
      result: 'owner',
    });
    expect(got).toHaveLength(2);
    expect(await b.duplicates()).toBe(1);
  });

  it('a forged reply on the inbox claims no outcome: the sender takes the authentic one', async () => {
    const { a, got } = await ownerAtB(300);
    const nc = await intruder(server.gateway);
    const forger = commandSeals('not-the-gateway-internal-token-0123456789');
    const forged = toBinary(gatewayApi.SendResponseSchema, toSendResponse({ status: 'delivered', result: 'forged' }));
    // Answers every request at once (the server lets a subscriber answer what it received).
    nc.subscribe(commandSubjects(server.prefix).owner, {
      callback: (_err, m) => {
        if (m.reply) m.respond(forger.replies.seal(m.reply, forged).bytes);
      },
    });
    await nc.flush();
    expect(await a.router.send(notify, { timeoutMs: 5_000 })).toEqual({ status: 'delivered', result: 'owner' });
    expect(got).toHaveLength(1);
    expect(await a.rejected('bad_mac')).toBe(1);
  });
});
