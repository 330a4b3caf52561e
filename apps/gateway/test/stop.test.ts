import http2 from 'node:http2';
import { BOTLINK_CLOSE_GRACE_MS } from '../src/botlink/index.js';
import { eventually, startTestGateway } from './support/botlink-gateway.js';
import { TestBot } from './support/botlink-bot.js';
import { startTcpProxy } from './support/tcp-proxy.js';

/** libs/lifecycle's grace: a stop past it exits 1 ("graceful stop overran"). */
const LIFECYCLE_GRACE_MS = 10_000;

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
      const began = performance.now();
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        gw.gateway.stop().then(() => `stopped`),
        new Promise<string>(
          (resolve) => (timer = setTimeout(() => resolve(`still stopping after ${LIFECYCLE_GRACE_MS} ms`), LIFECYCLE_GRACE_MS)),
        ),
      ]);
      clearTimeout(timer);
      const ms = performance.now() - began;
      expect(outcome).toBe('stopped');
      // The two listeners close side by side, each destroying what is left after its grace.
      expect(ms).toBeGreaterThanOrEqual(BOTLINK_CLOSE_GRACE_MS - 100);
      expect(ms).toBeLessThan(BOTLINK_CLOSE_GRACE_MS + 2_000);
    } finally {
      botlinkRelay.cut();
      internalRelay.cut();
      backend.destroy();
      await bot.close();
      await botlinkRelay.close();
      await internalRelay.close();
    }
  }, 30_000);
});
