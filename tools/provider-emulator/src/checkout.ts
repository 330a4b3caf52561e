import type { ServerResponse } from 'node:http';
import type { ProviderEmulatorControl } from './control.js';
import { ControlError } from './errors.js';
import { redirect, sendHtml } from './http.js';

/** Path of the page a payment's confirmation_url points to (as YooKassa's own checkout does). */
export const CHECKOUT_PATH = '/checkout/payments/v2/contract';

/**
 * A bare checkout page for the dev stack, standing in for YooKassa's payment form: GET shows the
 * payment with "Pay" and "Decline" buttons; POST settles it (or cancels it as insufficient_funds)
 * through the control object and redirects to the payment's return_url, like the real flow.
 */
export async function serveCheckout(
  control: ProviderEmulatorControl,
  response: ServerResponse,
  method: string,
  query: URLSearchParams,
  rawBody: string,
): Promise<void> {
  const form = method === 'POST' ? new URLSearchParams(rawBody) : query;
  const id = form.get('orderId') ?? query.get('orderId') ?? '';
  let view;
  try {
    view = control.payment(id);
  } catch (err: unknown) {
    if (err instanceof ControlError) return sendHtml(response, 404, page('Payment not found', '<p>No such payment.</p>'));
    throw err;
  }
  const { payment } = view;
  if (method === 'POST' && payment.status === 'pending') {
    if (form.get('action') === 'pay') await control.succeedPayment(id);
    else await control.cancelPayment(id, { party: 'payment_network', reason: 'insufficient_funds' });
  }
  const returnUrl = payment.confirmation?.return_url;
  if (method === 'POST' && returnUrl) return redirect(response, returnUrl);
  const actions =
    payment.status === 'pending'
      ? `<form method="post"><input type="hidden" name="orderId" value="${escape(id)}">` +
        '<button name="action" value="pay">Pay</button> <button name="action" value="decline">Decline</button></form>'
      : `<p>Status: ${escape(payment.status)}</p>`;
  const body =
    `<p>${escape(payment.description ?? '')}</p>` +
    `<p><b>${escape(payment.amount.value)} ${escape(payment.amount.currency)}</b> (test card *4444)</p>${actions}`;
  sendHtml(response, 200, page('YooKassa emulator checkout', body));
}

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${body}</body></html>`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
