import { randomBytes } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { botlink } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import { Registry } from 'prom-client';
import { ClusterCommandRouter } from '../src/commands/cluster.js';
import { CommandHub, type Link } from '../src/commands/hub.js';
import type { CommandPayload } from '../src/commands/outcome.js';
import { createBotlinkMetrics } from '../src/metrics/botlink-metrics.js';

const NATS_URL = process.env['SCALE_NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** One gateway as the cluster sees it: its own hub and router on its own NATS connection. */
async function gateway(prefix: string) {
  const nc = await connect({ servers: NATS_URL });
  const late: { router?: ClusterCommandRouter } = {};
  const logger = createLogger('cluster-test', 'silent');
  const hub = new CommandHub({
    metrics: createBotlinkMetrics(new Registry()),
    logger,
    queueLimit: 16,
    onLinksChanged: () => late.router?.sync(),
  });
  const router = new ClusterCommandRouter({ nc, hub, metrics: createBotlinkMetrics(new Registry()), logger, prefix });
  late.router = router;
  router.sync();
  return { nc, hub, router };
}

/** A bot on `link`: acks every command with `result` = its own name, recording what it got. */
function bot(hub: CommandHub, link: Link, name: string, got: string[], ack = true): void {
  void (async () => {
    while (await link.queue.wait()) {
      const command = link.queue.shift();
      if (!command) continue;
      const id = command.message.command?.commandId ?? '';
      got.push(id);
      if (ack) hub.ack(link, create(botlink.AckSchema, { commandId: id, delivered: true, result: name }));
    }
  })();
}

const notify: CommandPayload = { case: 'sendToUser', value: { text: 'hello' } };

describe('cluster command router over a real NATS server', () => {
  const conns: NatsConnection[] = [];
  afterAll(async () => {
    for (const nc of conns) await nc.close();
  });
  const pair = async () => {
    const prefix = `test${randomBytes(4).toString('hex')}`;
    const a = await gateway(prefix);
    const b = await gateway(prefix);
    conns.push(a.nc, b.nc);
    return { a, b };
  };

  it('no bot linked anywhere: no_bot at once', async () => {
    const { a } = await pair();
    const started = performance.now();
    expect(await a.router.send(notify, { timeoutMs: 5_000 })).toEqual({ status: 'no_bot' });
    expect(performance.now() - started).toBeLessThan(500);
  });

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
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => got.length > 0 && (clearInterval(poll), resolve()), 5);
    });
    b.hub.end(silent, 'stream_closed');
    expect(await pending).toEqual({ status: 'error', error: 'link_lost' });
    expect(spare).toHaveLength(0);
  });
});
