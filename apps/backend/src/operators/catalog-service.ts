import type { Kysely } from 'kysely';
import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, fb } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import { operatorUpsertProduct } from './actions.js';
import { requireRole } from './sessions.js';
import { encodeProductList, encodeProductRecord, readDraft, listProducts } from '../catalog/index.js';
import type { Clock } from '../support/index.js';

/**
 * backend.v1.CatalogAdminService: the operator API's catalog editor. Like the console, every call
 * names its operator (x-operator-session) and needs the catalog_editor role here, whatever the
 * gateway checked; every change is audited. A card price must be in one of `cardCurrencies`.
 */
export function catalogAdminService(
  db: Kysely<DB>,
  logger: Logger,
  clock: Clock,
  cardCurrencies: readonly string[],
): ServiceImpl<typeof backendApi.CatalogAdminService> {
  return {
    async listProducts(req, ctx) {
      await requireRole(db, ctx.requestHeader, 'catalog_editor', 'catalog_view', clock());
      const includeInactive = decodeTable(
        req.body,
        (bb) => fb.ProductListQuery.getRootAsProductListQuery(bb),
        (t) => t.includeInactive(),
      );
      return { body: encodeProductList(await listProducts(db, { includeInactive })) };
    },
    async upsertProduct(req, ctx) {
      const raw = decodeTable(req.body, (bb) => fb.ProductDraft.getRootAsProductDraft(bb), readDraft);
      const product = await operatorUpsertProduct(db, ctx.requestHeader, raw, clock(), cardCurrencies);
      logger.info({ productId: String(product.id), created: raw.id === 0n, active: product.active }, 'catalog product saved');
      return { body: encodeProductRecord(product) };
    },
  };
}
