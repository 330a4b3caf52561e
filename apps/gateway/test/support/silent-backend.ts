import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

/** An h2c "backend" that takes every call and never answers, and counts the calls taken. */
export interface SilentBackend {
  url: string;
  calls(): number;
  close(): Promise<void>;
}

/** Starts a silent backend on 127.0.0.1:0: what the gateway sees of a backend that is behind. */
export async function silentBackend(): Promise<SilentBackend> {
  let calls = 0;
  const server = http2.createServer();
  const open: http2.ServerHttp2Session[] = [];
  server.on('session', (s) => open.push(s));
  server.on('stream', () => (calls += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of open) s.destroy();
      }),
  };
}
