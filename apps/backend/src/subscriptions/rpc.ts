import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import type { Builder } from 'flatbuffers';
import { languageOf } from '@wordgame/i18n';
import { clientAddressOf, type Quota } from '../limits/index.js';
import { callerFrom, DomainError, unixSeconds as unix, writerFrom } from '../rpc/index.js';
import { editSubscription, figures, listSubscriptions, type SubscriptionDeps, type SubscriptionItem } from './service.js';

function writeView(b: Builder, s: SubscriptionItem): number {
  const title = b.createString(s.title);
  const state = b.createString(s.state);
  const currency = b.createString(s.currency);
  return fb.SubscriptionView.createSubscriptionView(
    b,
    s.id,
    s.productId,
    title,
    state,
    unix(s.paidUntil),
    unix(s.cancelledAt),
    s.amount,
    currency,
    s.periodSeconds,
    s.periods,
  );
}

/** Days the console figures cover by default, and at most. */
const DAYS_DEFAULT = 30;
const DAYS_MAX = 366;

/**
 * backend.v1.SubscriptionService. The player methods read the caller from the headers (editing
 * needs a trusted session and takes one unit of `editQuota` per account and client address: each
 * edit is a platform call); the console's figures call `requireViewer` (the operators' role check,
 * injected by app.ts so this feature does not depend on the operators feature).
 */
export function subscriptionService(
  deps: SubscriptionDeps,
  editQuota: Quota,
  requireViewer: (headers: Headers) => Promise<unknown>,
): ServiceImpl<typeof backendApi.SubscriptionService> {
  return {
    async listSubscriptions(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      const language = decodeTable(
        req.body,
        (bb) => fb.SubscriptionListQuery.getRootAsSubscriptionListQuery(bb),
        (t) => languageOf(t.locale()) ?? 'en',
      );
      const items = await listSubscriptions(deps, caller, language);
      return {
        body: encodeTable((b) => {
          const views = items.map((s) => writeView(b, s));
          return fb.SubscriptionList.createSubscriptionList(b, fb.SubscriptionList.createSubscriptionsVector(b, views));
        }),
      };
    },
    async editSubscription(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      await editQuota.take(caller.accountId, clientAddressOf(ctx.requestHeader));
      const edit = decodeTable(
        req.body,
        (bb) => fb.SubscriptionEdit.getRootAsSubscriptionEdit(bb),
        (t) => ({ id: t.id(), cancel: t.cancel(), language: languageOf(t.locale()) ?? 'en' }),
      );
      const item = await editSubscription(deps, caller, edit.id, edit.cancel, edit.language);
      return { body: encodeTable((b) => writeView(b, item)) };
    },
    async getSubscriptionFigures(req, ctx) {
      await requireViewer(ctx.requestHeader);
      const days = decodeTable(
        req.body,
        (bb) => fb.SubscriptionFiguresQuery.getRootAsSubscriptionFiguresQuery(bb),
        (t) => t.days(),
      );
      if (days < 0 || days > DAYS_MAX) throw new DomainError('invalid_filter', `days must be 1-${DAYS_MAX}`);
      const f = await figures(deps, days || DAYS_DEFAULT);
      return {
        body: encodeTable((b) => {
          const rows = f.days.map((d) =>
            fb.SubscriptionDay.createSubscriptionDay(
              b,
              b.createString(d.day),
              BigInt(d.started),
              BigInt(d.renewals),
              BigInt(d.cancellations),
            ),
          );
          return fb.SubscriptionFigures.createSubscriptionFigures(
            b,
            f.active,
            f.activeCancelled,
            fb.SubscriptionFigures.createDaysVector(b, rows),
          );
        }),
      };
    },
  };
}
