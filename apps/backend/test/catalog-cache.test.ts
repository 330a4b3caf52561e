import net from 'node:net';
import { sql, type Kysely, type KyselyPlugin, type QueryResult, type UnknownRow } from 'kysely';
import { Registry } from 'prom-client';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import {
  createCatalogCache,
  createCatalogMetrics,
  listProducts,
  upsertProduct,
  type CatalogCache,
  type CatalogCacheState,
  type CatalogMetrics,
  type CatalogReadSource,
} from '../src/catalog/index.js';
import type { ProductDraftInput } from '../src/catalog/product.js';
import type { DB } from '../src/db/index.js';
import { freshMigratedPostgres } from '../src/testing/index.js';
import { as, startHarness, type Harness } from './support/harness.js';
import { createProduct, newAccount } from './support/wallet.js';

type Pg = Awaited<ReturnType<typeof freshMigratedPostgres>>;

/** Counts the statements a cache sends through its pool, and can hold one statement's result back (the race test). */
class Statements implements KyselyPlugin {
  count = 0;
  private hold: { reached: () => void; released: Promise<void> } | undefined;

  transformQuery: KyselyPlugin['transformQuery'] = (args) => args.node;

  async transformResult(args: { result: QueryResult<UnknownRow> }): Promise<QueryResult<UnknownRow>> {
    this.count += 1;
    const hold = this.hold;
    this.hold = undefined;
    if (hold !== undefined) {
      hold.reached();
      await hold.released;
    }
    return args.result;
  }

  /** Holds the next statement's result until `release`; `reached` resolves once the statement has run in the database. */
  holdNext(): { reached: Promise<void>; release: () => void } {
    let release: () => void = () => undefined;
    let reached: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const reachedP = new Promise<void>((resolve) => (reached = resolve));
    this.hold = { reached, released };
    return { reached: reachedP, release };
  }
}

