import type { Request, Response } from 'express';
import { createClient, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { asOperator, consoleTransport, failureOf } from '../backend.js';
import { html } from '../../http/index.js';
import { page, send, sendError } from '../layout.js';

/** The backend's SubscriptionService as the console calls it (its figures; the operator's session names the viewer). */
export type SubscriptionsClient = Client<typeof backendApi.SubscriptionService>;

/** A SubscriptionsClient over the backend's Connect URL(s). */
export function createSubscriptionsClient(urls: string | readonly string[], token: string): SubscriptionsClient {
  return createClient(backendApi.SubscriptionService, consoleTransport(urls, token, 15_000));
}

const DAY_CHOICES = [7, 30, 90] as const;

function readFigures(body: Uint8Array) {
  return decodeTable(
    body,
    (bb) => fb.SubscriptionFigures.getRootAsSubscriptionFigures(bb),
    (t) => ({
      active: t.active(),
      activeCancelled: t.activeCancelled(),
      days: Array.from({ length: t.daysLength() }, (_, i) => {
        const d = t.days(i);
        return { day: d?.day() ?? '', started: d?.started() ?? 0n, renewals: d?.renewals() ?? 0n, cancellations: d?.cancellations() ?? 0n };
      }),
    }),
  );
}

/**
 * GET /_gm/subscriptions (viewer): stars subscriptions (monthly passes) with a paid period running
 * now (and how many of them will not renew), and per UTC day of the last 7, 30 or 90 days
 * (`days`): first payments, renewals and cancellations.
 */
export function subscriptionsPage(client: SubscriptionsClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const raw = typeof req.query['days'] === 'string' ? req.query['days'] : '30';
    const days = DAY_CHOICES.find((d) => String(d) === raw);
    if (days === undefined) {
      sendError(res, 400, 'Subscriptions', 'Choose 7, 30 or 90 days.', operator);
      return;
    }
    let data;
    try {
      const body = encodeTable((b) => fb.SubscriptionFiguresQuery.createSubscriptionFiguresQuery(b, days));
      data = readFigures((await client.getSubscriptionFigures({ body }, asOperator(operator.token))).body);
    } catch (err: unknown) {
      const failure = failureOf(err);
      if (failure.errorCode === 'internal' || failure.errorCode === 'unavailable')
        req.log.error({ err }, 'console subscriptions query failed');
      sendError(res, failure.status, 'Subscriptions', failure.message, operator);
      return;
    }
    const choice = (d: number) =>
      d === days ? html`<strong>${d} days</strong>` : html`<a href="/_gm/subscriptions?days=${d}">${d} days</a>`;
    send(
      res,
      200,
      page(
        'Subscriptions',
        html`<p>Monthly passes (stars subscriptions). A cancelled pass stays active to the end of its paid period. Days are UTC.</p>
<p id="active" data-active="${data.active}" data-cancelled="${data.activeCancelled}">Active now: <strong>${data.active}</strong> (of which ${data.activeCancelled} will not renew)</p>
<p>${DAY_CHOICES.map((d, i) => html`${i > 0 ? ' · ' : ''}${choice(d)}`)}</p>
<table id="days"><tr><th>Day</th><th>First payments</th><th>Renewals</th><th>Cancellations</th></tr>
${data.days.map(
  (d) =>
    html`<tr data-day="${d.day}"><td>${d.day}</td><td class="num started">${d.started}</td><td class="num renewals">${d.renewals}</td><td class="num cancellations">${d.cancellations}</td></tr>`,
)}</table>`,
        operator,
      ),
    );
  };
}
