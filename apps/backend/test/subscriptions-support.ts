import type { Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import type { Kysely } from 'kysely';
import { upsertProduct } from '../src/catalog/index.js';
import type { DB } from '../src/db/schema.js';
import { as } from './support/harness.js';

/** Seconds of one stars subscription period. */
export const PERIOD_S = 2_592_000;

/** A monthly pass (no ads and `hints` per period) for `stars` XTR, written through the catalog repository. */
export async function passProduct(db: Kysely<DB>, stars: bigint, hints = 5n): Promise<bigint> {
  const p = await upsertProduct(
    db,
    {
      id: 0n,
      title: 'Monthly pass',
      active: true,
      atoms: [{ kind: 'no_ads_days', quantity: 30n }, ...(hints > 0n ? [{ kind: 'hints' as const, quantity: hints }] : [])],
      prices: [{ method: 'xtr', amount: stars, currency: 'XTR' }],
      subscriptionPeriodSeconds: PERIOD_S,
    },
    new Date(),
  );
  return p.id;
}

/** A subscription as the SubscriptionService answers it. */
export function readSubscription(t: InstanceType<typeof fb.SubscriptionView>) {
  return {
    id: t.id(),
    productId: t.productId(),
    title: t.title() ?? '',
    state: t.state() ?? '',
    paidUntilUnix: t.paidUntilUnix(),
    cancelledAtUnix: t.cancelledAtUnix(),
    amount: t.amount(),
    periods: t.periods(),
  };
}

export async function listSubscriptions(client: Client<typeof backendApi.SubscriptionService>, accountId: bigint, platform = 'telegram') {
  const res = await client.listSubscriptions(
    { body: encodeTable((b) => fb.SubscriptionListQuery.createSubscriptionListQuery(b, b.createString('en'))) },
    as(accountId, platform),
  );
  return decodeTable(
    res.body,
    (bb) => fb.SubscriptionList.getRootAsSubscriptionList(bb),
    (t) => Array.from({ length: t.subscriptionsLength() }, (_, i) => readSubscription(t.subscriptions(i)!)),
  );
}

export async function editSubscription(
  client: Client<typeof backendApi.SubscriptionService>,
  accountId: bigint,
  id: bigint,
  cancel: boolean,
  platform = 'telegram',
) {
  const res = await client.editSubscription(
    { body: encodeTable((b) => fb.SubscriptionEdit.createSubscriptionEdit(b, id, cancel, b.createString('en'))) },
    as(accountId, platform),
  );
  return decodeTable(res.body, (bb) => fb.SubscriptionView.getRootAsSubscriptionView(bb), readSubscription);
}

export async function subscriptionFigures(client: Client<typeof backendApi.SubscriptionService>, days = 7) {
  const res = await client.getSubscriptionFigures({
    body: encodeTable((b) => fb.SubscriptionFiguresQuery.createSubscriptionFiguresQuery(b, days)),
  });
  return decodeTable(
    res.body,
    (bb) => fb.SubscriptionFigures.getRootAsSubscriptionFigures(bb),
    (t) => ({
      active: t.active(),
      activeCancelled: t.activeCancelled(),
      days: Array.from({ length: t.daysLength() }, (_, i) => {
        const d = t.days(i)!;
        return { day: d.day() ?? '', started: d.started(), renewals: d.renewals(), cancellations: d.cancellations() };
      }),
    }),
  );
}

/** Unix seconds `days` from now (the platform's subscription_expiration_date). */
export const unixIn = (days: number): bigint => BigInt(Math.floor(Date.now() / 1000) + Math.round(days * 86_400));
