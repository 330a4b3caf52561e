import { PGlite } from '@electric-sql/pglite';
import { createLogger } from '@wordgame/logging';
import pg from 'pg';
import { serveOverWire, type WireServer } from './pg-wire.js';

/**
 * The dev stack's database server: several real node-postgres clients on one PGlite, as the
 * backend and the operator commands share it while `npm start` runs.
 */
describe('PGlite over the PostgreSQL protocol', () => {
  let pglite: PGlite;
  let server: WireServer;
  const clients: pg.Client[] = [];

  const connect = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${server.port}/postgres` });
    client.on('error', () => undefined);
    await client.connect();
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    pglite = await PGlite.create('memory://');
    await pglite.exec('create table t (n int)');
  });
  afterAll(async () => {
    await pglite.close();
  });
  beforeEach(async () => {
    server = await serveOverWire(pglite, {
      host: '127.0.0.1',
      port: 0,
      logger: createLogger('database', 'silent'),
      idleInTransactionMs: 1_000,
    });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.end().catch(() => undefined)));
    await server.close();
    await pglite.exec('truncate t');
  });

  it("never mixes two clients' parameterized statements (each Parse..Sync runs whole)", async () => {
    const [a, b] = [await connect(), await connect()];
    const run = async (client: pg.Client, tag: string) => {
      const wrong: string[] = [];
      for (let i = 0; i < 150; i++) {
        const res = await client.query<{ v: string }>('select $1::text || $2::text as v', [tag, String(i)]);
        if (res.rows[0]?.v !== `${tag}${i}`) wrong.push(`${tag}${i} -> ${String(res.rows[0]?.v)}`);
      }
      return wrong;
    };
    const [wa, wb] = await Promise.all([run(a, 'a'), run(b, 'b')]);
    expect([...wa, ...wb]).toEqual([]);
  });

  it("holds another client's write until a transaction ends, so a rollback never takes it along", async () => {
    const [a, b] = [await connect(), await connect()];
    await a.query('begin');
    await a.query('insert into t values (1)');
    let done = false;
    const write = b.query('insert into t values (2)').then(() => (done = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(done).toBe(false);
    await a.query('rollback');
    await write;
    expect((await b.query<{ n: number }>('select n from t order by n')).rows).toEqual([{ n: 2 }]);
  });

  it('keeps prepared statements apart: two clients may use the same name', async () => {
    const [a, b] = [await connect(), await connect()];
    for (let i = 1; i <= 2; i++) {
      const [ra, rb] = await Promise.all([
        a.query<{ v: number }>({ name: 'same', text: 'select 1 + $1::int as v', values: [i] }),
        b.query<{ v: number }>({ name: 'same', text: 'select 10 * $1::int as v', values: [i] }),
      ]);
      expect([ra.rows[0]?.v, rb.rows[0]?.v]).toEqual([1 + i, 10 * i]);
    }
  });

  it('rolls back what a disconnecting client left open and serves the others', async () => {
    const [a, b] = [await connect(), await connect()];
    await a.query('begin');
    await a.query('insert into t values (1)');
    const count = b.query<{ c: number }>('select count(*)::int as c from t');
    await a.end();
    expect((await count).rows).toEqual([{ c: 0 }]);
    expect(server.connections()).toBe(1);
  });

  it('closes a client idle inside a transaction past the limit', async () => {
    const [a, b] = [await connect(), await connect()];
    await a.query('begin');
    await a.query('insert into t values (1)');
    const t0 = Date.now();
    expect((await b.query<{ c: number }>('select count(*)::int as c from t')).rows).toEqual([{ c: 0 }]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    await expect(a.query('commit')).rejects.toThrow();
  });
});
