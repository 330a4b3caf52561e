import { parentPort, workerData } from 'node:worker_threads';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { botlink } from '@wordgame/contracts';
import type { DevCerts } from '@wordgame/testkit';
import { Pusher } from './pusher.js';
import { botClient } from './tls.js';

/** What the main thread hands the bot thread. */
export interface BotWorkerData {
  url: string;
  certs: DevCerts;
}

/**
 * The bench's bot, on its own thread of the same process so the gateway side and the bot side do
 * not share one event loop: it sends Hello, then acks every command the moment it arrives. It
 * stops when the main thread posts 'stop'.
 */
const { url, certs } = workerData as BotWorkerData;
const requests = new Pusher<MessageInitShape<typeof botlink.FromBotSchema>>();
const abort = new AbortController();
parentPort?.on('message', (message: unknown) => {
  if (message === 'stop') {
    requests.close();
    abort.abort();
  }
});
requests.push({ msg: { case: 'hello', value: { instanceId: 'bench', ownsUpdates: true } } });
try {
  for await (const res of botClient(url, certs).link(requests, { signal: abort.signal })) {
    requests.push({ msg: { case: 'ack', value: { commandId: res.command?.commandId ?? '', delivered: true } } });
  }
} catch {
  // The main thread ended the run.
}
parentPort?.close();
