import { encodeTable, fb } from '@wordgame/contracts';
import { z } from 'zod';
import type { BackendClients } from '../../backend/index.js';
import type { Operation } from '../operation.js';
import { idParam, idempotencyKey, jsonBody, parseInput } from '../validation.js';
import { readCatalog, readHistory, readPurchase, readWallet } from './codec.js';
import { requestLanguage } from '../language.js';
import { catalogWire, historyWire, purchaseWire, walletWire } from './wire.js';

const buyBody = z.object({ product_id: idParam }).strict();
const historyQuery = z
  .object({
    cursor: z
      .string()
      .regex(/^[0-9]{1,19}\.[01]\.[0-9a-f-]{1,36}$/, 'must be the next_cursor of an earlier page')
      .optional(),
    limit: z
      .string()
      .regex(/^([1-9][0-9]?|100)$/, 'must be an integer from 1 to 100')
      .transform(Number)
      .optional(),
  })
  .strict();

/** The wallet's own route: `wallet.get` (the hottest player read, also served by the edge's direct route) and `wallet.buy`. */
export const WALLET_PATH = '/api/v1/user/wallet';

/**
 * The wallet operations of the spec: `wallet.catalog`, `wallet.get` (view-only, any session) and
 * `wallet.buy` (a trusted session only: an untrusted one is refused here with 403
 * `untrusted_session` before the backend, which refuses it as well).
 */
export function walletOperations(backend: BackendClients): Operation[] {
  return [
    {
      name: 'wallet.catalog',
      method: 'get',
      path: '/api/v1/user/wallet/catalog',
      auth: 'session',
      doc: {
        tag: 'wallet',
        summary: "The catalog offered in the caller's context",
        description:
          'Titles and descriptions are in the language `Accept-Language` names first among those the catalogue has (en, ru); English otherwise, and for a product without words in that language. A time-limited offer is listed only inside its window, with `available_until_unix`; `server_now_unix` is the server clock, so the time left does not depend on the client clock.',
        success: { status: 200, description: 'The catalog.', body: catalogWire },
        errors: [],
      },
      async handle({ req, call }) {
        const locale = requestLanguage(req);
        const body = encodeTable((b) => fb.WalletCatalogQuery.createWalletCatalogQuery(b, b.createString(locale)));
        return { status: 200, body: readCatalog((await backend.wallet.getCatalog({ body }, call)).body) };
      },
    },
    {
      name: 'wallet.get',
      method: 'get',
      path: WALLET_PATH,
      auth: 'session',
      doc: {
        tag: 'wallet',
        summary: "The caller's wallet",
        success: { status: 200, description: 'The wallet.', body: walletWire },
        errors: [],
      },
      async handle({ call }) {
        const body = encodeTable((b) => fb.WalletQuery.createWalletQuery(b));
        return { status: 200, body: readWallet((await backend.wallet.getWallet({ body }, call)).body) };
      },
    },
    {
      name: 'wallet.history',
      method: 'get',
      path: '/api/v1/user/wallet/history',
      auth: 'session',
      doc: {
        tag: 'wallet',
        summary: "The caller's orders and ledger operations, newest first",
        description:
          "Every order (any state; `refunded` once its refund is recorded) and every ledger operation that is not an order's credit (grants, chip spends, refunds with the balance they left: below zero is a debt), a page at a time (`limit` 1-100, default 20). Pass `next_cursor` as `cursor` for the older entries; null means none are left. Only the caller's own entries. Titles in the language `Accept-Language` names first among en and ru (else English).",
        query: historyQuery,
        success: { status: 200, description: 'A page of history.', body: historyWire },
        errors: [],
      },
      async handle({ req, call }) {
        const query = parseInput(historyQuery, req.query);
        const locale = requestLanguage(req);
        const body = encodeTable((b) =>
          fb.WalletHistoryQuery.createWalletHistoryQuery(b, b.createString(query.cursor ?? ''), query.limit ?? 0, b.createString(locale)),
        );
        return { status: 200, body: readHistory((await backend.wallet.getHistory({ body }, call)).body) };
      },
    },
    {
      name: 'wallet.buy',
      method: 'post',
      path: WALLET_PATH,
      auth: 'trusted_session',
      doc: {
        tag: 'wallet',
        summary: 'Buy a product with chips',
        description: 'A repeated `Idempotency-Key` answers the stored first result (`replayed: true`).',
        body: buyBody,
        examples: { buy: { product_id: '12' } },
        idempotencyKey: true,
        success: { status: 200, description: 'The purchase and the wallet after it.', body: purchaseWire },
        errors: [
          'invalid_product_id',
          'invalid_idempotency_key',
          'unknown_product',
          'insufficient_chips',
          'not_sold_for_chips',
          'offer_not_available',
          'purchase_limit_reached',
          'purchase_forbidden',
          'account_suspended',
          'idempotency_key_reused',
        ],
      },
      async handle({ req, call }) {
        const key = idempotencyKey(req);
        const input = parseInput(buyBody, jsonBody(req), 'invalid_product_id');
        const body = encodeTable((b) => fb.WalletBuy.createWalletBuy(b, input.product_id, key === undefined ? 0 : b.createString(key)));
        return { status: 200, body: readPurchase((await backend.wallet.buy({ body }, call)).body) };
      },
    },
  ];
}
