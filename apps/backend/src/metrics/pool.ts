import type pg from 'pg';
import { Gauge, type Registry } from 'prom-client';
import { SeriesHistogram } from './method-series.js';

type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, release: (release?: unknown) => void) => void;
type Connect = (callback?: ConnectCallback) => Promise<pg.PoolClient> | undefined;

/**
 * Measures the pg pool: `backend_db_pool_connections{state}` (in_use, idle), `backend_db_pool_waiting`
 * and `backend_db_pool_max` read on scrape, and `backend_db_pool_acquire_seconds`, the wait for a
 * connection on every checkout (kysely's and pool.query's alike: `connect` is wrapped on this pool
 * object, both of its call forms, results and errors unchanged). Answers a function that
 * unregisters the series and puts the pool's own `connect` back.
 */
export function measurePool(registry: Registry, pool: pg.Pool): () => void {
  const registers = [registry];
  new Gauge({
    name: 'backend_db_pool_connections',
    help: 'PostgreSQL pool connections by state: in_use (checked out), idle.',
    labelNames: ['state'],
    registers,
    collect() {
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
    },
  });
  new Gauge({
    name: 'backend_db_pool_waiting',
    help: 'Checkouts waiting for a free pool connection now (above 0 for long: DB_POOL_MAX too small or slow statements).',
    registers,
    collect() {
      this.set(pool.waitingCount);
    },
  });
  new Gauge({
    name: 'backend_db_pool_max',
    help: 'The pool size (DB_POOL_MAX).',
    registers,
    collect() {
      this.set(pool.options.max ?? 10);
    },
  });
  const acquire = new SeriesHistogram(
    'backend_db_pool_acquire_seconds',
    'Time a checkout waited for a pool connection (near 0 while idle connections exist).',
    [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers,
    'none',
  );
  const series = acquire.series('');
  const holder = pool as unknown as { connect: Connect };
  const own = Object.prototype.hasOwnProperty.call(pool, 'connect') ? holder.connect : undefined;
  const connect = holder.connect.bind(pool);
  holder.connect = (callback) => {
    const started = performance.now();
    const end = () => acquire.record(series, (performance.now() - started) / 1000);
    if (callback) {
      return connect((err, client, release) => {
        end();
        callback(err, client, release);
      });
    }
    const pending = connect();
    return pending?.finally(() => end());
  };
  return () => {
    for (const name of ['backend_db_pool_connections', 'backend_db_pool_waiting', 'backend_db_pool_max', 'backend_db_pool_acquire_seconds'])
      registry.removeSingleMetric(name);
    if (own) holder.connect = own;
    else delete (holder as { connect?: Connect }).connect;
  };
}