/** A TCP door to the test database that can be shut: open connections cut, new ones refused until reopened. */
class Door {
  open = true;
  private readonly sockets = new Set<net.Socket>();
  private readonly server: net.Server;
  constructor(private readonly target: URL) {
    this.server = net.createServer((down) => {
      if (!this.open) {
        down.destroy();
        return;
      }
      const up = net.connect(Number(this.target.port || 5432), this.target.hostname);
      for (const [a, b] of [
        [down, up],
        [up, down],
      ] as const) {
        this.sockets.add(a);
        a.pipe(b);
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.sockets.delete(a);
          b.destroy();
        });
      }
    });
  }
  async listen(): Promise<URL> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const url = new URL(this.target);
    url.hostname = '127.0.0.1';
    url.port = String((this.server.address() as net.AddressInfo).port);
    return url;
  }
  async close(): Promise<void> {
    this.open = false;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Waits (on the cache's own state changes, never on time) until `ok` holds. */
async function until(cache: CatalogCache, ok: (s: CatalogCacheState) => boolean): Promise<void> {
  while (!ok(cache.state())) await cache.changed();
}

async function reads(metrics: CatalogMetrics, source: CatalogReadSource): Promise<number> {
  return (await metrics.reads.get()).values.find((v) => v.labels['source'] === source)?.value ?? 0;
}

async function reconnects(metrics: CatalogMetrics): Promise<number> {
  return (await metrics.reconnects.get()).values[0]?.value ?? 0;
}

interface Replica {
  cache: CatalogCache;
  metrics: CatalogMetrics;
  statements: Statements;
  name: string;
}

function replica(pg: Pg, name: string, connectionString: string = pg.url): Replica {
  const statements = new Statements();
  const metrics = createCatalogMetrics(new Registry());
  const db: Kysely<DB> = pg.db.withPlugin(statements);
  const cache = createCatalogCache({
    db,
    connectionString,
    logger: createLogger(name, 'silent'),
    metrics,
    applicationName: name,
    retryMaxMs: 200,
  });
  cache.start();
  return { cache, metrics, statements, name };
}

const NOW = new Date('2026-12-04T00:00:00Z');

function pack(id: bigint, stars: bigint, active = true): ProductDraftInput {
  return {
    id,
    title: 'Pouch',
    active,
    atoms: [{ kind: 'chips', quantity: 100n }],
    prices: [{ method: 'xtr', amount: stars, currency: 'XTR' }],
    texts: [
      { locale: 'en', title: 'Pouch', description: '' },
      { locale: 'ru', title: 'Кошелёк', description: '' },
    ],
    purchaseLimit: { count: 3, period: 'day' },
  };
}

const starsOf = async (cache: CatalogCache, id: bigint) =>
  (await cache.products({ includeInactive: true, ids: [id] }))[0]?.prices.find((p) => p.method === 'xtr')?.amount;

describe('the in-memory catalog across replicas, invalidated by the catalog tables notifications', () => {
  let pg: Pg;
  let door: Door;
  let a: Replica;
  let b: Replica;
  let productId: bigint;
  let other: bigint;

  beforeAll(async () => {
    pg = await freshMigratedPostgres();
    // Written before anyone listens: no notification of these is ever delivered to the replicas.
    productId = (await upsertProduct(pg.db, pack(0n, 50n), NOW)).id;
    other = (await upsertProduct(pg.db, { ...pack(0n, 9n, false), title: 'Old', texts: [] }, NOW)).id;
    door = new Door(new URL(pg.url));
    a = replica(pg, 'catalog-test-a', (await door.listen()).toString());
    b = replica(pg, 'catalog-test-b');
    await until(a.cache, (s) => s.live);
    await until(b.cache, (s) => s.live);
  });
  afterAll(async () => {
    await a.cache.stop();
    await b.cache.stop();
    await door.close();
    await pg.close();
  });

  it('two replicas each read the catalog once, then answer every query from memory with what listProducts answers', async () => {
    for (const r of [a, b]) {
      const before = r.statements.count;
      const queries = [
        { includeInactive: false },
        { includeInactive: true },
        { includeInactive: true, ids: [other] },
        { includeInactive: false, ids: [other, productId, 999n] },
        { includeInactive: true, ids: [] },
      ];
      for (const q of queries) expect(await r.cache.products(q)).toEqual(await listProducts(pg.db, q));
      expect(await r.cache.purchaseLimit(productId)).toEqual({ count: 3, period: 'day' });
      expect(await r.cache.purchaseLimit(999n)).toBeNull();
      expect(await r.cache.titles(productId)).toEqual([
        { locale: 'en', title: 'Pouch' },
        { locale: 'ru', title: 'Кошелёк' },
      ]);
      expect(await r.cache.titles(other)).toEqual([{ locale: 'en', title: 'Old' }]);
      expect(r.statements.count - before).toBe(1);
      expect(await reads(r.metrics, 'database')).toBe(1);
      expect(await reads(r.metrics, 'memory')).toBe(7);
      expect(r.cache.state()).toMatchObject({ live: true, cached: true });
    }
  });

  it('an operator edit (a price change, then a deactivation) reaches both replicas when its notification does', async () => {
    const seen = [a.cache.state().generation, b.cache.state().generation] as const;
    await upsertProduct(pg.db, pack(productId, 75n), NOW);
    await until(a.cache, (s) => s.generation > seen[0]);
    await until(b.cache, (s) => s.generation > seen[1]);
    for (const r of [a, b]) {
      expect(await starsOf(r.cache, productId)).toBe(75n);
      expect(await starsOf(r.cache, productId)).toBe(75n);
    }

    const again = [a.cache.state().generation, b.cache.state().generation] as const;
    await upsertProduct(pg.db, pack(productId, 75n, false), NOW);
    await until(a.cache, (s) => s.generation > again[0]);
    await until(b.cache, (s) => s.generation > again[1]);
    for (const r of [a, b]) {
      expect(await r.cache.products({ includeInactive: false })).toEqual([]);
      expect((await r.cache.products({ includeInactive: true })).map((p) => [p.id, p.active])).toEqual([
        [other, false],
        [productId, false],
      ]);
    }
    const restored = [a.cache.state().generation, b.cache.state().generation] as const;
    await upsertProduct(pg.db, pack(productId, 75n), NOW);
    await until(a.cache, (s) => s.generation > restored[0]);
    await until(b.cache, (s) => s.generation > restored[1]);
  });

  it('a change made by plain SQL to any catalog table invalidates too (no writer has to remember to)', async () => {
    for (const change of [
      sql`update catalog_prices set amount = 77 where product_id = ${productId} and method = 'xtr'`,
      sql`update catalog_product_texts set title = 'Кошель' where product_id = ${productId} and locale = 'ru'`,
    ]) {
      await a.cache.products({ includeInactive: true });
      await b.cache.products({ includeInactive: true });
      const seen = [a.cache.state().generation, b.cache.state().generation] as const;
      await change.execute(pg.db);
      await until(a.cache, (s) => s.generation > seen[0]);
      await until(b.cache, (s) => s.generation > seen[1]);
    }
    for (const r of [a, b]) {
      expect(await starsOf(r.cache, productId)).toBe(77n);
      expect(await r.cache.titles(productId)).toContainEqual({ locale: 'ru', title: 'Кошель' });
    }
  });

  it('while its listener is cut off a replica reads the database (fresh answers), and serves from memory again once it listens', async () => {
    await a.cache.products({ includeInactive: true });
    expect(a.cache.state()).toMatchObject({ live: true, cached: true });
    const reconnected = await reconnects(a.metrics);
    door.open = false;
    const { rows } = await sql<{ killed: boolean }>`
      select pg_terminate_backend(pid) as killed from pg_stat_activity
       where application_name = ${a.name} and datname = current_database()`.execute(pg.db);
    expect(rows).toEqual([{ killed: true }]);
    await until(a.cache, (s) => !s.live);
    expect(a.cache.state().cached).toBe(false);

    const seenB = b.cache.state().generation;
    await sql`update catalog_prices set amount = 55 where product_id = ${productId} and method = 'xtr'`.execute(pg.db);
    const before = a.statements.count;
    const fromDatabase = await reads(a.metrics, 'database');
    expect(await starsOf(a.cache, productId)).toBe(55n);
    expect(await a.cache.purchaseLimit(productId)).toEqual({ count: 3, period: 'day' });
    expect(a.statements.count - before).toBe(2);
    expect((await reads(a.metrics, 'database')) - fromDatabase).toBe(2);
    expect(a.cache.state()).toMatchObject({ live: false, cached: false });
    await until(b.cache, (s) => s.generation > seenB);
    expect(await starsOf(b.cache, productId)).toBe(55n);

    door.open = true;
    await until(a.cache, (s) => s.live);
    expect(await reconnects(a.metrics)).toBeGreaterThan(reconnected);
    const loaded = a.statements.count;
    expect(await starsOf(a.cache, productId)).toBe(55n);
    expect(await starsOf(a.cache, productId)).toBe(55n);
    expect(await a.cache.titles(productId)).toContainEqual({ locale: 'ru', title: 'Кошель' });
    expect(a.statements.count - loaded).toBe(1);
    expect(a.cache.state()).toMatchObject({ live: true, cached: true });
  });

  it('a read that raced a change answers what it read but does not keep it: the next read is fresh', async () => {
    const seen = b.cache.state().generation;
    await sql`update catalog_prices set amount = 60 where product_id = ${productId} and method = 'xtr'`.execute(pg.db);
    await until(b.cache, (s) => s.generation > seen);
    expect(b.cache.state().cached).toBe(false);

    const held = b.statements.holdNext();
    const racing = starsOf(b.cache, productId);
    await held.reached;
    const during = b.cache.state().generation;
    await sql`update catalog_prices set amount = 61 where product_id = ${productId} and method = 'xtr'`.execute(pg.db);
    await until(b.cache, (s) => s.generation > during);
    held.release();
    expect(await racing).toBe(60n);
    expect(b.cache.state().cached).toBe(false);
    expect(await starsOf(b.cache, productId)).toBe(61n);
    expect(b.cache.state().cached).toBe(true);
  });

  it('a stopped cache reads the database and stops twice without complaint', async () => {
    const r = replica(pg, 'catalog-test-stopped');
    await until(r.cache, (s) => s.live);
    await r.cache.stop();
    await r.cache.stop();
    expect(r.cache.state()).toMatchObject({ live: false, cached: false });
    expect(await starsOf(r.cache, productId)).toBe(61n);
    expect(await reads(r.metrics, 'memory')).toBe(0);
  });
});

describe('the backend reads the wallet catalog from its in-memory catalog', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  it('serves wallet.catalog from memory once loaded and shows an operator price edit once notified', async () => {
    const cache = h.app.catalog();
    if (cache === undefined) throw new Error('the backend has no catalog cache');
    await until(cache, (s) => s.live);
    const admin = h.client(backendApi.CatalogAdminService);
    const wallet = h.client(backendApi.WalletService);
    const query = encodeTable((b) => fb.WalletCatalogQuery.createWalletCatalogQuery(b, 0));
    const account = await newAccount(h.database.db);
    const stars = async () =>
      decodeTable(
        (await wallet.getCatalog({ body: query }, as(account, 'telegram'))).body,
        (bb) => fb.WalletCatalog.getRootAsWalletCatalog(bb),
        (t) => Array.from({ length: t.productsLength() }, (_, i) => t.products(i)?.prices(0)?.amount()),
      );
    const memory = async () =>
      (await h.app.metricsRegistry().getSingleMetricAsString('backend_catalog_reads_total')).match(/source="memory"} (\d+)/)?.[1];

    const created = cache.state().generation;
    const id = await createProduct(admin, { title: 'Pouch', atoms: [['chips', 10n]], prices: [['xtr', 50n]] });
    await until(cache, (s) => s.generation > created);
    expect(await stars()).toEqual([50n]);
    const before = Number((await memory()) ?? 0);
    expect(await stars()).toEqual([50n]);
    expect(Number(await memory())).toBe(before + 1);

    const edited = cache.state().generation;
    await createProduct(admin, { id, title: 'Pouch', atoms: [['chips', 10n]], prices: [['xtr', 70n]] });
    await until(cache, (s) => s.generation > edited);
    expect(await stars()).toEqual([70n]);
  });
});
