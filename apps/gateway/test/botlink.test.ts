import { join } from 'node:path';
import { Code } from '@connectrpc/connect';
import { connector } from '@wordgame/contracts';
import { issueLeaf, makeCa } from '@wordgame/testkit';
import { eventually, sample, startTestGateway, type TestGateway } from './support/botlink-gateway.js';
import { TestBot } from './support/botlink-bot.js';
import { startTcpProxy } from './support/tcp-proxy.js';

const notify = {
  case: 'notify' as const,
  value: { recipient: { kind: connector.PlatformKind.TELEGRAM, externalId: '42' }, kind: connector.NotificationKind.PAYMENT_CREDITED },
};

describe('BotLink over mutual TLS', () => {
  let gw: TestGateway;
  const bots: TestBot[] = [];
  const bot = (options: Partial<ConstructorParameters<typeof TestBot>[0]> = {}) => {
    const b = new TestBot({ url: gw.urls.botlinkUrl, ca: gw.certs.ca.cert, client: gw.certs.bot, ...options });
    bots.push(b);
    return b;
  };
  const connected = async () => sample(await gw.metrics(), 'botlink_connected_bots');

  beforeEach(async () => {
    gw = await startTestGateway();
  });
  afterEach(async () => {
    await Promise.all(bots.splice(0).map((b) => b.close()));
    await gw.stop();
  });

  it('refuses a client without a certificate and one signed by another CA', async () => {
    const none = bot({ client: undefined });
    none.hello('no-cert');
    expect(await none.ended).toBeDefined();

    const otherCa = makeCa(join(gw.dir, 'other'), 'other-ca');
    const foreign = bot({ client: issueLeaf(join(gw.dir, 'other'), 'bot', otherCa, { commonName: 'bot', usage: 'client' }) });
    foreign.hello('foreign');
    expect(await foreign.ended).toBeDefined();

    const text = await gw.metrics();
    expect(sample(text, 'botlink_link_rejections_total{reason="tls_handshake"}')).toBe(2);
    expect(sample(text, 'botlink_link_rejections_total{reason="no_hello"}')).toBe(0);
    expect(sample(text, 'botlink_connected_bots')).toBe(0);
    expect(await gw.gateway.hub.send(notify, { timeoutMs: 1_000 })).toEqual({ status: 'no_bot' });
  });

  it('fails a Link whose first message is not Hello with InvalidArgument', async () => {
    const b = bot();
    b.health({ connectFailures: 1n });
    const err = await b.ended;
    expect(err?.code).toBe(Code.InvalidArgument);
    expect(err?.rawMessage).toBe('the first message on Link must be Hello');
    const text = await gw.metrics();
    expect(sample(text, 'botlink_link_rejections_total{reason="no_hello"}')).toBe(1);
    expect(sample(text, 'bot_platform_errors_total{kind="long_poll"}')).toBe(0);
  });

  it('refuses a Hello without an instance_id', async () => {
    const b = bot().hello('');
    expect((await b.ended)?.code).toBe(Code.InvalidArgument);
    expect(sample(await gw.metrics(), 'botlink_link_rejections_total{reason="invalid_hello"}')).toBe(1);
  });

  it('keeps a live second process with the same instance_id beside the first and flags it like a second owner', async () => {
    const first = bot().hello('bot-1', true);
    await eventually(async () => (await connected()) === 1);
    const second = bot().hello('bot-1', true);
    await eventually(async () => (await connected()) === 2);
    const text = await gw.metrics();
    expect(sample(text, 'botlink_duplicate_owners_total')).toBe(1);
    expect(sample(text, 'botlink_update_owners')).toBe(2);
    expect(sample(text, 'botlink_link_ends_total{reason="replaced"}')).toBe(0);
    expect(gw.gateway.hub.snapshot()).toEqual([
      { instanceId: 'bot-1', ownsUpdates: true, peer: 'bot' },
      { instanceId: 'bot-1', ownsUpdates: true, peer: 'bot' },
    ]);
    expect(await gw.gateway.hub.send(notify, { timeoutMs: 5_000 })).toMatchObject({ status: 'delivered' });
    expect(first.received.length + second.received.length).toBe(1);
    await second.close();
    await eventually(async () => sample(await gw.metrics(), 'botlink_update_owners') === 1);
    expect(await Promise.race([first.ended.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('open'), 100))])).toBe(
      'open',
    );
  });

  it('adds Health deltas to the counter and never lowers last_ok, also across a reconnect', async () => {
    const now = Math.floor(Date.now() / 1000);
    const first = bot().hello('bot-h');
    first.health({ connectFailures: 2n, apiErrors: 1n, rateLimited: 0n, lastOkUnix: BigInt(now - 10) });
    first.health({ connectFailures: 3n, apiErrors: 0n, rateLimited: 4n, lastOkUnix: BigInt(now) });
    first.health({ connectFailures: 0n, apiErrors: 5n, rateLimited: 1n, lastOkUnix: BigInt(now - 100) });
    await eventually(async () => sample(await gw.metrics(), 'bot_platform_errors_total{kind="api"}') === 6);
    let text = await gw.metrics();
    expect(sample(text, 'bot_platform_errors_total{kind="long_poll"}')).toBe(5);
    expect(sample(text, 'bot_platform_errors_total{kind="rate_limited"}')).toBe(5);
    expect(sample(text, 'bot_platform_last_ok_unix')).toBe(now);

    await first.close();
    await eventually(async () => (await connected()) === 0);
    const again = bot().hello('bot-h');
    again.health({ connectFailures: 1n, lastOkUnix: BigInt(now - 50) });
    again.health({ lastOkUnix: 0n });
    again.health({ lastOkUnix: BigInt(now + 86_400) });
    await eventually(async () => sample(await gw.metrics(), 'bot_platform_errors_total{kind="long_poll"}') === 6);
    await gw.gateway.hub.send(notify, { timeoutMs: 5_000 });
    text = await gw.metrics();
    expect(sample(text, 'bot_platform_last_ok_unix')).toBe(now);
    again.health({ lastOkUnix: BigInt(now + 1) });
    await eventually(async () => sample(await gw.metrics(), 'bot_platform_last_ok_unix') === now + 1);
  });

  it('adds the additive Health dead_letters and update_conflicts deltas to their own counters', async () => {
    const b = bot().hello('bot-dl', true);
    b.health({ deadLetters: 2n, updateConflicts: 4n });
    b.health({ connectFailures: 1n });
    b.health({ deadLetters: 1n, updateConflicts: 1n });
    await eventually(async () => sample(await gw.metrics(), 'bot_dead_letters_total') === 3);
    const text = await gw.metrics();
    expect(sample(text, 'bot_platform_update_conflicts_total')).toBe(5);
    expect(sample(text, 'bot_platform_errors_total{kind="long_poll"}')).toBe(1);
  });

  it('exposes the additive outbox levels as gauges (sum and oldest over open Links, gone with their Link)', async () => {
    const gauges = async () => {
      const text = await gw.metrics();
      return [sample(text, 'bot_outbox_failing_rows'), sample(text, 'bot_outbox_oldest_failing_age_seconds')];
    };
    expect(await gauges()).toEqual([0, 0]);
    const owner = bot().hello('bot-outbox', true);
    owner.health({ outboxFailingRows: 2n, outboxOldestFailingAgeSeconds: 340n });
    await eventually(async () => (await gauges())[0] === 2);
    expect(await gauges()).toEqual([2, 340]);
    const other = bot().hello('bot-other', false);
    other.health({ outboxFailingRows: 1n, outboxOldestFailingAgeSeconds: 30n });
    await eventually(async () => (await gauges())[0] === 3);
    expect(await gauges()).toEqual([3, 340]);
    owner.health({ outboxFailingRows: 1n, outboxOldestFailingAgeSeconds: 400n });
    await eventually(async () => (await gauges())[1] === 400);
    expect(await gauges()).toEqual([2, 400]);
    await owner.close();
    await eventually(async () => (await gauges())[0] === 1);
    expect(await gauges()).toEqual([1, 30]);
    other.health({ connectFailures: 1n });
    await eventually(async () => sample(await gw.metrics(), 'bot_platform_errors_total{kind="long_poll"}') === 1);
    expect(await gauges()).toEqual([0, 0]);
  });

  it('adds the additive Health platform_unreadable_responses deltas to their own counter, not to bot_platform_errors_total', async () => {
    const b = bot().hello('bot-html', true);
    b.health({ platformUnreadableResponses: 4n, lastOkUnix: BigInt(Math.floor(Date.now() / 1000)) });
    b.health({ platformUnreadableResponses: 3n });
    await eventually(async () => sample(await gw.metrics(), 'bot_platform_unreadable_responses_total') === 7);
    const text = await gw.metrics();
    for (const kind of ['long_poll', 'api', 'rate_limited']) expect(sample(text, `bot_platform_errors_total{kind="${kind}"}`)).toBe(0);
  });

  it('adds the additive Health chat_commands deltas to bot_chat_commands_total by input and outcome, leaving out unknown labels', async () => {
    const b = bot().hello('bot-chat', true);
    const series = (input: string, outcome: string) => `bot_chat_commands_total{input="${input}",outcome="${outcome}"}`;
    expect(sample(await gw.metrics(), series('paysupport', 'answered'))).toBe(0);
    b.health({
      chatCommands: [
        { input: 'paysupport', outcome: 'answered', count: 3n },
        { input: 'privacy', outcome: 'rate_limited', count: 2n },
        { input: 'user-7001', outcome: 'answered', count: 9n },
        { input: 'start', outcome: 'exploded', count: 9n },
      ],
    });
    b.health({ chatCommands: [{ input: 'paysupport', outcome: 'answered', count: 1n }] });
    await eventually(async () => sample(await gw.metrics(), series('paysupport', 'answered')) === 4);
    const text = await gw.metrics();
    expect(sample(text, series('privacy', 'rate_limited'))).toBe(2);
    expect(sample(text, 'bot_chat_commands_rate_limited_total')).toBe(2);
    expect(text).not.toContain('user-7001');
    expect(text).not.toContain('exploded');
  });

  it('accepts a second owner of updates from another instance and flags it (metric and owner gauge)', async () => {
    bot().hello('owner-a', true);
    bot().hello('watcher', false);
    await eventually(async () => (await connected()) === 2);
    let text = await gw.metrics();
    expect(sample(text, 'botlink_update_owners')).toBe(1);
    expect(sample(text, 'botlink_duplicate_owners_total')).toBe(0);
    const second = bot().hello('owner-b', true);
    await eventually(async () => (await connected()) === 3);
    text = await gw.metrics();
    expect(sample(text, 'botlink_duplicate_owners_total')).toBe(1);
    expect(sample(text, 'botlink_update_owners')).toBe(2);
    expect(
      gw.gateway.hub
        .snapshot()
        .filter((l) => l.ownsUpdates)
        .map((l) => l.instanceId)
        .sort(),
    ).toEqual(['owner-a', 'owner-b']);
    await second.close();
    await eventually(async () => sample(await gw.metrics(), 'botlink_update_owners') === 1);
  });

  it('ends every Link cleanly when the gateway stops', async () => {
    const b = bot().hello('bot-stop');
    await eventually(async () => (await connected()) === 1);
    await gw.gateway.stop();
    expect(await b.ended).toBeUndefined();
    gw = await startTestGateway();
  });
});

