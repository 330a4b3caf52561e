import { ControlError } from './errors.js';
import type { FaultSpec, Fault, FaultTable } from './faults.js';
import type { IdempotenceStore } from './idempotence.js';
import type { Delivery, NotificationEvent, Notifier } from './notifications.js';
import { declinePayment, paymentForControl, settlePayment, type PaymentChange } from './payments.js';
import { refundForControl, setRefundOutcome, settleRefund } from './refunds.js';
import { alterPayment, createProviderRefund, createUnknownPayment, removePayment, removeRefund } from './discrepancies.js';
import type { LoggedRequest, RequestLog } from './request-log.js';
import type {
  Amount,
  Card,
  EmulatorState,
  Payment,
  PaymentCancellationDetails,
  PaymentRecord,
  Refund,
  RefundCancellationDetails,
  RefundOutcome,
  RefundRecord,
} from './state.js';

/** A payment as the control API shows it: the API object plus what only the emulator knows. */
export interface ControlPaymentView {
  shopId: string;
  capture: boolean;
  payment: Payment;
  /** The receipt sent with the payment, exactly as sent; null when none. */
  receipt: unknown;
  refunds: Refund[];
}

/** A refund as the control API shows it. */
export interface ControlRefundView {
  shopId: string;
  refund: Refund;
  receipt: unknown;
}

/** What `notify` sends: a real notification about an object's current state, or a forged body. */
export type NotifyRequest = { event: NotificationEvent; objectId: string } | { rawBody: string | object; shopId?: string; url?: string };

/**
 * The test/dev control surface, in process; `/_control/*` exposes the same operations over HTTP.
 * Operations that change a payment or refund resolve after the resulting notification attempt has
 * finished (or was suppressed), so a test can assert on the receiver without polling.
 * Failures throw {@link ControlError} (404 unknown id, 409 wrong state, 400 bad argument).
 */
export interface ProviderEmulatorControl {
  /** Forgets payments, refunds, idempotence keys, the request log, faults and notifications; drops held requests. */
  reset(): void;
  /** One payment, whichever shop owns it, with its stored receipt and refunds. */
  payment(id: string): ControlPaymentView;
  /** Every payment, oldest first. */
  payments(): ControlPaymentView[];
  /** One refund with its stored receipt. */
  refund(id: string): ControlRefundView;
  /** The customer pays: pending -> succeeded (capture: true) or waiting_for_capture (capture: false). */
  succeedPayment(id: string, options?: { card?: Partial<Card> }): Promise<{ payment: Payment; notification: Delivery }>;
  /** Discrepancy: the customer pays a pending payment and the notification is lost (no attempt is made). */
  payQuietly(id: string): { payment: Payment };
  /** Discrepancy: a succeeded payment the merchant never heard of (money taken, nothing credited). */
  createUnknownPayment(input: { shopId: string; amount: Amount; metadata?: Record<string, string>; description?: string }): Payment;
  /** Discrepancy: the provider now reports another amount and/or currency for a payment. */
  alterPayment(id: string, change: { value?: string; currency?: string }): Payment;
  /** Discrepancy: a succeeded refund made at the provider only (default: the whole remainder). */
  createProviderRefund(paymentId: string, value?: string): Refund;
  /** Discrepancy: the provider forgets a payment and its refunds (credited but never taken). */
  removePayment(id: string): void;
  /** Discrepancy: the provider forgets a refund (refunded in the merchant's books only). */
  removeRefund(id: string): void;
  /** The payment is declined or expires: pending/waiting_for_capture -> canceled with these details. */
  cancelPayment(id: string, details: PaymentCancellationDetails): Promise<{ payment: Payment; notification: Delivery }>;
  /** Outcome of the next `times` refund creations (all, when absent); default is succeeded. */
  setRefundOutcome(outcome: RefundOutcome, options?: { times?: number; cancellationDetails?: RefundCancellationDetails }): void;
  /** Settles a pending refund. */
  settleRefund(
    id: string,
    status: 'succeeded' | 'canceled',
    cancellationDetails?: RefundCancellationDetails,
  ): Promise<{ refund: Refund; notification: Delivery | null }>;
  /** Installs a fault on /v3 requests. */
  addFault(spec: FaultSpec): Fault;
  /** The installed faults. */
  faults(): Fault[];
  /** Removes every fault (held requests stay held; see releaseHeld). */
  clearFaults(): void;
  /** Drops every held request's connection unanswered; returns how many. */
  releaseHeld(): number;
  /** Turns automatic notifications on or off (off: changes are recorded as suppressed, not sent). */
  setAutoNotify(enabled: boolean): void;
  /** Sets the global webhook URL, or one shop's; null removes it. */
  setWebhookUrl(url: string | null, shopId?: string): void;
  /** Sends a notification now: about an object's current state, or a forged arbitrary body. */
  notify(request: NotifyRequest): Promise<Delivery>;
  /** Posts a recorded notification again. */
  redeliver(notificationId: string): Promise<Delivery>;
  /** Every notification since the last reset with its attempts. */
  notifications(): Delivery[];
  /** Resolves once no notification is being delivered. */
  flushNotifications(): Promise<void>;
  /** The /v3 request log (no secrets, no bodies). */
  requests(): LoggedRequest[];
  /** Empties the request log. */
  clearRequests(): void;
}

