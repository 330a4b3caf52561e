import { encodeTable, fb } from '@wordgame/contracts';
import { z } from 'zod';
import type { BackendClients } from '../../backend/index.js';
import { requestLanguage } from '../language.js';
import type { Operation } from '../operation.js';
import { idParam, parseInput } from '../validation.js';
import { readSubscription, readSubscriptionList } from './codec.js';
import { subscriptionListWire, subscriptionWire } from './wire.js';

const subscriptionPath = z.object({ id: idParam });

/** Cancel or re-enable: one operation each, the same shape. */
function editOperation(backend: BackendClients, cancel: boolean): Operation {
  return {
    name: cancel ? 'subscriptions.cancel' : 'subscriptions.enable',
    method: 'post',
    path: `/api/v1/user/subscriptions/:id/${cancel ? 'cancel' : 'enable'}`,
    auth: 'trusted_session',
    doc: {
      tag: 'subscriptions',
      summary: cancel ? 'Turn renewals of a monthly pass off' : 'Turn renewals of a monthly pass back on',
      description: cancel
        ? 'The bot asks the platform to cancel the subscription (editUserStarSubscription); the state is recorded once the platform did it. A cancelled pass stays active to the end of its paid period. Cancelling a cancelled pass changes nothing.'
        : 'The bot asks the platform to re-enable renewals; the state is recorded once the platform did it. Re-enabling an active pass changes nothing.',
      params: subscriptionPath,
      success: { status: 200, description: 'The subscription as it stands.', body: subscriptionWire },
      errors: [
        'invalid_subscription_id',
        'unknown_subscription',
        'subscription_expired',
        'bot_unavailable',
        'bot_delivery_failed',
        'rate_limited',
      ],
    },
    async handle({ req, call }) {
      const { id } = parseInput(subscriptionPath, req.params, 'invalid_subscription_id');
      const locale = requestLanguage(req);
      const body = encodeTable((b) => fb.SubscriptionEdit.createSubscriptionEdit(b, id, cancel, b.createString(locale)));
      return { status: 200, body: readSubscription((await backend.subscriptions.editSubscription({ body }, call)).body) };
    },
  };
}

/**
 * The player's stars subscriptions (monthly passes) under /api/v1/user/subscriptions:
 * `subscriptions.list` (newest first; titles in the `Accept-Language` language), and
 * `subscriptions.cancel` / `subscriptions.enable` (a trusted session; the bot edits the platform's
 * subscription and the backend records the state only when the bot's Ack says delivered).
 * Another account's subscription is 404 `unknown_subscription`, as is a missing one.
 */
export function subscriptionOperations(backend: BackendClients): Operation[] {
  return [
    {
      name: 'subscriptions.list',
      method: 'get',
      path: '/api/v1/user/subscriptions',
      auth: 'session',
      doc: {
        tag: 'subscriptions',
        summary: "The caller's monthly passes, newest first",
        success: { status: 200, description: 'The subscriptions.', body: subscriptionListWire },
        errors: [],
      },
      async handle({ req, call }) {
        const locale = requestLanguage(req);
        const body = encodeTable((b) => fb.SubscriptionListQuery.createSubscriptionListQuery(b, b.createString(locale)));
        return {
          status: 200,
          body: { subscriptions: readSubscriptionList((await backend.subscriptions.listSubscriptions({ body }, call)).body) },
        };
      },
    },
    editOperation(backend, true),
    editOperation(backend, false),
  ];
}
