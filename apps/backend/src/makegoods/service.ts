import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { requireRole } from '../operators/index.js';
import { DomainError } from '../rpc/index.js';
import { capsToday, grantMakeGood, type MakeGoodDeps } from './grant.js';
import { targetAccount, walletOf } from './makegoods.store.js';

/**
 * backend.v1.MakeGoodService: the grant form's facts (the account's wallet and the operator's caps
 * left today) and the grant itself; both need a `granter` session, checked here whatever the
 * gateway checked, and a grant is audited whatever its outcome (grant.ts).
 */
export function makeGoodService(deps: MakeGoodDeps): ServiceImpl<typeof backendApi.MakeGoodService> {
  return {
    async getMakeGoodTarget(req, ctx) {
      const operator = await requireRole(deps.db, ctx.requestHeader, 'granter', 'make_good_view', deps.now());
      const accountId = decodeTable(
        req.body,
        (bb) => fb.MakeGoodTargetQuery.getRootAsMakeGoodTargetQuery(bb),
        (t) => t.accountId(),
      );
      const account = accountId > 0n ? await targetAccount(deps.db, accountId) : undefined;
      if (!account) throw new DomainError('unknown_account', 'no such account');
      const [wallet, caps] = await Promise.all([walletOf(deps.db, account.id), capsToday(deps, operator.id)]);
      return {
        body: encodeTable((b) => {
          const segments = wallet.map((w) =>
            fb.MakeGoodSegment.createMakeGoodSegment(
              b,
              b.createString(w.segment),
              w.chips,
              w.hints,
              w.no_ads_until === null ? 0n : BigInt(Math.floor(w.no_ads_until.getTime() / 1000)),
            ),
          );
          const segVector = fb.MakeGoodTarget.createSegmentsVector(b, segments);
          const capsVector = fb.MakeGoodTarget.createCapsVector(
            b,
            caps.map((c) => fb.MakeGoodCap.createMakeGoodCap(b, b.createString(c.kind), c.cap, c.used)),
          );
          return fb.MakeGoodTarget.createMakeGoodTarget(
            b,
            account.id,
            b.createString(account.display_name),
            b.createString(account.status),
            segVector,
            capsVector,
          );
        }),
      };
    },
    async grantMakeGood(req, ctx) {
      const raw = decodeTable(
        req.body,
        (bb) => fb.MakeGoodRequest.getRootAsMakeGoodRequest(bb),
        (t) => ({
          accountId: t.accountId(),
          segment: t.segment() ?? '',
          chips: t.chips(),
          hints: t.hints(),
          noAdsDays: t.noAdsDays(),
          reason: t.reason() ?? '',
          supportCase: t.supportCase() ?? '',
          formToken: t.formToken() ?? '',
        }),
      );
      const r = await grantMakeGood(deps, ctx.requestHeader, raw);
      return {
        body: encodeTable((b) => {
          const segment = b.createString(r.segment);
          const caps = fb.MakeGoodResult.createCapsVector(
            b,
            r.caps.map((c) => fb.MakeGoodCap.createMakeGoodCap(b, b.createString(c.kind), c.cap, c.used)),
          );
          return fb.MakeGoodResult.createMakeGoodResult(
            b,
            r.id,
            r.replayed,
            r.accountId,
            segment,
            r.chips,
            r.hints,
            r.noAdsDays,
            r.balance,
            caps,
          );
        }),
      };
    },
  };
}
