import type { Kysely } from 'kysely';
import pg from 'pg';
import type { Language } from '@wordgame/i18n';
import { settledWithin } from '@wordgame/lifecycle';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import { CATALOG_CHANGED_CHANNEL, listenForCatalogChanges, listProducts, pingListener } from './catalog.store.js';
import type { CatalogMetrics, CatalogReadSource } from './metrics.js';
import type { Product, PurchaseLimit } from './product.js';

/** A product's title in one of its languages (what the bot's credited notice words). */
export interface ProductTitle {
  locale: Language;
  title: string;
}

/** Which products a read asks for: listProducts's options. */
export interface ProductQuery {
  includeInactive: boolean;
  ids?: readonly bigint[];
}

/**
 * The catalog as the payment and wallet paths read it: the same answers as listProducts (and a
 * product's limit and titles taken from it), from memory or from the database. The operator
 * console does not read through here: an operator sees what is stored.
 */
export interface CatalogReader {
  /** Products as `listProducts(db, query)` answers them: newest first, inactive ones only on request. */
  products(query: ProductQuery): Promise<Product[]>;
  /** The product's purchase limit (null: none, or no such product): what a credit is checked against. */
  purchaseLimit(productId: bigint): Promise<PurchaseLimit | null>;
  /** The product's title in each language it has words in (none: no such product). */
  titles(productId: bigint): Promise<ProductTitle[]>;
}

/** Where a catalog cache stands: `live` while its listener LISTENs; `generation` grows on every invalidation. */
export interface CatalogCacheState {
  live: boolean;
  generation: number;
  /** Whether a snapshot is held (the next read is answered from memory). */
  cached: boolean;
}

/** A CatalogReader holding the whole catalog in memory while its change listener is connected. */
export interface CatalogCache extends CatalogReader {
  /** Connects the listener in the background (reconnecting with a bounded backoff until stop); reads go to the database until it listens. */
  start(): void;
  /** Closes the listener (at most `closeMs`) and stops reconnecting; reads go to the database from then on. Never throws. */
  stop(): Promise<void>;
  state(): CatalogCacheState;
  /** Resolves at the next state change (an invalidation, the listener going live or down): tests and probes wait on it, never on time. */
  changed(): Promise<void>;
}

/** What createCatalogCache connects with and reports to. */
export interface CatalogCacheOptions {
  /** The pool reads go through. */
  db: Kysely<DB>;
  /** The database the listener's own connection opens (the pool's database). */
  connectionString: string;
  logger: Logger;
  metrics?: CatalogMetrics;
  /** The listener session's application_name in pg_stat_activity. */
  applicationName?: string;
  /** How often the idle listener proves its session alive (a lost one is otherwise noticed only by TCP). */
  heartbeatMs?: number;
  /** The longest wait between reconnect attempts. */
  retryMaxMs?: number;
  /** How long one connect or listener statement may take. */
  timeoutMs?: number;
  /** How long stop() waits for the listener's connection to close. */
  closeMs?: number;
}

/** The listener's application_name unless the options name another. */
export const CATALOG_LISTENER_APPLICATION_NAME = 'backend-catalog-listener';

const RETRY_FIRST_MS = 100;

function select(products: readonly Product[], query: ProductQuery): Product[] {
  const ids = query.ids === undefined ? undefined : new Set(query.ids);
  return products.filter((p) => (query.includeInactive || p.active) && (ids === undefined || ids.has(p.id)));
}

function titlesOf(product: Product | undefined): ProductTitle[] {
  return product === undefined ? [] : product.texts.map((t) => ({ locale: t.locale, title: t.title }));
}

function readerOver(read: (query: ProductQuery) => Promise<Product[]>): CatalogReader {
  const one = async (productId: bigint) => (await read({ includeInactive: true, ids: [productId] }))[0];
  return {
    products: read,
    purchaseLimit: async (productId) => (await one(productId))?.purchaseLimit ?? null,
    titles: async (productId) => titlesOf(await one(productId)),
  };
}

/**
 * A CatalogReader that reads the database on every call (one listProducts statement): what a
 * process without a change listener (the reconciliation CLI, tests building payment deps) uses.
 */
export function readThroughCatalog(db: Kysely<DB>): CatalogReader {
  return readerOver((query) => listProducts(db, query));
}

/**
 * The catalog served from memory: one snapshot of every product (active or not: it is small), read
 * by the one listProducts statement and dropped whenever a catalog table changes. A dedicated
 * pg.Client LISTENs on `catalog_changed` (the catalog tables' triggers notify at commit, to every
 * replica), so an edit by anyone is seen once its notification arrives. The snapshot is used only
 * while that listener is connected and listening; otherwise every read goes to the database. A
 * read stores what it loaded only if no invalidation came while it ran, so a read racing a change
 * never keeps the catalog from before it. A lost listener is logged and reconnected with a bounded
 * backoff; nothing here throws out of the background or leaves a promise unhandled.
 */
