import type { ConnectError } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { serveH2c } from './h2c.js';

/** What the intake backend was asked, in order. */
export interface Seen {
  eligibility: Array<{ platform: string; externalId: string }>;
  preCheckout: Array<{ orderId: string; amount: bigint; currency: string }>;
  payments: Array<{ orderId: string; platformChargeId: string; amount: bigint; userId: bigint; platform: string }>;
  refunds: Array<{ orderId: string; platformChargeId: string; amount: bigint; userId: bigint; currency: string; platform: string }>;
  charges: Array<{ platform: string; userId: bigint; limit: number; language: string }>;
  cases: Array<{ platform: string; userId: bigint; chargeId: string; text: string; language: string }>;
}

/** How the intake backend misbehaves: waits `delayMs(id)`, then fails every call with `failWith`. */
export interface IntakeBackendOptions {
  failWith?: ConnectError | Error;
  /** Ms to wait before answering a call for `id` (the external id or the order id); default none. */
  delayMs?: (id: string) => number;
  /** Fails the support calls of one platform user with this error (the backend's limit refusals). */
  refuseUser?: (userId: bigint) => ConnectError | undefined;
}

/**
 * A real Connect (h2c) backend implementing BotIntakeService, recording what it was asked:
 * eligibility registered unless `404`, eligible unless also `muted`; a pre-checkout is ok for
 * 50 stars ("amount changed" otherwise); a payment is credited and a refund recorded for `order-1`.
 * ListStarCharges answers one credited charge `charge-<user>` of order `order-1`; OpenSupportCase
 * answers `C-TEST01`.
 */
export async function startIntakeBackend(options: IntakeBackendOptions = {}) {
  const seen: Seen = { eligibility: [], preCheckout: [], payments: [], refunds: [], charges: [], cases: [] };
  const fail = async (id: string) => {
    const ms = options.delayMs?.(id) ?? 0;
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
    if (options.failWith) throw options.failWith;
  };
  const server = await serveH2c((router) =>
    router.service(backendApi.BotIntakeService, {
      async resolveChatEligibility(req) {
        const q = decodeTable(
          req.body,
          (bb) => fb.ChatEligibilityQuery.getRootAsChatEligibilityQuery(bb),
          (t) => ({ platform: t.platform() ?? '', externalId: t.externalId() ?? '' }),
        );
        seen.eligibility.push(q);
        await fail(q.externalId);
        const registered = q.externalId !== '404';
        return {
          body: encodeTable((b) => fb.ChatEligibility.createChatEligibility(b, registered, registered && q.externalId !== 'muted')),
        };
      },
      async validatePreCheckout(req) {
        const q = decodeTable(
          req.body,
          (bb) => fb.PreCheckoutQuery.getRootAsPreCheckoutQuery(bb),
          (t) => ({ orderId: t.orderId() ?? '', amount: t.amount(), currency: t.currency() ?? '' }),
        );
        seen.preCheckout.push(q);
        await fail(q.orderId);
        const ok = q.amount === 50n;
        return {
          body: encodeTable((b) => fb.PreCheckoutVerdict.createPreCheckoutVerdict(b, ok, b.createString(ok ? '' : 'amount changed'))),
        };
      },
      async forwardPayment(req) {
        const p = decodeTable(
          req.body,
          (bb) => fb.PlatformPayment.getRootAsPlatformPayment(bb),
          (t) => ({
            orderId: t.orderId() ?? '',
            platformChargeId: t.platformPaymentChargeId() ?? '',
            amount: t.amount(),
            userId: t.platformUserId(),
            platform: t.platform() ?? '',
          }),
        );
        seen.payments.push(p);
        await fail(p.orderId);
        return { body: encodeTable((b) => fb.PlatformPaymentResult.createPlatformPaymentResult(b, p.orderId === 'order-1')) };
      },
      async forwardRefund(req) {
        const r = decodeTable(
          req.body,
          (bb) => fb.PlatformRefund.getRootAsPlatformRefund(bb),
          (t) => ({
            orderId: t.orderId() ?? '',
            platformChargeId: t.platformPaymentChargeId() ?? '',
            amount: t.amount(),
            userId: t.platformUserId(),
            currency: t.currency() ?? '',
            platform: t.platform() ?? '',
          }),
        );
        seen.refunds.push(r);
        await fail(r.orderId);
        return { body: encodeTable((b) => fb.PlatformRefundResult.createPlatformRefundResult(b, r.orderId === 'order-1')) };
      },
      async listStarCharges(req) {
        const q = decodeTable(
          req.body,
          (bb) => fb.StarChargesQuery.getRootAsStarChargesQuery(bb),
          (t) => ({ platform: t.platform() ?? '', userId: t.platformUserId(), limit: t.limit(), language: t.language() ?? '' }),
        );
        seen.charges.push(q);
        await fail(String(q.userId));
        const refusal = options.refuseUser?.(q.userId);
        if (refusal) throw refusal;
        return {
          body: encodeTable((b) => {
            const row = fb.StarChargeRow.createStarChargeRow(
              b,
              b.createString('order-1'),
              b.createString(`charge-${q.userId}`),
              b.createString(q.language === 'ru' ? '500 фишек' : '500 chips'),
              250n,
              1_700_000_000n,
              b.createString('credited'),
            );
            return fb.StarChargeList.createStarChargeList(b, fb.StarChargeList.createChargesVector(b, [row]));
          }),
        };
      },
      async openSupportCase(req) {
        const o = decodeTable(
          req.body,
          (bb) => fb.SupportCaseOpening.getRootAsSupportCaseOpening(bb),
          (t) => ({
            platform: t.platform() ?? '',
            userId: t.platformUserId(),
            chargeId: t.platformPaymentChargeId() ?? '',
            text: t.text() ?? '',
            language: t.language() ?? '',
          }),
        );
        seen.cases.push(o);
        await fail(String(o.userId));
        const refusal = options.refuseUser?.(o.userId);
        if (refusal) throw refusal;
        return { body: encodeTable((b) => fb.SupportCaseOpened.createSupportCaseOpened(b, b.createString('C-TEST01'))) };
      },
    }),
  );
  return { url: server.url, seen, close: () => server.close() };
}
