import type { MessageInitShape } from '@bufbuild/protobuf';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { DevCerts } from '@wordgame/testkit';
// The bench measures the gateway's own code in-process (allowed for tools/bench only, see eslint.config.js).
import { listenMtls } from '../../../apps/gateway/src/botlink/index.js';
import { startBotThread } from './bot-thread.js';
import { Pusher } from './pusher.js';
import { runWindowed, type WindowedRun } from './window.js';

/**
 * The baseline: a bare connect-node bidi stream on the gateway's own mTLS listener, measured the
 * same way as the hub. The server writes a message carrying an id, the bot thread answers it, the
 * server matches the answer by id; no hub, no ids minted, no timers, no metrics.
 */
export async function runEcho(certs: DevCerts, logger: Logger, total: number, window: number, maxSeconds: number): Promise<WindowedRun> {
  const outgoing = new Pusher<MessageInitShape<typeof botlink.ToBotSchema>>();
  const pending = new Map<string, () => void>();
  let linked: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    linked = resolve;
  });
  const server = await listenMtls(
    {
      host: '127.0.0.1',
      port: 0,
      caPath: certs.ca.cert,
      certPath: certs.gateway.cert,
      keyPath: certs.gateway.key,
      logger,
      pingIntervalMs: 30_000,
      pingTimeoutMs: 20_000,
      limits: { handshakeTimeoutMs: 5_000, maxConnections: 64 },
    },
    connectNodeAdapter({
      routes: (router) =>
        router.rpc(botlink.BotLink.method.link, async function* echo(requests, ctx) {
          void (async () => {
            for await (const req of requests) {
              if (req.msg.case === 'hello') linked();
              if (req.msg.case !== 'ack') continue;
              const id = req.msg.value.commandId;
              pending.get(id)?.();
              pending.delete(id);
            }
          })().catch(() => undefined);
          ctx.signal.addEventListener('abort', () => outgoing.close());
          yield* outgoing;
        }),
    }),
  );
  const bot = startBotThread(`https://127.0.0.1:${server.port}`, certs);
  try {
    await ready;
    return await runWindowed(total, window, maxSeconds, (i) => {
      const id = String(i);
      const answered = new Promise<void>((resolve) => pending.set(id, resolve));
      outgoing.push({ command: { commandId: id, payload: { case: 'chatGate', value: { externalId: id, allow: true } } } });
      return answered;
    });
  } finally {
    outgoing.close();
    await bot.stop();
    await server.close();
  }
}
