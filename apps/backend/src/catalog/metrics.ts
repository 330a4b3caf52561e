import { Counter, type Registry } from 'prom-client';

/** Where a catalog snapshot read was answered from. */
export type CatalogReadSource = 'memory' | 'database';

/** The in-memory catalog's series (catalog/cache.ts). */
export interface CatalogMetrics {
  reads: Counter<'source'>;
  invalidations: Counter<string>;
  reconnects: Counter<string>;
}

/**
 * Registers the in-memory catalog's series: `backend_catalog_reads_total{source}` (a hot-path
 * read answered from memory or from the database), `backend_catalog_invalidations_total` (change
 * notifications and listener state changes that dropped the snapshot) and
 * `backend_catalog_listener_reconnects_total`. A `database` share that stays high while nothing is
 * edited says the listener is down and every payment reads the catalog again.
 */
export function createCatalogMetrics(registry: Registry): CatalogMetrics {
  return {
    reads: new Counter({
      name: 'backend_catalog_reads_total',
      help: 'Catalog reads of the payment and wallet paths by source: memory (the snapshot) or database (no snapshot yet, or the change listener is not connected).',
      labelNames: ['source'],
      registers: [registry],
    }),
    invalidations: new Counter({
      name: 'backend_catalog_invalidations_total',
      help: 'Times the in-memory catalog was dropped: a catalog_changed notification, or the change listener connecting or losing its connection.',
      registers: [registry],
    }),
    reconnects: new Counter({
      name: 'backend_catalog_listener_reconnects_total',
      help: 'Connection attempts of the catalog change listener after its first (a lost or failed connection); reads go to the database until it listens again.',
      registers: [registry],
    }),
  };
}
