import { Worker } from 'node:worker_threads';
import type { DevCerts } from '@wordgame/testkit';
import type { BotWorkerData } from './bot-worker.js';

/** The acking bot running on a worker thread; `stop()` ends its Link and waits for the thread. */
export function startBotThread(url: string, certs: DevCerts): { stop(): Promise<void> } {
  const data: BotWorkerData = { url, certs };
  const worker = new Worker(new URL('./bot-worker-boot.mjs', import.meta.url), { workerData: data });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    stop: async () => {
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