describe('BotLink keepalive', () => {
  it('replaces the Link of an instance whose old connection no longer answers (a reconnect), silently; commands go to the new one', async () => {
    const gw = await startTestGateway({ BOTLINK_PING_INTERVAL_MS: '600000', BOTLINK_PING_TIMEOUT_MS: '300' });
    const proxy = await startTcpProxy(gw.urls.botlinkPort);
    const options = { ca: gw.certs.ca.cert, client: gw.certs.bot };
    const first = new TestBot({ url: `https://127.0.0.1:${proxy.port}`, ...options }).hello('bot-1', true);
    let second: TestBot | undefined;
    try {
      await eventually(() => gw.gateway.hub.connected === 1);
      proxy.freeze();
      second = new TestBot({ url: gw.urls.botlinkUrl, ...options }).hello('bot-1', true);
      await eventually(async () => sample(await gw.metrics(), 'botlink_link_ends_total{reason="replaced"}') === 1);
      const text = await gw.metrics();
      expect(sample(text, 'botlink_connected_bots')).toBe(1);
      expect(sample(text, 'botlink_update_owners')).toBe(1);
      expect(sample(text, 'botlink_duplicate_owners_total')).toBe(0);
      expect(gw.gateway.hub.snapshot()).toEqual([{ instanceId: 'bot-1', ownsUpdates: true, peer: 'bot' }]);
      expect(await gw.gateway.hub.send(notify, { timeoutMs: 5_000 })).toMatchObject({ status: 'delivered' });
      expect(second.received).toHaveLength(1);
      expect(first.received).toHaveLength(0);
    } finally {
      proxy.cut();
      await first.close();
      await second?.close();
      await proxy.close();
      await gw.stop();
    }
  });

  it('detects a half-open connection by an unanswered ping and marks the bot disconnected', async () => {
    const gw = await startTestGateway({
      BOTLINK_PING_INTERVAL_MS: '200',
      BOTLINK_PING_TIMEOUT_MS: '300',
      BOTLINK_IDLE_TIMEOUT_MS: '600000',
    });
    const proxy = await startTcpProxy(gw.urls.botlinkPort);
    const b = new TestBot({
      url: `https://127.0.0.1:${proxy.port}`,
      ca: gw.certs.ca.cert,
      client: gw.certs.bot,
      answer: () => undefined,
    }).hello('bot-ho');
    try {
      await eventually(() => gw.gateway.hub.connected === 1);
      const pending = gw.gateway.hub.send(notify, { timeoutMs: 60_000 });
      await b.waitForCommands(1);
      proxy.freeze();
      expect(await pending).toEqual({ status: 'error', error: 'link_lost' });
      const text = await gw.metrics();
      expect(sample(text, 'botlink_connected_bots')).toBe(0);
      expect(sample(text, 'botlink_ping_timeouts_total')).toBe(1);
      expect(sample(text, 'botlink_commands_total{kind="notify",outcome="link_lost"}')).toBe(1);
    } finally {
      proxy.cut();
      await b.close();
      await proxy.close();
      await gw.stop();
    }
  });

  it('closes a Link that sends nothing within the idle deadline', async () => {
    const gw = await startTestGateway({ BOTLINK_IDLE_TIMEOUT_MS: '400' });
    const b = new TestBot({ url: gw.urls.botlinkUrl, ca: gw.certs.ca.cert, client: gw.certs.bot }).hello('bot-idle');
    try {
      const err = await b.ended;
      expect(err?.code).toBe(Code.DeadlineExceeded);
      const text = await gw.metrics();
      expect(sample(text, 'botlink_connected_bots')).toBe(0);
      expect(sample(text, 'botlink_link_ends_total{reason="idle_timeout"}')).toBe(1);
    } finally {
      await b.close();
      await gw.stop();
    }
  });

  it('keeps a Link whose bot reports Health within the idle deadline', async () => {
    const gw = await startTestGateway({ BOTLINK_IDLE_TIMEOUT_MS: '400' });
    const b = new TestBot({ url: gw.urls.botlinkUrl, ca: gw.certs.ca.cert, client: gw.certs.bot }).hello('bot-alive');
    try {
      for (let i = 0; i < 6; i++) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        b.health({});
      }
      expect(gw.gateway.hub.connected).toBe(1);
      expect(await gw.gateway.hub.send(notify, { timeoutMs: 5_000 })).toMatchObject({ status: 'delivered' });
    } finally {
      await b.close();
      await gw.stop();
    }
  });
});
