import type { MismatchKind } from './reconciliation.table.js';

/**
 * A run that cannot vouch for a whole side (a provider's list not read to the end within the call
 * bound, or changed under the read): the run is stored as `incomplete` with this message and no
 * mismatches, so it reads neither as findings nor as "all clear".
 */
export class RunIncomplete extends Error {
  override name = 'RunIncomplete';
}

/** A closed time window: from (inclusive) to (exclusive). */
export interface Window {
  from: Date;
  to: Date;
}

/**
 * One disagreement between a provider's books and ours, with the ids an operator needs: the order
 * (when one is known), the provider payment id or platform charge id, the refund id, and both sides'
 * amounts (null where a side has nothing).
 */
export interface Finding {
  kind: MismatchKind;
  rail: 'card' | 'stars';
  provider: string;
  shop: string | null;
  orderId: string | null;
  paymentRef: string;
  refundRef: string | null;
  payerRef: string | null;
  ledgerAmount: bigint | null;
  ledgerCurrency: string | null;
  providerAmount: bigint | null;
  providerCurrency: string | null;
  occurredAt: Date | null;
}

/** A finding with the optional ids left empty; callers fill in what they know. */
export function finding(base: Pick<Finding, 'kind' | 'rail' | 'provider' | 'paymentRef'> & Partial<Finding>): Finding {
  return {
    shop: null,
    orderId: null,
    refundRef: null,
    payerRef: null,
    ledgerAmount: null,
    ledgerCurrency: null,
    providerAmount: null,
    providerCurrency: null,
    occurredAt: null,
    ...base,
  };
}

/** Whether `at` lies in the window. */
export function inWindow(at: Date, window: Window): boolean {
  return at.getTime() >= window.from.getTime() && at.getTime() < window.to.getTime();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string can be an order id (a metadata value or invoice payload is untrusted text). */
export function isOrderId(value: string | undefined): value is string {
  return value !== undefined && UUID.test(value);
}
