import net from 'node:net';
import { serverAnswers } from '@wordgame/testkit';

/**
 * Resolves once `check` returns true, polling every `intervalMs`; rejects after `timeoutMs`, or at
 * the next poll once `abandoned()` is true (what it waits for has gone: no poll outlives it).
 */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 200,
  abandoned: () => boolean = () => false,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (abandoned()) throw new Error(`${what} gone before it was ready`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** True when GET `url` answers 200. */
export async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await res.body?.cancel();
  return res.status === 200;
}

/** True when something accepts TCP connections on host:port. */
export function tcpOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** True when the PostgreSQL server at `url` accepts a connection and a query on that database. */
export async function pgAnswers(url: string): Promise<boolean> {
  return (await serverAnswers(url)) === undefined;
}
