import net from 'node:net';

/** A listening L4 balancer. */
export interface TcpBalancer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * What a TCP load balancer in front of the gateways' bot-link port does, for tests: each new
 * connection goes to the next upstream in turn, and to the one after it when that refuses; bytes
 * pass through untouched (mutual TLS ends at the gateway). When either side closes, so does the
 * other, so a killed gateway drops its bots' connections at once and they redial.
 */
export async function startTcpBalancer(upstreams: readonly number[], host = '127.0.0.1'): Promise<TcpBalancer> {
  let turn = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.pause();
    const start = turn++;
    const attempt = (i: number): void => {
      if (i >= upstreams.length) {
        client.destroy();
        return;
      }
      const port = upstreams[(start + i) % upstreams.length] as number;
      const upstream = net.connect(port, host);
      let connected = false;
      upstream.once('error', () => (connected ? client.destroy() : attempt(i + 1)));
      upstream.once('connect', () => {
        connected = true;
        sockets.add(upstream);
        upstream.on('close', () => {
          sockets.delete(upstream);
          client.destroy();
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
