import { readFileSync } from 'node:fs';
import net from 'node:net';

const handedOut = new Set<number>();

/** The first port of the kernel's ephemeral range (bind(0) and outgoing connections take ports from there). */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 12_000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port that was free on 127.0.0.1 a moment ago, for listeners whose port another process must
 * know before they start (a listener that can take port 0 should do that). It is drawn at random
 * below the kernel's ephemeral range, so that between this check and the real bind no outgoing
 * connection or port-0 listener elsewhere on the machine can take it (with many suites running at
 * once, ports the OS handed out and released were sometimes taken again before the child bound
 * them); a port is never handed out twice by one process.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralStart();
  const low = Math.max(10_000, high - 12_000);
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
    handedOut.delete(port);
  }
  throw new Error(`no free port in ${low}-${high - 1} after 200 tries`);
}
