import type { ServiceImpl } from '@connectrpc/connect';
import type { Builder } from 'flatbuffers';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { clientAddressOf } from '../limits/index.js';
import { requireRole } from '../operators/index.js';
import { DomainError, stringVector, writerFrom } from '../rpc/index.js';
import { createCode, reverseRedemption, type PromoConsoleDeps } from './console.js';
import { redeemCode, type RedeemDeps } from './redeem.js';
import { codeById, listCodes, redemptionDays, redemptionsOf, type CodeUsageRow } from './promos.store.js';

/** What the PromoService works with. */
export type PromoDeps = RedeemDeps & PromoConsoleDeps;

const LIST_MAX = 500;
const REDEMPTIONS_MAX = 500;
const DAYS_DEFAULT = 30;
const DAYS_MAX = 366;
const DAY_MS = 86_400_000;

const unix = (d: Date) => BigInt(Math.floor(d.getTime() / 1000));
const fromUnix = (s: bigint) => new Date(Number(s) * 1000);

function summaryOf(b: Builder, c: CodeUsageRow): number {
  return fb.CodeSummary.createCodeSummary(
    b,
    c.id,
    b.createString(c.prefix),
    b.createString(c.label),
    c.chips,
    c.hints,
    c.no_ads_days,
    c.max_redemptions,
    c.redeemed,
    c.reversed,
    unix(c.valid_from),
    unix(c.valid_until),
    stringVector(b, c.hosts, (bb, data) => fb.CodeSummary.createHostsVector(bb, data)),
    b.createString(c.created_by_login ?? ''),
    unix(c.created_at),
  );
}

/**
 * backend.v1.PromoService: the player's RedeemCode (a trusted session; the caller and client
 * address from the headers) and the console's code methods, each role re-checked here from the
 * operator's session (viewing: viewer; creating: catalog_editor; reversing: refunder).
 */
export function promoService(deps: PromoDeps): ServiceImpl<typeof backendApi.PromoService> {
  const { db } = deps;
  return {
    async redeemCode(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const raw = decodeTable(
        req.body,
        (bb) => fb.CodeRedeem.getRootAsCodeRedeem(bb),
        (t) => t.code() ?? '',
      );
      const r = await redeemCode(deps, caller, clientAddressOf(ctx.requestHeader), raw);
      return {
        body: encodeTable((b) =>
          fb.CodeRedeemed.createCodeRedeemed(b, b.createString(r.segment), r.chips, r.hints, r.noAdsDays, r.balance),
        ),
      };
    },
    async createCode(req, ctx) {
      const operator = await requireRole(db, ctx.requestHeader, 'catalog_editor', 'code_create', deps.now());
      const draft = decodeTable(
        req.body,
        (bb) => fb.CodeCreate.getRootAsCodeCreate(bb),
        (t) => ({
          code: t.code() ?? '',
          label: t.label() ?? '',
          chips: t.chips(),
          hints: t.hints(),
          noAdsDays: t.noAdsDays(),
          maxRedemptions: t.maxRedemptions(),
          validFrom: fromUnix(t.validFromUnix()),
          validUntil: fromUnix(t.validUntilUnix()),
          hosts: Array.from({ length: t.hostsLength() }, (_, i) => t.hosts(i)),
        }),
      );
      const made = await createCode(deps, operator.id, draft);
      return {
        body: encodeTable((b) => fb.CodeCreated.createCodeCreated(b, made.id, b.createString(made.code), b.createString(made.prefix))),
      };
    },
    async listCodes(req, ctx) {
      await requireRole(db, ctx.requestHeader, 'viewer', 'code_view', deps.now());
      const days = decodeTable(
        req.body,
        (bb) => fb.CodeListQuery.getRootAsCodeListQuery(bb),
        (t) => t.days(),
      );
      if (days < 0 || days > DAYS_MAX) throw new DomainError('invalid_filter', `figures cover 1-${DAYS_MAX} days`);
      const since = new Date(Math.floor(deps.now().getTime() / DAY_MS) * DAY_MS - ((days || DAYS_DEFAULT) - 1) * DAY_MS);
      const [codes, perDay] = await Promise.all([listCodes(db, LIST_MAX), redemptionDays(db, since)]);
      return {
        body: encodeTable((b) => {
          const summaries = codes.map((c) => summaryOf(b, c));
          const dayRows = perDay.map((d) => fb.CodeDay.createCodeDay(b, b.createString(d.day), d.redemptions, d.reversals, d.chips));
          return fb.CodeList.createCodeList(b, fb.CodeList.createCodesVector(b, summaries), fb.CodeList.createDaysVector(b, dayRows));
        }),
      };
    },
    async getCode(req, ctx) {
      await requireRole(db, ctx.requestHeader, 'viewer', 'code_view', deps.now());
      const id = decodeTable(
        req.body,
        (bb) => fb.CodeLookup.getRootAsCodeLookup(bb),
        (t) => t.id(),
      );
      const code = id > 0n ? await codeById(db, id) : undefined;
      if (code === undefined) throw new DomainError('unknown_promo_code');
      const redemptions = await redemptionsOf(db, id, REDEMPTIONS_MAX);
      return {
        body: encodeTable((b) => {
          const summary = summaryOf(b, code);
          const rows = redemptions.map((r) =>
            fb.CodeRedemption.createCodeRedemption(
              b,
              r.id,
              r.account_id,
              b.createString(r.segment),
              r.chips,
              r.hints,
              r.no_ads_days,
              unix(r.redeemed_at),
              r.reversed_at === null ? 0n : unix(r.reversed_at),
              b.createString(r.reversed_by_login ?? ''),
            ),
          );
          return fb.CodeDetail.createCodeDetail(b, summary, fb.CodeDetail.createRedemptionsVector(b, rows));
        }),
      };
    },
    async reverseRedemption(req, ctx) {
      const operator = await requireRole(db, ctx.requestHeader, 'refunder', 'code_reverse', deps.now());
      const input = decodeTable(
        req.body,
        (bb) => fb.RedemptionReverse.getRootAsRedemptionReverse(bb),
        (t) => ({ id: t.redemptionId(), reason: t.reason() ?? '' }),
      );
      const done = await reverseRedemption(deps, operator.id, input.id, input.reason);
      return {
        body: encodeTable((b) =>
          fb.RedemptionReversed.createRedemptionReversed(
            b,
            input.id,
            done.balance,
            stringVector(b, done.debts, (bb, data) => fb.RedemptionReversed.createDebtsVector(bb, data)),
          ),
        ),
      };
    },
  };
}
