import net from 'node:net';

/**
 * A TCP port that was free on 127.0.0.1 a moment ago (the OS picks it). For listeners whose port
 * another process must know before they start; a listener that can take port 0 should do that.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
