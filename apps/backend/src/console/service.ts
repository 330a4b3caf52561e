import type { ServiceImpl } from '@connectrpc/connect';
import type { Kysely } from 'kysely';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { encodeProductList, encodeProductRecord, readDraft, listProducts } from '../catalog/index.js';
import type { DB } from '../db/index.js';
import { clientAddressOf, type SignInLimit } from '../limits/index.js';
import type { ChatGate } from '../botcommands/index.js';
import { findAccounts, moderate } from '../moderation/index.js';
import { cardPriceCurrencies } from '../config/index.js';
import { audit } from '../operator-audit/index.js';
import {
  operatorRefund,
  operatorUpsertProduct,
  normaliseLogin,
  OPERATOR_SESSION_HEADER,
  requireRole,
  resolveOperator,
  signIn,
  signOut,
} from '../operators/index.js';
import { DomainError } from '../rpc/index.js';
import type { PaymentDeps } from '../payments/index.js';
import {
  encodeAccountList,
  encodeGrant,
  encodeLedgerChunk,
  encodeLedgerPage,
  encodeModeration,
  encodeOperator,
  readFilter,
} from './codec.js';
import { parseLedgerFilter } from './ledger-filter.js';
import { exportLedger, ledgerPage, ledgerTotals } from './ledger-query.js';
import { refundOrderFacts } from './refund-order.js';
import { unmatchedPage } from './unmatched.js';
import type { Clock } from '../support/index.js';

/** What the console service works with. */
export interface ConsoleDeps {
  db: Kysely<DB>;
  logger: Logger;
  /** The payment domain (the console refund runs P's provider-first refund). */
  payments: PaymentDeps;
  chatGate: ChatGate;
  /** The backend clock (operator sessions, ledger windows, moderation terms). */
  now: Clock;
  /** OPERATOR_SESSION_TTL_HOURS. */
  sessionTtlHours: number;
  /** Failed operator sign-ins per login and client address. */
  signInLimit: SignInLimit;
}

const PAGE_DEFAULT = 50;
/** Latest page-cursor time: 9999-12-31T23:59:59.999999Z in microseconds; later ones overflow PostgreSQL's timestamp arithmetic. */
const CURSOR_MAX_US = 253_402_300_799_999_999n;
const PAGE_MAX = 200;

/**
 * backend.v1.ConsoleService. Every method but SignIn resolves the operator from the
 * x-operator-session token and checks its own role here, whatever the gateway checked; each
 * state-changing action and each export is written to the append-only operator audit.
 */
