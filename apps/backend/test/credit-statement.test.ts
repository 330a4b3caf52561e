import fc from 'fast-check';
import { Kysely, PostgresDialect } from 'kysely';
import type { DB } from '../src/db/schema.js';
import { orderCredit, type CreditGuard, type Settlement } from '../src/ledger/postings/credit.js';
import { compileCredit, creditStatement } from '../src/payments/orders/credit.js';
import { CREDITABLE_STATES } from '../src/payments/orders/state.js';

/** Property runs on real servers take what a loaded machine gives them; the deadline only catches a hang. */
const PROPERTY_DEADLINE_MS = 600_000;

// Compiling needs a dialect, never a connection.
const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: () => Promise.reject(new Error('compile only')) }) });

describe('credit statement memoised per shape', () => {
  it(
    'has the same SQL and parameters as compiling the query for the very inputs, for every shape',
    () => {
      const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
      fc.assert(
        fc.property(
          fc.uuid(),
          fc.date({ noInvalidDate: true }),
          fc.oneof(
            fc.record({ platformChargeId: fc.string({ minLength: 1 }) }),
            fc.record({ platformChargeId: fc.string({ minLength: 1 }), platformUserId: fc.bigInt({ min: 1n, max: 2n ** 52n }) }),
            fc.record({ providerPaymentId: fc.string({ minLength: 1 }) }),
          ),
          optional(fc.constantFrom('stars' as const, 'card' as const)),
          optional(fc.bigInt({ min: 1n, max: 2n ** 40n })),
          optional(fc.string({ minLength: 1 })),
          (orderId, now, settlement: Settlement, rail, amount, newPlatformChargeId) => {
            const guard: CreditGuard = {};
            if (rail !== undefined) guard.rail = rail;
            if (amount !== undefined) guard.amount = amount;
            if (newPlatformChargeId !== undefined) guard.newPlatformChargeId = newPlatformChargeId;
            const memoised = creditStatement(db, orderId, settlement, now, guard);
            const direct = compileCredit(db, orderId, settlement, now, guard);
            expect(memoised.sql).toBe(direct.sql);
            expect(memoised.parameters).toEqual(direct.parameters);
          },
        ),
        { numRuns: 300 },
      );
    },
    PROPERTY_DEADLINE_MS,
  );
});

describe("the creditable states are payments' rule, the statement the ledger's", () => {
  it('credits only orders in the states payments names, passed to the ledger as parameters', () => {
    const st = creditStatement(db, 'order-1', { providerPaymentId: 'pay-1' }, new Date(0));
    const states = st.parameters.filter((p) => typeof p === 'string' && ['pending', 'failed', 'expired'].includes(p));
    expect(states).toEqual([...CREDITABLE_STATES]);
    expect(st.sql).toMatch(/"state" in \(\$\d+, \$\d+\)/);
    const pendingOnly = orderCredit(['pending']).creditStatement(db, 'order-1', { providerPaymentId: 'pay-1' }, new Date(0));
    expect(pendingOnly.parameters.filter((p) => p === 'pending' || p === 'expired')).toEqual(['pending']);
  });
});
