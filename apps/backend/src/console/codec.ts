import type { Builder } from 'flatbuffers';
import { encodeTable, fb } from '@wordgame/contracts';
import type { AccountSummary, GateSent } from '../moderation/index.js';
import { unixSeconds } from '../rpc/index.js';
import type { RawLedgerFilter } from './ledger-filter.js';
import type { LedgerTotals } from './ledger-query.js';
import type { ConsoleLedgerRow } from './console.store.js';

const str = (b: Builder, v: string | null) => b.createString(v ?? '');

/** What the console's OperatorInfo carries of a signed-in operator (operators' OperatorSession is one). */
interface OperatorInfoView {
  id: bigint;
  login: string;
  roles: readonly string[];
  expiresAt: Date;
}

function writeOperator(b: Builder, o: OperatorInfoView): number {
  const login = b.createString(o.login);
  const roles = fb.OperatorInfo.createRolesVector(
    b,
    o.roles.map((r) => b.createString(r)),
  );
  return fb.OperatorInfo.createOperatorInfo(b, o.id, login, roles, unixSeconds(o.expiresAt));
}

export function encodeOperator(o: OperatorInfoView): Uint8Array {
  return encodeTable((b) => writeOperator(b, o));
}

export function encodeGrant(token: string, o: OperatorInfoView): Uint8Array {
  return encodeTable((b) => {
    const t = b.createString(token);
    const info = writeOperator(b, o);
    fb.OperatorGrant.startOperatorGrant(b);
    fb.OperatorGrant.addToken(b, t);
    fb.OperatorGrant.addOperator(b, info);
    return fb.OperatorGrant.endOperatorGrant(b);
  });
}

function writeRow(b: Builder, r: ConsoleLedgerRow): number {
  const kind = b.createString(r.kind);
  const segment = str(b, r.segment);
  const origin = str(b, r.benefit_origin);
  const rail = str(b, r.rail);
  const provider = str(b, r.provider);
  const currency = str(b, r.currency);
  const orderId = str(b, r.order_id);
  const refundId = str(b, r.refund_id);
  const note = b.createString(r.note);
  return fb.LedgerRow.createLedgerRow(
    b,
    r.id,
    r.created_us,
    r.account_id,
    kind,
    segment,
    origin,
    rail,
    provider,
    r.product_id ?? 0n,
    r.chips_delta,
    r.money_minor ?? 0n,
    currency,
    r.hints_delta,
    r.no_ads_days,
    r.no_ads_forever,
    orderId,
    refundId,
    r.refunded,
    note,
  );
}

/** A LedgerPage: rows, and (when computed) totals, daily figures and the matched count. */
export function encodeLedgerPage(rows: readonly ConsoleLedgerRow[], hasMore: boolean, totals: LedgerTotals | null): Uint8Array {
  return encodeTable((b) => {
    const rowsVec = fb.LedgerPage.createRowsVector(
      b,
      rows.map((r) => writeRow(b, r)),
    );
    const totalsVec = fb.LedgerPage.createTotalsVector(
      b,
      (totals?.totals ?? []).map((t) => fb.CurrencyTotal.createCurrencyTotal(b, b.createString(t.currency), t.amount, t.operations)),
    );
    const dailyVec = fb.LedgerPage.createDailyVector(
      b,
      (totals?.daily ?? []).map((d) => fb.DailyTotal.createDailyTotal(b, d.dayUnix, b.createString(d.currency), d.amount)),
    );
    const last = rows[rows.length - 1];
    return fb.LedgerPage.createLedgerPage(
      b,
      rowsVec,
      totalsVec,
      dailyVec,
      totals?.matched ?? 0n,
      hasMore,
      hasMore && last ? last.created_us : 0n,
      hasMore && last ? last.id : 0n,
    );
  }, 4096);
}

export function encodeLedgerChunk(rows: readonly ConsoleLedgerRow[]): Uint8Array {
  return encodeTable(
    (b) =>
      fb.LedgerChunk.createLedgerChunk(
        b,
        fb.LedgerChunk.createRowsVector(
          b,
          rows.map((r) => writeRow(b, r)),
        ),
      ),
    64 * 1024,
  );
}

/** Reads a wire LedgerFilter (absent = all unset). */
export function readFilter(t: InstanceType<typeof fb.LedgerFilter> | null): RawLedgerFilter {
  return {
    fromUnix: t?.fromUnix() ?? 0n,
    toUnix: t?.toUnix() ?? 0n,
    wallet: t?.wallet() ?? null,
    rail: t?.rail() ?? null,
    kind: t?.kind() ?? null,
    accountId: t?.accountId() ?? 0n,
  };
}

function writeAccount(b: Builder, a: AccountSummary): number {
  const name = b.createString(a.displayName);
  const email = str(b, a.email);
  const status = b.createString(a.status);
  const identities = fb.AccountSummary.createIdentitiesVector(
    b,
    a.identities.map((i) => fb.PlatformIdentity.createPlatformIdentity(b, b.createString(i.kind), b.createString(i.externalId))),
  );
  const balances = fb.AccountSummary.createBalancesVector(
    b,
    a.balances.map((x) => fb.AccountBalance.createAccountBalance(b, b.createString(x.segment), x.chips, x.hints)),
  );
  return fb.AccountSummary.createAccountSummary(
    b,
    a.id,
    name,
    email,
    status,
    unixSeconds(a.suspendedUntil),
    a.chatMuted,
    a.chatEligible,
    identities,
    unixSeconds(a.createdAt),
    balances,
  );
}

export function encodeAccountList(accounts: readonly AccountSummary[]): Uint8Array {
  return encodeTable(
    (b) =>
      fb.AccountList.createAccountList(
        b,
        fb.AccountList.createAccountsVector(
          b,
          accounts.map((a) => writeAccount(b, a)),
        ),
      ),
    1024,
  );
}

export function encodeModeration(account: AccountSummary, sent: readonly GateSent[]): Uint8Array {
  return encodeTable((b) => {
    const a = writeAccount(b, account);
    const gate = fb.ModerationResult.createChatGateVector(
      b,
      sent.map((s) => b.createString(`${s.externalId}:${s.allow ? 'allow' : 'deny'}:${s.outcome}`)),
    );
    return fb.ModerationResult.createModerationResult(b, a, gate);
  });
}
