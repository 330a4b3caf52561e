import type { Kysely } from 'kysely';
import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { languageOf } from '@wordgame/i18n';
import type { DB } from '../db/index.js';
import { callerFrom } from '../rpc/index.js';
import { historyPage, type HistoryPage } from './feed.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/**
 * backend.v1.WalletService GetHistory (wallet.history): the caller's own history only (the account
 * comes from the caller headers, never the body), a page of 1-100 entries (0 = 20).
 */
export function historyMethods(db: Kysely<DB>): Pick<ServiceImpl<typeof backendApi.WalletService>, 'getHistory'> {
  return {
    async getHistory(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      const q = decodeTable(
        req.body,
        (bb) => fb.WalletHistoryQuery.getRootAsWalletHistoryQuery(bb),
        (t) => ({ cursor: t.cursor() ?? '', limit: t.limit(), language: languageOf(t.locale()) ?? 'en' }),
      );
      const limit = q.limit <= 0 ? DEFAULT_LIMIT : Math.min(q.limit, MAX_LIMIT);
      return { body: encodeHistory(await historyPage(db, caller.accountId, q.cursor, limit, q.language)) };
    },
  };
}

function encodeHistory(page: HistoryPage): Uint8Array {
  return encodeTable((b) => {
    const entries = page.entries.map((e) => {
      const s = (v: string) => b.createString(v);
      const [entryId, kind, title, rail, state, currency, segment, orderId, failure] = [
        e.entryId,
        e.kind,
        e.title,
        e.rail,
        e.state,
        e.currency,
        e.segment,
        e.orderId,
        e.failureReason,
      ].map(s);
      fb.WalletHistoryEntry.startWalletHistoryEntry(b);
      fb.WalletHistoryEntry.addEntryId(b, entryId ?? 0);
      fb.WalletHistoryEntry.addKind(b, kind ?? 0);
      fb.WalletHistoryEntry.addAtUnixMs(b, e.atMs);
      fb.WalletHistoryEntry.addProductId(b, e.productId);
      fb.WalletHistoryEntry.addTitle(b, title ?? 0);
      fb.WalletHistoryEntry.addRail(b, rail ?? 0);
      fb.WalletHistoryEntry.addState(b, state ?? 0);
      fb.WalletHistoryEntry.addAmount(b, e.amount);
      fb.WalletHistoryEntry.addCurrency(b, currency ?? 0);
      fb.WalletHistoryEntry.addChips(b, e.chips);
      fb.WalletHistoryEntry.addHints(b, e.hints);
      fb.WalletHistoryEntry.addNoAdsDays(b, e.noAdsDays);
      fb.WalletHistoryEntry.addNoAdsForever(b, e.noAdsForever);
      fb.WalletHistoryEntry.addSegment(b, segment ?? 0);
      fb.WalletHistoryEntry.addOrderId(b, orderId ?? 0);
      fb.WalletHistoryEntry.addRefundedAtUnixMs(b, e.refundedAtMs);
      fb.WalletHistoryEntry.addBalanceAfter(b, e.balanceAfter);
      fb.WalletHistoryEntry.addHintsAfter(b, e.hintsAfter);
      fb.WalletHistoryEntry.addReceipt(b, e.receipt);
      fb.WalletHistoryEntry.addRefundReceipt(b, e.refundReceipt);
      fb.WalletHistoryEntry.addFailureReason(b, failure ?? 0);
      return fb.WalletHistoryEntry.endWalletHistoryEntry(b);
    });
    const vector = fb.WalletHistory.createEntriesVector(b, entries);
    const next = b.createString(page.nextCursor);
    return fb.WalletHistory.createWalletHistory(b, vector, next);
  });
}
