import { spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { TEST_SERVICE_TOKENS } from '@wordgame/testkit';

describe('backend main stopped while it starts', () => {
  it('exits 0 on a SIGTERM that comes while it still waits for its database (a pod stopped right after a restart)', async () => {
    // A database that accepts the connection and never answers: the start is mid-way for as long as the test likes.
    const connected = new Set<net.Socket>();
    const silent = net.createServer((socket) => void connected.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', main], {
      env: {
        PATH: process.env['PATH'] ?? '',
        ...TEST_SERVICE_TOKENS,
        BACKEND_PORT: '0',
        BACKEND_METRICS_PORT: '0',
        DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/never`,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      while (connected.size === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(out).not.toContain('graceful stop overran');
      expect(out).toContain('"msg":"backend stopped"');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      for (const socket of connected) socket.destroy();
      silent.close();
    }
  }, 120_000);
});
