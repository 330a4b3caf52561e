import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { commandOutcomeOf, connector, gatewayApi, type CommandOutcome } from '@wordgame/contracts';
import { withServiceToken } from '@wordgame/h2-unary';
import { failoverTransport } from '../cluster/index.js';

/** What became of one bot command, as the gateway reports it (the contract's one definition). */
export type { CommandOutcome };

/** An invoice for a stars order: the bot mints the link; `payload` is the order id. */
export interface InvoiceCommand {
  title: string;
  description: string;
  payload: string;
  amount: bigint;
  /** Seconds of one period for a stars subscription's invoice (2592000); absent for a one-time invoice. */
  subscriptionPeriod?: bigint;
}

/** A templated notification to a user's telegram identity. */
export interface NotifyCommand {
  externalId: string;
  kind: connector.NotificationKind;
  params: Record<string, string>;
}

/**
 * The backend's way to reach the bot (through the gateway's internal BotCommandService). At most
 * once: a failed call is never retried here. Behind an interface so tests run a real tiny server.
 */
export interface BotCommands {
  createInvoice(command: InvoiceCommand): Promise<CommandOutcome>;
  notify(command: NotifyCommand): Promise<CommandOutcome>;
  /** Grants (allow) or revokes write access in the discussion chat for a telegram identity. */
  chatGate(externalId: string, allow: boolean): Promise<CommandOutcome>;
  /**
   * Returns a stars payment to its payer (platform refundStarPayment). Delivered = refunded now or
   * earlier (result `already_refunded`); an error carries the platform's refusal.
   */
  refundStarPayment(userId: bigint, platformChargeId: string): Promise<CommandOutcome>;
  /**
   * Cancels (`isCanceled`) or re-enables a user's stars subscription, named by the charge id of its
   * latest payment (platform editUserStarSubscription). Delivered = the platform did it.
   */
  editStarSubscription(userId: bigint, platformChargeId: string, isCanceled: boolean): Promise<CommandOutcome>;
  /**
   * Asks the bot to erase what it keeps of a platform user whose account was deleted (its language
   * entry, chat-gate retries, parked updates). Delivered once erased; idempotent.
   */
  forgetUser(userId: bigint): Promise<CommandOutcome>;
  /** A free-text private message to a telegram identity (send_to_user; at most 4096 characters). */
  sendToUser(externalId: string, text: string): Promise<CommandOutcome>;
}

/** Ack.result of refund_star_payment when the platform had already refunded the charge. */
export const ALREADY_REFUNDED = 'already_refunded';

/**
 * A BotCommands over the gateway's internal h2c Connect listener at `baseUrl` (or any of several
 * gateways: a call that never reached one goes to the next, see cluster/failover.ts); every call
 * presents `token` (GATEWAY_INTERNAL_TOKEN), without which the gateway refuses it.
 */
export function gatewayBotCommands(baseUrl: string | readonly string[], token: string, timeoutMs: number): BotCommands {
  const transportFor = (url: string) => createConnectTransport({ baseUrl: url, httpVersion: '2', interceptors: [withServiceToken(token)] });
  const client = createClient(
    gatewayApi.BotCommandService,
    failoverTransport(typeof baseUrl === 'string' ? [baseUrl] : baseUrl, transportFor),
  );
  const send = async (command: Parameters<typeof client.send>[0]['command']): Promise<CommandOutcome> => {
    try {
      // The call itself may outlive the Ack wait by a little (the gateway's own answer path).
      const res = await client.send({ command, timeoutMs }, { timeoutMs: timeoutMs + 2_000 });
      return commandOutcomeOf(res);
    } catch (err: unknown) {
      return { status: 'error', error: err instanceof Error ? err.message : 'transport failure' };
    }
  };
  return {
    createInvoice: (c) =>
      send({
        payload: {
          case: 'createInvoice',
          value: {
            title: c.title,
            description: c.description,
            payload: c.payload,
            amount: c.amount,
            ...(c.subscriptionPeriod !== undefined ? { subscriptionPeriod: c.subscriptionPeriod } : {}),
          },
        },
      }),
    notify: (c) =>
      send({
        payload: {
          case: 'notify',
          value: { recipient: { kind: connector.PlatformKind.TELEGRAM, externalId: c.externalId }, kind: c.kind, params: c.params },
        },
      }),
    chatGate: (externalId, allow) => send({ payload: { case: 'chatGate', value: { externalId, allow } } }),
    refundStarPayment: (userId, platformChargeId) =>
      send({ payload: { case: 'refundStarPayment', value: { userId, platformPaymentChargeId: platformChargeId } } }),
    editStarSubscription: (userId, platformChargeId, isCanceled) =>
      send({ payload: { case: 'editStarSubscription', value: { userId, platformPaymentChargeId: platformChargeId, isCanceled } } }),
    forgetUser: (userId) => send({ payload: { case: 'forgetUser', value: { userId } } }),
    sendToUser: (externalId, text) =>
      send({
        payload: { case: 'sendToUser', value: { recipient: { kind: connector.PlatformKind.TELEGRAM, externalId }, text } },
      }),
  };
}
