import type { Kysely } from 'kysely';
import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, fb } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import { gate } from '../gate/index.js';
import { callerFrom, DomainError } from '../rpc/index.js';
import { buy } from './buy.js';
import { languageOf } from '@wordgame/i18n';
import { catalogFor } from './catalog-view.js';
import { encodeCatalog, encodePurchase, encodeWalletView } from './codec.js';
import { readWallet } from './wallet.store.js';
import { projectWallet } from './view.js';
import type { Clock } from '../support/index.js';
import type { OfferRefusal } from '../metrics/index.js';
import type { CatalogReader } from '../catalog/index.js';

/**
 * backend.v1.WalletService: wallet.catalog, wallet.get, wallet.buy for the caller in the headers
 * (wallet.history: history/). `offerRefused` counts a wallet.buy refused for an offer rule; the
 * catalog page reads products from `catalog` (the backend's in-memory catalog).
 */
export function walletService(
  db: Kysely<DB>,
  catalog: CatalogReader,
  logger: Logger,
  clock: Clock,
  offerRefused: (reason: OfferRefusal) => void = () => undefined,
): Omit<ServiceImpl<typeof backendApi.WalletService>, 'getHistory'> {
  return {
    async getCatalog(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      const language = decodeTable(
        req.body,
        (bb) => fb.WalletCatalogQuery.getRootAsWalletCatalogQuery(bb),
        (t) => languageOf(t.locale()) ?? 'en',
      );
      return { body: encodeCatalog(await catalogFor(db, catalog, caller, clock(), language)) };
    },
    async getWallet(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      decodeTable(
        req.body,
        (bb) => fb.WalletQuery.getRootAsWalletQuery(bb),
        () => undefined,
      );
      const { segments, benefits } = await readWallet(db, caller.accountId);
      if (segments.size === 0) throw new DomainError('caller_required', 'the caller account does not exist');
      const decision = gate({ ...caller.platform, emailConfirmed: false });
      return { body: encodeWalletView(projectWallet(decision, segments, benefits)) };
    },
    async buy(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      const order = decodeTable(
        req.body,
        (bb) => fb.WalletBuy.getRootAsWalletBuy(bb),
        (t) => ({
          productId: t.productId(),
          key: t.idempotencyKey(),
        }),
      );
      const result = await buy(db, caller, order.productId, order.key, clock()).catch((err: unknown) => {
        if (err instanceof DomainError && (err.code === 'offer_not_available' || err.code === 'purchase_limit_reached'))
          offerRefused(err.code);
        throw err;
      });
      if (!result.replayed) {
        logger.info(
          {
            accountId: String(caller.accountId),
            productId: String(order.productId),
            price: String(result.price),
            draws: result.draws.length,
          },
          'chips spent',
        );
      }
      return { body: encodePurchase(result) };
    },
  };
}
