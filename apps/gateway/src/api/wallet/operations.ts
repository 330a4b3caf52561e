import { encodeTable, fb } from '@wordgame/contracts';
import { z } from 'zod';
import type { BackendClients } from '../../backend/client.js';
import type { Operation } from '../operation.js';
import { idParam, idempotencyKey, jsonBody, parseInput } from '../validation.js';
import { readCatalog, readPurchase, readWallet } from './codec.js';

const buyBody = z.object({ product_id: idParam }).strict();

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
      async handle({ call }) {
        const body = encodeTable((b) => fb.WalletCatalogQuery.createWalletCatalogQuery(b));
        return { status: 200, body: readCatalog((await backend.wallet.getCatalog({ body }, call)).body) };
      },
    },
    {
      name: 'wallet.get',
      method: 'get',
      path: '/api/v1/user/wallet',
      auth: 'session',
      async handle({ call }) {
        const body = encodeTable((b) => fb.WalletQuery.createWalletQuery(b));
        return { status: 200, body: readWallet((await backend.wallet.getWallet({ body }, call)).body) };
      },
    },
    {
      name: 'wallet.buy',
      method: 'post',
      path: '/api/v1/user/wallet',
      auth: 'trusted_session',
      async handle({ req, call }) {
        const key = idempotencyKey(req);
        const input = parseInput(buyBody, jsonBody(req), 'invalid_product_id');
        const body = encodeTable((b) => fb.WalletBuy.createWalletBuy(b, input.product_id, key === undefined ? 0 : b.createString(key)));
        return { status: 200, body: readPurchase((await backend.wallet.buy({ body }, call)).body) };
      },
    },
  ];
}
