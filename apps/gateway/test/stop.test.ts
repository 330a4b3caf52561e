import http2 from 'node:http2';
import { startNatsServer, type NatsTestServer } from '@wordgame/testkit';
import { BOTLINK_CLOSE_GRACE_MS } from '../src/botlink/index.js';
import { eventually, startTestGateway } from './support/botlink-gateway.js';
import { TestBot } from './support/botlink-bot.js';
import { startTcpProxy } from './support/tcp-proxy.js';

/** libs/lifecycle's grace: a stop past it exits 1 ("graceful stop overran"). */
const LIFECYCLE_GRACE_MS = 10_000;

/** Runs the gateway's stop, giving up at LIFECYCLE_GRACE_MS: how it ended and its ms. */
async function timedStop(stop: () => Promise<void>): Promise<{ outcome: string; ms: number }> {
  const began = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    stop().then(() => 'stopped'),
    new Promise<string>(
      (resolve) => (timer = setTimeout(() => resolve(`still stopping after ${LIFECYCLE_GRACE_MS} ms`), LIFECYCLE_GRACE_MS)),
    ),
  ]);
  clearTimeout(timer);
  return { outcome, ms: performance.now() - began };
}

/** One answered request on a kept h2c session to the internal port (a backend's command connection). */
function internalSession(url: string): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url);
    session.on('error', () => undefined);
    const req = session.request({ ':method': 'POST', ':path': '/gateway.v1.BotCommandService/Send', 'content-type': 'application/proto' });
    req.on('response', () => {
      req.resume();
      resolve(session);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The gateway's stop with peers that vanished without a FIN (a pod network torn down as the pod
 * stops, a bot host gone): the bot's Link and a backend's h2c session run through TCP relays that
 * go silent before the SIGTERM, so no GOAWAY is answered and no socket ever closes from the far
 * side. Each listener must still close within its own grace, the whole stop well inside
 * libs/lifecycle's 10 s.
 */
describe('gateway stop with peers that vanished', () => {
  it('closes the bot-link and internal listeners within their grace although their peers never answer again', async () => {
    const gw = await startTestGateway();
    const botlinkRelay = await startTcpProxy(gw.urls.botlinkPort);
    const internalRelay = await startTcpProxy(gw.urls.internalPort);
    const bot = new TestBot({ url: `https://127.0.0.1:${botlinkRelay.port}`, ca: gw.certs.ca.cert, client: gw.certs.bot }).hello(
      'bot-vanishing',
      true,
    );
    const backend = await internalSession(`http://127.0.0.1:${internalRelay.port}`);
    try {
      await eventually(() => gw.gateway.hub.connected === 1);
      botlinkRelay.freeze();
      internalRelay.freeze();
      const { outcome, ms } = await timedStop(() => gw.gateway.stop());
      expect(outcome).toBe('stopped');
      // The two listeners close side by side, each destroying what is left after its grace.
      // (The stop ending inside libs/lifecycle's grace is the bound; timers never fire early.)
      expect(ms).toBeGreaterThanOrEqual(BOTLINK_CLOSE_GRACE_MS - 100);
    } finally {
      botlinkRelay.cut();
      internalRelay.cut();
      backend.destroy();
      await bot.close();
      await botlinkRelay.close();
      await internalRelay.close();
    }
  }, 30_000);

  it('does not wait on a NATS connection gone silent: the cluster unsubscribes and the drain each get a bounded wait', async () => {
    const nats: NatsTestServer = await startNatsServer();
    const relay = await startTcpProxy(nats.port);
    const logs: string[] = [];
    // Inside the try: a gateway that fails to start must not leave the relay and nats-server open (jest would hang).
    try {
      const gw = await startTestGateway(
        { ...nats.env('gateway'), NATS_URL: `nats://127.0.0.1:${relay.port}` },
        { write: (line: string) => void logs.push(line) },
      );
      relay.freeze();
      const { outcome } = await timedStop(() => gw.gateway.stop());
      expect(outcome).toBe('stopped');
      // The stop ended on the drain's own bound (closed after NATS_DRAIN_MS), not on the NATS
      // client noticing the silence after two missed pings: that is the event, not the clock.
      expect(logs.some((l) => l.includes('nats drain did not finish in time: closed'))).toBe(true);
    } finally {
      relay.cut();
      await relay.close();
      await nats.stop();
    }
  }, 30_000);
});
