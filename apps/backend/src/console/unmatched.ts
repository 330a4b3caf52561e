import type { Kysely } from 'kysely';
import { encodeTable, fb } from '@wordgame/contracts';
import type { DB } from '../db/index.js';
import type { StarRefundStatus } from '../payments/index.js';
import { DomainError } from '../rpc/index.js';
import { unmatchedRows, unmatchedStatusCounts } from './console.store.js';

const PAGE_DEFAULT = 50;
const PAGE_MAX = 200;
const STATUSES: readonly StarRefundStatus[] = ['pending', 'refunded', 'failed'];

/** What the console asks for: a refund status (or all), a keyset position and a page size. */
export interface UnmatchedQuery {
  status: string;
  beforeId: bigint;
  limit: number;
}

/**
 * One page of stars payments that credited nothing, newest first (keyset on id), with the number
 * of rows in each refund status over the whole table, encoded as backend.fb.UnmatchedList.
 * An unknown status is invalid_filter.
 */
export async function unmatchedPage(db: Kysely<DB>, q: UnmatchedQuery): Promise<Uint8Array> {
  if (q.status !== '' && !STATUSES.includes(q.status as StarRefundStatus))
    throw new DomainError('invalid_filter', 'status must be pending, refunded or failed');
  const limit = q.limit <= 0 ? PAGE_DEFAULT : Math.min(q.limit, PAGE_MAX);
  const status = q.status === '' ? null : (q.status as StarRefundStatus);
  const [rows, counts] = await Promise.all([unmatchedRows(db, { status, beforeId: q.beforeId, limit }), unmatchedStatusCounts(db)]);
  const count = (status: StarRefundStatus) => BigInt(counts.find((c) => c.refund_status === status)?.n ?? 0);
  const unix = (d: Date | null) => (d === null ? 0n : BigInt(Math.floor(d.getTime() / 1000)));
  return encodeTable((b) => {
    const items = rows.map((r) =>
      fb.UnmatchedPayment.createUnmatchedPayment(
        b,
        r.id,
        unix(r.created_at),
        b.createString(r.provider),
        b.createString(r.platform_charge_id),
        b.createString(r.order_id),
        r.amount,
        r.platform_user_id,
        b.createString(r.reason),
        b.createString(r.refund_status),
        r.refund_attempts,
        b.createString(r.refund_error ?? ''),
        unix(r.refunded_at),
      ),
    );
    return fb.UnmatchedList.createUnmatchedList(
      b,
      fb.UnmatchedList.createPaymentsVector(b, items),
      count('pending'),
      count('refunded'),
      count('failed'),
    );
  });
}
