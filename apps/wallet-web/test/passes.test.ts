import type { SubscriptionJson } from '../src/api/types.js';
import { shownPasses } from '../src/views/passes.js';

const DAY = 86_400_000;
const now = Date.parse('2026-12-02T12:00:00Z');

function pass(id: string, state: SubscriptionJson['state'], paidUntil: number | null): SubscriptionJson {
  return {
    id,
    product_id: '1',
    title: 'Monthly pass',
    state,
    paid_until: paidUntil === null ? null : new Date(paidUntil).toISOString(),
    next_renewal: state === 'active' && paidUntil !== null ? new Date(paidUntil).toISOString() : null,
    cancelled_at: null,
    amount: '100',
    currency: 'XTR',
    period_seconds: '2592000',
    periods: 1,
  };
}

describe('the balance tab shows monthly passes', () => {
  it('every active or cancelled one, and one that ended within the last 30 days', () => {
    const passes = [
      pass('1', 'active', now + 10 * DAY),
      pass('2', 'cancelled', now + DAY),
      pass('3', 'expired', now - 5 * DAY),
      pass('4', 'expired', now - 40 * DAY),
      pass('5', 'expired', null),
    ];
    expect(shownPasses(passes, now).map((p) => p.id)).toEqual(['1', '2', '3']);
  });
});
