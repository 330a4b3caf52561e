import { invalidRequest } from './errors.js';
import type { EmulatorState, Payment, Refund, Shop } from './state.js';

/** YooKassa's list answer: `type: "list"`, a page of `items`, `next_cursor` while more remain. */
export interface ListPage<T> {
  type: 'list';
  items: T[];
  next_cursor?: string;
}

const DATE_FILTERS = ['created_at.gte', 'created_at.gt', 'created_at.lte', 'created_at.lt'] as const;
const CAPTURED_FILTERS = ['captured_at.gte', 'captured_at.gt', 'captured_at.lte', 'captured_at.lt'] as const;
type TimeFilter = (typeof DATE_FILTERS)[number] | (typeof CAPTURED_FILTERS)[number];
/** A payment method type as the API spells them ("bank_card", "yoo_money", "sbp", …). */
const PAYMENT_METHOD = /^[a-z][a-z0-9_]{0,63}$/;
const PAYMENT_STATUSES = new Set(['pending', 'waiting_for_capture', 'succeeded', 'canceled']);
const REFUND_STATUSES = new Set(['pending', 'succeeded', 'canceled']);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;

/**
 * GET /v3/payments: the shop's payments, newest first, filtered by `created_at.gte|gt|lte|lt` and
 * `captured_at.gte|gt|lte|lt` (ISO 8601 UTC; a captured_at filter leaves out payments not captured),
 * `status` and `payment_method` (the paid method's type), `limit` 1..100 (default 10); `cursor`
 * continues from the page whose `next_cursor` it is. An unknown or malformed parameter is 400
 * naming it.
 */
export function listPayments(state: EmulatorState, shop: Shop, query: URLSearchParams): ListPage<Payment> {
  check(query, ['status', 'limit', 'cursor', 'payment_method', ...DATE_FILTERS, ...CAPTURED_FILTERS], PAYMENT_STATUSES);
  const method = query.get('payment_method');
  if (method !== null && !PAYMENT_METHOD.test(method)) throw invalidRequest(`Unknown payment method ${method}`, 'payment_method');
  const captured = CAPTURED_FILTERS.map((key) => [key, query.get(key)] as const).filter(([, value]) => value !== null);
  const all = [...state.payments.values()]
    .filter((r) => r.shopId === shop.shopId)
    .map((r) => r.object)
    .filter((p) => method === null || p.payment_method?.type === method)
    .filter((p) => captured.every(([key, value]) => p.captured_at !== undefined && value !== null && within(p.captured_at, key, value)));
  return page(all, query);
}

/**
 * GET /v3/refunds: the shop's refunds, newest first, with the same filters as payments plus
 * `payment_id`.
 */
export function listRefunds(state: EmulatorState, shop: Shop, query: URLSearchParams): ListPage<Refund> {
  check(query, ['status', 'limit', 'cursor', 'payment_id', ...DATE_FILTERS], REFUND_STATUSES);
  const paymentId = query.get('payment_id');
  const all = [...state.refunds.values()]
    .filter((r) => r.shopId === shop.shopId && (paymentId === null || r.object.payment_id === paymentId))
    .map((r) => r.object);
  return page(all, query);
}

function check(query: URLSearchParams, allowed: readonly string[], statuses: ReadonlySet<string>): void {
  for (const key of query.keys()) {
    if (!allowed.includes(key)) throw invalidRequest(`Unknown parameter ${key}`, key);
  }
  for (const key of [...DATE_FILTERS, ...CAPTURED_FILTERS]) {
    const value = query.get(key);
    if (value !== null && (!ISO.test(value) || Number.isNaN(Date.parse(value)))) {
      throw invalidRequest(`${key} must be an ISO 8601 UTC time, e.g. 2024-05-01T10:00:00.000Z`, key);
    }
  }
  const status = query.get('status');
  if (status !== null && !statuses.has(status)) throw invalidRequest(`Unknown status ${status}`, 'status');
  const limit = query.get('limit');
  if (limit !== null && (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT)) {
    throw invalidRequest(`limit must be a whole number from 1 to ${MAX_LIMIT}`, 'limit');
  }
  const cursor = query.get('cursor');
  if (cursor !== null && decodeCursor(cursor) === null) throw invalidRequest('Invalid cursor', 'cursor');
}

/** Order key: newest first, ties by id descending, so a cursor is a stable position. */
function before(a: { created_at: string; id: string }, b: { created_at: string; id: string }): boolean {
  return a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id);
}

function page<T extends { created_at: string; id: string; status: string }>(all: T[], query: URLSearchParams): ListPage<T> {
  const bounds = DATE_FILTERS.map((key) => [key, query.get(key)] as const);
  const status = query.get('status');
  const cursor = query.get('cursor');
  const after = cursor === null ? null : decodeCursor(cursor);
  const limit = Number(query.get('limit') ?? DEFAULT_LIMIT);
  const matching = all
    .filter((item) => status === null || item.status === status)
    .filter((item) => bounds.every(([key, value]) => value === null || within(item.created_at, key, value)))
    .filter((item) => after === null || before(after, item))
    .sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  const items = matching.slice(0, limit).map((item) => structuredClone(item));
  const last = items[items.length - 1];
  return matching.length > limit && last ? { type: 'list', items, next_cursor: encodeCursor(last) } : { type: 'list', items };
}

function within(time: string, key: TimeFilter, bound: string): boolean {
  const at = Date.parse(time);
  const limit = Date.parse(bound);
  switch (key.slice(key.indexOf('.') + 1)) {
    case 'gte':
      return at >= limit;
    case 'gt':
      return at > limit;
    case 'lte':
      return at <= limit;
    default:
      return at < limit;
  }
}

function encodeCursor(item: { created_at: string; id: string }): string {
  return Buffer.from(JSON.stringify([item.created_at, item.id])).toString('base64url');
}

function decodeCursor(cursor: string): { created_at: string; id: string } | null {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [createdAt, id] = value as unknown[];
    return typeof createdAt === 'string' && typeof id === 'string' ? { created_at: createdAt, id } : null;
  } catch {
    return null;
  }
}