export function createCatalogCache(options: CatalogCacheOptions): CatalogCache {
  const { db, logger, metrics } = options;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const retryMaxMs = options.retryMaxMs ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const closeMs = options.closeMs ?? 2_000;
  const applicationName = options.applicationName ?? CATALOG_LISTENER_APPLICATION_NAME;
  const direct = readThroughCatalog(db);

  let live = false;
  let generation = 0;
  let snapshot: readonly Product[] | undefined;
  let loading: { generation: number; rows: Promise<readonly Product[]> } | undefined;
  let waiters: Array<() => void> = [];
  let stopped = false;
  let running: Promise<void> | undefined;
  let client: pg.Client | undefined;
  let wake: (() => void) | undefined;

  const counted = (source: CatalogReadSource) => metrics?.reads.inc({ source });
  const announce = () => {
    const woken = waiters;
    waiters = [];
    for (const w of woken) w();
  };
  const invalidate = () => {
    generation += 1;
    snapshot = undefined;
    loading = undefined;
    metrics?.invalidations.inc();
    announce();
  };

  /** The whole catalog from memory, loading it when absent; undefined while not live (the caller reads the database). */
  const whole = (): Promise<readonly Product[]> | undefined => {
    if (!live) return undefined;
    if (snapshot !== undefined) {
      counted('memory');
      return Promise.resolve(snapshot);
    }
    counted('database');
    if (loading?.generation === generation) return loading.rows;
    const at = generation;
    const rows = listProducts(db, { includeInactive: true }).then((loaded) => {
      if (generation === at && live) snapshot = loaded;
      return loaded;
    });
    loading = { generation: at, rows };
    const clear = () => {
      if (loading?.rows === rows) loading = undefined;
    };
    void rows.then(clear, clear);
    return rows;
  };

  const read = async (query: ProductQuery): Promise<Product[]> => {
    if (query.ids?.length === 0) return [];
    const all = whole();
    if (all === undefined) {
      counted('database');
      return direct.products(query);
    }
    return select(await all, query);
  };

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  /** One listener connection, from connect to its loss (or stop); answers why it ended and whether it listened. */
  const session = async (): Promise<{ err: unknown; listened: boolean }> => {
    const c = new pg.Client({
      connectionString: options.connectionString,
      application_name: applicationName,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      keepAlive: true,
    });
    client = c;
    let listened = false;
    let heartbeat: NodeJS.Timeout | undefined;
    let fail: (err: unknown) => void = () => undefined;
    const lost = new Promise<unknown>((resolve) => (fail = resolve));
    c.on('error', fail);
    c.on('end', () => fail(new Error('the listener connection ended')));
    c.on('notification', (message) => {
      if (message.channel === CATALOG_CHANGED_CHANNEL) invalidate();
    });
    try {
      await c.connect();
      await listenForCatalogChanges(c);
      if (stopped) return { err: undefined, listened };
      invalidate();
      live = true;
      listened = true;
      announce();
      heartbeat = setInterval(() => void pingListener(c).catch(fail), heartbeatMs);
      heartbeat.unref();
      logger.info({ applicationName }, 'catalog change listener listening: catalog served from memory');
      return { err: await lost, listened };
    } catch (err: unknown) {
      return { err, listened };
    } finally {
      clearInterval(heartbeat);
      live = false;
      invalidate();
      client = undefined;
      await settledWithin(c.end(), closeMs);
    }
  };

  const run = async (): Promise<void> => {
    for (let attempt = 0; !stopped; attempt += 1) {
      if (attempt > 0) {
        metrics?.reconnects.inc();
        await pause(Math.min(retryMaxMs, RETRY_FIRST_MS * 2 ** (attempt - 1)));
        if (stopped) return;
      }
      const { err, listened } = await session();
      if (stopped) return;
      if (listened) attempt = 0;
      logger.warn({ err, attempt: attempt + 1 }, 'catalog change listener down: catalog reads go to the database until it listens again');
    }
  };

  return {
    ...readerOver(read),
    start() {
      if (running !== undefined || stopped) return;
      running = run().catch((err: unknown) => logger.error({ err }, 'catalog change listener stopped on an unexpected error'));
    },
    async stop() {
      stopped = true;
      wake?.();
      const c = client;
      if (c !== undefined) await settledWithin(c.end(), closeMs);
      if (running !== undefined && !(await settledWithin(running, closeMs)))
        logger.warn({ closeMs }, 'catalog change listener did not close in time');
      live = false;
      invalidate();
    },
    state: () => ({ live, generation, cached: snapshot !== undefined }),
    changed: () => new Promise<void>((resolve) => waiters.push(resolve)),
  };
}
