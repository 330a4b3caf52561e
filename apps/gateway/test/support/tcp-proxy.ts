import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay in front of a server, so a test can cut a connection (both sides see it end) or
 * freeze it (bytes stop flowing both ways while both sockets stay open: a half-open link).
 */
export interface TcpProxy {
  readonly port: number;
  /** Destroys every relayed connection. */
  cut(): void;
  /** Stops relaying on every connection without closing anything. */
  freeze(): void;
  /** Holds what the clients send (kept, in order) while the server's bytes still reach them; `release()` relays it on. */
  hold(): void;
  /** Ends `hold()`: what the clients sent meanwhile goes on to the server, then everything after it. */
  release(): void;
  /** Cuts every connection and refuses new ones until `accept()` (the server looks down). */
  refuse(): void;
  /** Relays new connections again after `refuse()`. */
  accept(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, host = '127.0.0.1'): Promise<TcpProxy> {
  const pairs = new Set<[net.Socket, net.Socket]>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, host);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    refuse: () => {
      refusing = true;
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    accept: () => {
      refusing = false;
    },
    freeze: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    hold: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        client.pause();
      }
    },
    release: () => {
      for (const [client, upstream] of pairs) client.pipe(upstream);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
