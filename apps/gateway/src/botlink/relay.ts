import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import { botlink, decodeTable, encodeTable, fb, FlatBufferDecodeError } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { isNetworkFailure } from '@wordgame/net-errors';
import type { BackendClients } from '../backend/index.js';

/** The chat platform this bot serves; the bot-link's bot is the Telegram bot. */
export const BOT_PLATFORM = 'telegram';

/**
 * Maps a failed backend intake call to the code the bot sees: Unimplemented (the backend has no
 * intake yet, said plainly), Unavailable (unreachable or too slow; the bot retries or fails
 * closed), InvalidArgument (the backend rejected the request as such), else Internal, logged with
 * its cause and answered without detail.
 */
export function relayFailure(rpc: string, err: unknown, logger: Logger): ConnectError {
  if (err instanceof FlatBufferDecodeError) {
    logger.error({ rpc, err }, 'backend intake answered an unreadable body');
    return new ConnectError('internal error', Code.Internal);
  }
  const cause = ConnectError.from(err);
  if (isNetworkFailure(cause)) {
    logger.warn({ rpc, err: cause.rawMessage }, 'backend intake unreachable');
    return new ConnectError('the backend is unavailable', Code.Unavailable);
  }
  switch (cause.code) {
    case Code.Unimplemented:
      logger.warn({ rpc }, 'backend intake is not implemented');
      return new ConnectError(`${rpc} is not available on the backend yet`, Code.Unimplemented);
    case Code.Unavailable:
    case Code.DeadlineExceeded:
      logger.warn({ rpc, code: Code[cause.code], err: cause.rawMessage }, 'backend intake unavailable');
      return new ConnectError('the backend is unavailable', Code.Unavailable);
    case Code.Canceled:
      return new ConnectError('canceled', Code.Canceled);
    case Code.InvalidArgument:
      return new ConnectError(cause.rawMessage, Code.InvalidArgument);
    default:
      logger.error({ rpc, code: Code[cause.code], err: cause }, 'backend intake failed');
      return new ConnectError('internal error', Code.Internal);
  }
}

function required(value: string, field: string): string {
  if (value === '') throw new ConnectError(`${field} is required`, Code.InvalidArgument);
  return value;
}

/**
 * The bot-link relay: its unary RPCs, each proxied to the backend intake (backend.v1.BotIntakeService)
 * with FlatBuffers bodies.
 * Nothing is answered locally: the result is always the backend's (or an error, never a guess).
 */
export function createRelayHandlers(backend: BackendClients, logger: Logger) {
  /**
   * Runs one relay. A call whose own deadline passed (or that the bot cancelled) ends with that
   * reason (DeadlineExceeded, Canceled), whatever the aborted backend call reported: the backend
   * was not unavailable, the caller gave up.
   */
  async function call<T>(rpc: string, ctx: HandlerContext, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err: unknown) {
      if (ctx.signal.aborted) throw ConnectError.from(ctx.signal.reason, Code.Canceled);
      throw relayFailure(rpc, err, logger);
    }
  }

  return {
    resolveChatEligibility: async (req: botlink.ChatEligibilityRequest, ctx: HandlerContext) => {
      const externalId = required(req.externalId, 'external_id');
      return await call('ResolveChatEligibility', ctx, async () => {
        const res = await backend.intake.resolveChatEligibility(
          {
            body: encodeTable((b) =>
              fb.ChatEligibilityQuery.createChatEligibilityQuery(b, b.createString(BOT_PLATFORM), b.createString(externalId)),
            ),
          },
          { signal: ctx.signal },
        );
        return decodeTable(
          res.body,
          (bb) => fb.ChatEligibility.getRootAsChatEligibility(bb),
          (t) => create(botlink.ChatEligibilityResponseSchema, { registered: t.registered(), eligible: t.eligible() }),
        );
      });
    },

    validatePreCheckout: async (req: botlink.PreCheckoutRequest, ctx: HandlerContext) => {
      const orderId = required(req.orderId, 'order_id');
      const currency = required(req.currency, 'currency');
      return await call('ValidatePreCheckout', ctx, async () => {
        const res = await backend.intake.validatePreCheckout(
          {
            body: encodeTable((b) =>
              fb.PreCheckoutQuery.createPreCheckoutQuery(b, b.createString(orderId), req.amount, b.createString(currency)),
            ),
          },
          { signal: ctx.signal },
        );
        return decodeTable(
          res.body,
          (bb) => fb.PreCheckoutVerdict.getRootAsPreCheckoutVerdict(bb),
          (t) => create(botlink.PreCheckoutResponseSchema, { ok: t.ok(), reason: t.reason() ?? '' }),
        );
      });
    },

    forwardPayment: async (req: botlink.ForwardPaymentRequest, ctx: HandlerContext) => {
      const orderId = required(req.orderId, 'order_id');
      const platformChargeId = required(req.platformPaymentChargeId, 'platform_payment_charge_id');
      return await call('ForwardPayment', ctx, async () => {
        const res = await backend.intake.forwardPayment(
          {
            body: encodeTable((b) =>
              fb.PlatformPayment.createPlatformPayment(
                b,
                b.createString(orderId),
                b.createString(platformChargeId),
                req.amount,
                req.platformUserId,
                b.createString(BOT_PLATFORM),
                req.isRecurring,
                req.isFirstRecurring,
                req.subscriptionExpirationUnix,
              ),
            ),
          },
          { signal: ctx.signal },
        );
        return decodeTable(
          res.body,
          (bb) => fb.PlatformPaymentResult.getRootAsPlatformPaymentResult(bb),
          (t) => create(botlink.ForwardPaymentResponseSchema, { credited: t.credited() }),
        );
      });
    },

    /**
     * ForwardRefund: a refunded_payment the bot stored, relayed as fb.PlatformRefund. Validated like
     * ForwardPayment (the charge id is the idempotency key; stars only, a positive amount), so a row
     * the backend could never record is refused here, and the bot keeps it for an operator.
     */
    forwardRefund: async (req: botlink.ForwardRefundRequest, ctx: HandlerContext) => {
      const platformChargeId = required(req.platformPaymentChargeId, 'platform_payment_charge_id');
      if (req.currency !== 'XTR') throw new ConnectError('currency must be XTR', Code.InvalidArgument);
      if (req.amount <= 0n) throw new ConnectError('amount must be positive', Code.InvalidArgument);
      return await call('ForwardRefund', ctx, async () => {
        const res = await backend.intake.forwardRefund(
          {
            body: encodeTable((b) =>
              fb.PlatformRefund.createPlatformRefund(
                b,
                b.createString(BOT_PLATFORM),
                b.createString(req.orderId),
                b.createString(platformChargeId),
                req.amount,
                req.platformUserId,
                b.createString(req.currency),
              ),
            ),
          },
          { signal: ctx.signal },
        );
        return decodeTable(
          res.body,
          (bb) => fb.PlatformRefundResult.getRootAsPlatformRefundResult(bb),
          (t) => create(botlink.ForwardRefundResponseSchema, { recorded: t.recorded() }),
        );
      });
    },
  };
}
