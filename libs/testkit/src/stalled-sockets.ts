import net from 'node:net';
import { openFileLimit } from '@wordgame/config';

/**
 * The first bytes of a TLS ClientHello whose record says 512 bytes follow, then only 6 of them: a
 * TLS server waits for the rest of the record, so the handshake stalls.
 */
export const PARTIAL_CLIENT_HELLO = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]);

/** An HTTP/1.1 request head that never ends (no blank line). */
export const PARTIAL_REQUEST_HEAD = 'GET /health HTTP/1.1\r\nHost: x\r\n';

/** The first 16 of the 24 bytes of the HTTP/2 connection preface, then nothing. */
export const PARTIAL_H2_PREFACE = 'PRI * HTTP/2.0\r\n';

/** Client sockets a test opened and left silent or stalled, and their closes. */
export interface StalledSockets {
  readonly count: number;
  /** How many the server (or anything else) has closed so far. */
  closed(): number;
  /**
   * Resolves once at least `n` (default all) are closed; rejects naming how many are still open
   * when `deadlineMs` passes first.
   */
  closedAtLeast(n: number, deadlineMs: number): Promise<void>;
  /** Closes those still open (the test's cleanup). */
  destroy(): void;
}

/**
 * Opens `count` TCP connections to `host:port`, at most `batch` connecting at once (so a loaded
 * machine's accept queue does not drop SYNs), writes `first` on each when given, and then says
 * nothing more. Resolves once every one is connected or already closed; a reset or refusal counts
 * as closed.
 */
export async function openStalled(
  port: number,
  count: number,
  first?: Buffer | string,
  host = '127.0.0.1',
  batch = 200,
): Promise<StalledSockets> {
  const sockets: net.Socket[] = [];
  let closed = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const onClose = () => {
    closed += 1;
    for (const w of waiters.filter((x) => closed >= x.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  for (let start = 0; start < count; start += batch) {
    const round: Promise<void>[] = [];
    for (let i = start; i < Math.min(count, start + batch); i++) {
      const socket = net.connect(port, host);
      sockets.push(socket);
      socket.on('error', () => undefined);
      socket.on('data', () => undefined);
      socket.once('close', onClose);
      round.push(
        new Promise<void>((resolve) => {
          socket.once('connect', () => {
            if (first !== undefined) socket.write(first);
            resolve();
          });
          socket.once('close', () => resolve());
        }),
      );
    }
    await Promise.all(round);
  }
  return {
    count,
    closed: () => closed,
    closedAtLeast: (n, deadlineMs) =>
      closed >= n
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => {
              waiters.splice(waiters.indexOf(entry), 1);
              reject(
                new Error(`${count - closed} of ${count} sockets still open (${n - closed} more closes awaited) after ${deadlineMs} ms`),
              );
            }, deadlineMs);
            const entry = {
              n,
              resolve: () => {
                clearTimeout(timer);
                resolve();
              },
            };
            waiters.push(entry);
          }),
    destroy: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/**
 * How many sockets a test may hold open at once in this process: `wanted`, or fewer when the
 * open-file limit is low (each costs a descriptor on both ends when the server runs in-process;
 * `reserve` is kept for everything else).
 */
export function socketBudget(wanted: number, perSocket = 2, reserve = 1_000): number {
  const limit = openFileLimit() ?? 1_024;
  return Math.max(10, Math.min(wanted, Math.floor((limit - reserve) / perSocket)));
}