export function consoleService(deps: ConsoleDeps): ServiceImpl<typeof backendApi.ConsoleService> {
  const { db } = deps;
  return {
    async signIn(req, ctx) {
      const input = decodeTable(
        req.body,
        (bb) => fb.OperatorSignIn.getRootAsOperatorSignIn(bb),
        (t) => ({ login: t.login() ?? '', password: t.password() ?? '' }),
      );
      if (input.login.length === 0 || input.login.length > 254 || input.password.length === 0 || input.password.length > 256)
        throw new DomainError('invalid_credentials', 'wrong login or password');
      const { token, session } = await limitedSignIn(deps, input.login, input.password, clientAddressOf(ctx.requestHeader));
      deps.logger.info({ operatorId: String(session.id) }, 'operator signed in');
      return { body: encodeGrant(token, session) };
    },
    async resolveOperator(_req, ctx) {
      return { body: encodeOperator(await resolveOperator(db, ctx.requestHeader.get(OPERATOR_SESSION_HEADER), deps.now())) };
    },
    async signOut(_req, ctx) {
      const closed = await signOut(db, ctx.requestHeader.get(OPERATOR_SESSION_HEADER), deps.now());
      return { body: encodeTable((b) => fb.OperatorSignedOut.createOperatorSignedOut(b, closed)) };
    },
    async queryLedger(req, ctx) {
      await requireRole(db, ctx.requestHeader, 'viewer', 'ledger_view', deps.now());
      const q = decodeTable(
        req.body,
        (bb) => fb.LedgerQuery.getRootAsLedgerQuery(bb),
        (t) => ({
          filter: readFilter(t.filter()),
          afterCreatedUs: t.afterCreatedUs(),
          afterId: t.afterId(),
          limit: t.limit(),
          withTotals: t.withTotals(),
        }),
      );
      const filter = parseLedgerFilter(q.filter, deps.now());
      if (q.afterCreatedUs < 0n || q.afterCreatedUs > CURSOR_MAX_US || q.afterId < 0n || (q.afterId === 0n) !== (q.afterCreatedUs === 0n))
        throw new DomainError('invalid_cursor', 'malformed page cursor');
      if (q.limit < 0 || q.limit > PAGE_MAX) throw new DomainError('invalid_filter', `a page holds 1-${PAGE_MAX} rows`);
      const cursor = q.afterId === 0n ? null : { createdUs: q.afterCreatedUs, id: q.afterId };
      const [page, totals] = await Promise.all([
        ledgerPage(db, filter, cursor, q.limit || PAGE_DEFAULT),
        q.withTotals ? ledgerTotals(db, filter) : Promise.resolve(null),
      ]);
      return { body: encodeLedgerPage(page.rows, page.hasMore, totals) };
    },
    async *exportLedger(req, ctx) {
      const operator = await requireRole(db, ctx.requestHeader, 'viewer', 'ledger_export', deps.now());
      const q = decodeTable(
        req.body,
        (bb) => fb.LedgerExport.getRootAsLedgerExport(bb),
        (t) => ({ filter: readFilter(t.filter()), maxRows: t.maxRows() }),
      );
      const filter = parseLedgerFilter(q.filter, deps.now());
      let rows = 0;
      await audit(db, {
        operatorId: operator.id,
        action: 'ledger_export',
        outcome: 'started',
        detail: JSON.stringify({ ...q.filter, maxRows: q.maxRows }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
      });
      for await (const batch of exportLedger(db, filter, q.maxRows)) {
        if (ctx.signal.aborted) return;
        rows += batch.length;
        yield { body: encodeLedgerChunk(batch) };
      }
      deps.logger.info({ operatorId: String(operator.id), rows }, 'ledger exported');
    },
    async consoleRefund(req, ctx) {
      const orderId = decodeTable(
        req.body,
        (bb) => fb.ConsoleRefund.getRootAsConsoleRefund(bb),
        (t) => t.orderId(),
      );
      const r = await operatorRefund(db, deps.payments, ctx.requestHeader, orderId);
      return {
        body: encodeTable((b) =>
          fb.ConsoleRefundResult.createConsoleRefundResult(
            b,
            b.createString(r.orderId),
            b.createString(r.status),
            b.createString(r.refundId),
            r.amount,
            b.createString(r.currency),
          ),
        ),
      };
    },
    async getRefundOrder(req, ctx) {
      const orderId = decodeTable(
        req.body,
        (bb) => fb.RefundOrderLookup.getRootAsRefundOrderLookup(bb),
        (t) => t.orderId(),
      );
      await requireRole(db, ctx.requestHeader, 'refunder', 'refund_view', deps.now());
      return { body: await refundOrderFacts(db, orderId) };
    },
    async consoleListProducts(_req, ctx) {
      await requireRole(db, ctx.requestHeader, 'catalog_editor', 'catalog_view', deps.now());
      return { body: encodeProductList(await listProducts(db, { includeInactive: true })) };
    },
    async consoleUpsertProduct(req, ctx) {
      const raw = decodeTable(req.body, (bb) => fb.ProductDraft.getRootAsProductDraft(bb), readDraft);
      const product = await operatorUpsertProduct(db, ctx.requestHeader, raw, deps.now(), cardPriceCurrencies(deps.payments.card?.shops));
      return { body: encodeProductRecord(product) };
    },
    async findAccounts(req, ctx) {
      await requireRole(db, ctx.requestHeader, 'moderator', 'account_search', deps.now());
      const query = decodeTable(
        req.body,
        (bb) => fb.AccountSearch.getRootAsAccountSearch(bb),
        (t) => t.query(),
      );
      return { body: encodeAccountList(await findAccounts(db, query, deps.now())) };
    },
    async moderate(req, ctx) {
      const operator = await requireRole(db, ctx.requestHeader, 'moderator', 'moderate', deps.now());
      const input = decodeTable(
        req.body,
        (bb) => fb.ModerationAction.getRootAsModerationAction(bb),
        (t) => ({
          accountId: t.accountId(),
          action: t.action(),
          untilUnix: t.untilUnix(),
          reason: t.reason(),
        }),
      );
      const { account, sent } = await moderate(deps, operator.id, input);
      return { body: encodeModeration(account, sent) };
    },
    async listUnmatchedPayments(req, ctx) {
      await requireRole(db, ctx.requestHeader, 'viewer', 'unmatched_view', deps.now());
      const query = decodeTable(
        req.body,
        (bb) => fb.UnmatchedQuery.getRootAsUnmatchedQuery(bb),
        (t) => ({ status: t.status() ?? '', beforeId: t.beforeId(), limit: t.limit() }),
      );
      return { body: await unmatchedPage(db, query) };
    },
  };
}

/**
 * Operator sign-in under the sign-in limit: a refused attempt (limit used up) is `rate_limited`
 * and checks no password; the failure that uses up a counter writes a `sign_in_locked` audit row
 * naming what was locked (the login, or the client address) and until when.
 */
async function limitedSignIn(deps: ConsoleDeps, login: string, password: string, address: string | null): ReturnType<typeof signIn> {
  const name = normaliseLogin(login);
  const attempt = await deps.signInLimit.begin(name, address);
  try {
    const granted = await signIn(deps.db, login, password, deps.sessionTtlHours, deps.now());
    await attempt.succeeded();
    return granted;
  } catch (err: unknown) {
    const outcome = attempt.failed();
    if (outcome.loginLocked)
      await audit(deps.db, {
        operatorId: null,
        action: 'sign_in_locked',
        target: name.slice(0, 254),
        outcome: 'locked',
        detail: 'too many failed sign-ins for this login',
      });
    if (outcome.addressLocked)
      await audit(deps.db, {
        operatorId: null,
        action: 'sign_in_locked',
        target: address ?? '',
        outcome: 'locked',
        detail: 'too many failed sign-ins from this client address',
      });
    if (outcome.loginLocked || outcome.addressLocked)
      deps.logger.warn({ login: outcome.loginLocked, address: outcome.addressLocked }, 'operator sign-in locked out');
    throw err;
  }
}