/** What the control object works on; `releaseHeld` comes from the server, which owns the sockets. */
export interface ControlDeps {
  state: EmulatorState;
  idempotence: IdempotenceStore;
  notifier: Notifier;
  faults: FaultTable;
  requestLog: RequestLog;
  releaseHeld: () => number;
}

/** Builds the control object over the emulator's parts. */
export function createControl(deps: ControlDeps): ProviderEmulatorControl {
  const { state, notifier, faults, requestLog } = deps;

  const viewPayment = (record: PaymentRecord): ControlPaymentView => ({
    shopId: record.shopId,
    capture: record.capture,
    payment: structuredClone(record.object),
    receipt: structuredClone(record.receipt),
    refunds: [...state.refunds.values()].filter((r) => r.object.payment_id === record.object.id).map((r) => structuredClone(r.object)),
  });
  const viewRefund = (record: RefundRecord): ControlRefundView => ({
    shopId: record.shopId,
    refund: structuredClone(record.object),
    receipt: structuredClone(record.receipt),
  });
  const announce = async (change: PaymentChange): Promise<{ payment: Payment; notification: Delivery }> => {
    const payment = structuredClone(change.record.object);
    const notification = await notifier.notifyChange(change.record.shopId, change.event, payment);
    return { payment: structuredClone(payment), notification };
  };

  return {
    reset() {
      state.reset();
      deps.idempotence.clear();
      requestLog.clear();
      faults.clear();
      notifier.reset();
      deps.releaseHeld();
    },
    payment: (id) => viewPayment(paymentForControl(state, id)),
    payments: () => [...state.payments.values()].map(viewPayment),
    refund: (id) => viewRefund(refundForControl(state, id)),
    succeedPayment: async (id, options) => announce(settlePayment(state, id, options?.card)),
    cancelPayment: async (id, details) => announce(declinePayment(state, id, details)),
    payQuietly: (id) => ({ payment: structuredClone(settlePayment(state, id).record.object) }),
    createUnknownPayment: (input) => createUnknownPayment(state, input),
    alterPayment: (id, change) => alterPayment(state, id, change),
    createProviderRefund: (paymentId, value) => createProviderRefund(state, paymentId, value),
    removePayment: (id) => removePayment(state, id),
    removeRefund: (id) => removeRefund(state, id),
    setRefundOutcome: (outcome, options) => setRefundOutcome(state, outcome, options?.times, options?.cancellationDetails),
    async settleRefund(id, status, cancellationDetails) {
      const record = settleRefund(state, id, status, cancellationDetails);
      const refund = structuredClone(record.object);
      const notification = status === 'succeeded' ? await notifier.notifyChange(record.shopId, 'refund.succeeded', refund) : null;
      return { refund: structuredClone(refund), notification };
    },
    addFault: (spec) => faults.add(spec),
    faults: () => faults.list(),
    clearFaults: () => faults.clear(),
    releaseHeld: () => deps.releaseHeld(),
    setAutoNotify(enabled) {
      notifier.autoNotify = enabled;
    },
    setWebhookUrl: (url, shopId) => notifier.setWebhookUrl(url, shopId),
    async notify(request) {
      if ('rawBody' in request) {
        const body = typeof request.rawBody === 'string' ? request.rawBody : JSON.stringify(request.rawBody);
        return notifier.send({
          shopId: request.shopId ?? null,
          event: eventOf(request.rawBody),
          objectId: null,
          body,
          forged: true,
          ...(request.url === undefined ? {} : { url: request.url }),
        });
      }
      const { event, objectId } = request;
      const record = event.startsWith('refund.') ? refundForControl(state, objectId) : paymentForControl(state, objectId);
      const body = JSON.stringify({ type: 'notification', event, object: record.object });
      return notifier.send({ shopId: record.shopId, event, objectId, body, forged: false });
    },
    async redeliver(notificationId) {
      const delivery = notifier.redeliver(notificationId);
      if (!delivery) throw new ControlError(404, `no notification ${notificationId}`);
      return delivery;
    },
    notifications: () => notifier.deliveries(),
    flushNotifications: () => notifier.flush(),
    requests: () => requestLog.list(),
    clearRequests: () => requestLog.clear(),
  };
}

function eventOf(raw: string | object): string | null {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      return null;
    }
  }
  if (typeof value !== 'object' || value === null || !('event' in value)) return null;
  return typeof value.event === 'string' ? value.event : null;
}
