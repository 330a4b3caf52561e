import pg from 'pg';
import { CAUSE_LEVELS } from '@wordgame/net-errors';
import { freePort } from '@wordgame/testkit';
import { isDatabaseUnavailable } from './unavailable.js';

const url = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err: unknown) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('isDatabaseUnavailable (real PostgreSQL failures)', () => {
  it('is true for a server that refuses connections', async () => {
    const port = await freePort();
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/test`, connectionTimeoutMillis: 2_000 });
    expect(isDatabaseUnavailable(await failureOf(() => client.connect()))).toBe(true);
  });

  it('is true for a session the server terminated (a restart or failover) and for the client used after it', async () => {
    const victim = new pg.Client({ connectionString: url });
    victim.on('error', () => undefined);
    await victim.connect();
    const pid = (await victim.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const pending = failureOf(() => victim.query('select pg_sleep(5)'));
      await new Promise((r) => setTimeout(r, 100));
      await admin.query('select pg_terminate_backend($1)', [pid]);
      expect(isDatabaseUnavailable(await pending)).toBe(true);
      expect(isDatabaseUnavailable(await failureOf(() => victim.query('select 1')))).toBe(true);
    } finally {
      await admin.end();
    }
  });

  it('is false for faults of the statement itself, and looks through causes', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect(isDatabaseUnavailable(await failureOf(() => client.query('selec 1')))).toBe(false);
      expect(isDatabaseUnavailable(await failureOf(() => client.query('select 1/0')))).toBe(false);
    } finally {
      await client.end();
    }
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: '57P01' }) }))).toBe(true);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });

  it('follows the shared classifier: AggregateError members, a cycle in cause, the depth limit', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(isDatabaseUnavailable(new Error('query failed', { cause: new AggregateError([new Error('other'), refused]) }))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([Object.assign(new Error('x'), { code: '08006' })]))).toBe(true);
    const looped = new Error('a');
    (looped as { cause?: unknown }).cause = new Error('b', { cause: looped });
    expect(isDatabaseUnavailable(looped)).toBe(false);
    let deep: unknown = new Error('Connection terminated unexpectedly');
    for (let i = 0; i < CAUSE_LEVELS; i++) deep = new Error(`level ${i}`, { cause: deep });
    expect(isDatabaseUnavailable(deep)).toBe(true);
    expect(isDatabaseUnavailable(new Error('one more', { cause: deep }))).toBe(false);
  });
});
