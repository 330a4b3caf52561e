import type { Kysely } from 'kysely';
import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, fb } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/schema.js';
import { encodeProductList, encodeProductRecord, readDraft } from './codec.js';
import { listProducts, upsertProduct } from './repository.js';
import { validateDraft } from './validate.js';

/** backend.v1.CatalogAdminService: the operator's catalog editor (the gateway guards access). */
export function catalogAdminService(db: Kysely<DB>, logger: Logger): ServiceImpl<typeof backendApi.CatalogAdminService> {
  return {
    async listProducts(req) {
      const includeInactive = decodeTable(req.body, (bb) => fb.ProductListQuery.getRootAsProductListQuery(bb), (t) => t.includeInactive());
      return { body: encodeProductList(await listProducts(db, { includeInactive })) };
    },
    async upsertProduct(req) {
      const draft = validateDraft(decodeTable(req.body, (bb) => fb.ProductDraft.getRootAsProductDraft(bb), readDraft));
      const product = await upsertProduct(db, draft);
      logger.info({ productId: String(product.id), created: draft.id === 0n, active: product.active }, 'catalog product saved');
      return { body: encodeProductRecord(product) };
    },
  };
}
