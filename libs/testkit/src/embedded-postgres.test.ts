import { chmodSync, existsSync, lstatSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgresCluster } from './embedded-postgres.js';
import { freePort } from './ports.js';

async function query<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

/** The embedded PostgreSQL that `npm start` keeps in `.data/postgres` (and `npm test` throws away). */
describe('startPostgresCluster', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'embedded-pg-'));
    // Enterable by the server's user when we are root (mkdtemp makes 0700; the last test closes it again).
    chmodSync(dir, 0o755);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('initdbs once, creates the named database, keeps its rows across a fast shutdown and a second start', async () => {
    const dataDir = join(dir, '.data', 'postgres');
    const port = await freePort();
    const first = await startPostgresCluster({ dataDir, port, database: 'wordgame', durable: true });
    try {
      expect(first.created).toBe(true);
      expect(first.url).toBe(`postgres://postgres@127.0.0.1:${port}/wordgame`);
      await query(first.url, 'create table kept (n int); insert into kept values (42)');
    } finally {
      await first.stop();
    }
    expect(await first.exited).toBe(0);
    const lines: string[] = [];
    const second = await startPostgresCluster({ dataDir, port, database: 'wordgame', durable: true, onLine: (l) => lines.push(l) });
    try {
      expect(second.created).toBe(false);
      expect(await query<{ n: number }>(second.url, 'select n from kept')).toEqual([{ n: 42 }]);
      // A clean stop before: no crash recovery on this start.
      expect(lines.join('\n')).toMatch(/database system was shut down at/);
      expect(lines.join('\n')).not.toMatch(/not properly shut down|automatic recovery/);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('rejects at once with the server’s own lines when it cannot start', async () => {
    const port = await freePort();
    const running = await startPostgresCluster({ dataDir: join(dir, 'a'), port, database: 'postgres', durable: false });
    try {
      // Another PostgreSQL on the port answers too: it must not pass for this one.
      await expect(startPostgresCluster({ dataDir: join(dir, 'b'), port, database: 'postgres', durable: false })).rejects.toThrow(
        /postgres exited with 1 before it was ready:[\s\S]*could not bind IPv4 address "127\.0\.0\.1": Address already in use/,
      );
      expect(await query<{ n: number }>(running.url, 'select 1 as n')).toEqual([{ n: 1 }]);
    } finally {
      await running.stop();
    }
  }, 120_000);

  const asRoot = process.getuid?.() === 0 ? it : it.skip;
  asRoot(
    'as root in a folder only root may enter, runs as postgres on data it can reach, behind the named path',
    async () => {
      chmodSync(dir, 0o700);
      const dataDir = join(dir, '.data', 'postgres');
      const cluster = await startPostgresCluster({ dataDir, port: await freePort(), database: 'postgres', durable: false });
      try {
        expect(lstatSync(dataDir).isSymbolicLink()).toBe(true);
        expect(realpathSync(dataDir)).toBe(cluster.dataDir);
        expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
        expect(statSync(cluster.dataDir).uid).not.toBe(0);
        expect(await query<{ u: string }>(cluster.url, 'select current_user as u')).toEqual([{ u: 'postgres' }]);
      } finally {
        await cluster.stop();
        rmSync(cluster.dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
