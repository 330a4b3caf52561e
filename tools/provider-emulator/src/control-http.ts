import { z } from 'zod';
import type { ProviderEmulatorControl } from './control.js';
import { ControlError } from './errors.js';
import { parseJson } from './http.js';
import { NOTIFICATION_EVENTS } from './notifications.js';
import { PAYMENT_CANCELLATION_REASONS, REFUND_CANCELLATION_REASONS } from './state.js';

/** A control answer: status and JSON-serialisable body. */
export interface ControlAnswer {
  status: number;
  body: unknown;
}

const cardSchema = z
  .object({
    first6: z.string().regex(/^\d{6}$/),
    last4: z.string().regex(/^\d{4}$/),
    expiry_month: z.string().regex(/^(0[1-9]|1[0-2])$/),
    expiry_year: z.string().regex(/^\d{4}$/),
    card_type: z.string().min(1),
    issuer_country: z.string().regex(/^[A-Z]{2}$/),
    issuer_name: z.string().min(1),
  })
  .partial();

const paymentCancellation = z.object({
  party: z.enum(['yoo_money', 'payment_network', 'merchant']),
  reason: z.enum(PAYMENT_CANCELLATION_REASONS),
});

const refundCancellation = z.object({
  party: z.enum(['yoo_money', 'refund_network', 'merchant']),
  reason: z.enum(REFUND_CANCELLATION_REASONS),
});

const faultCommon = {
  method: z.string().min(1).optional(),
  pathPrefix: z.string().startsWith('/').optional(),
  times: z.number().int().min(1).optional(),
  applied: z.boolean().optional(),
};

const faultSchema = z.union([
  z.object({
    ...faultCommon,
    status: z.union([z.literal(400), z.literal(401), z.literal(403), z.literal(404), z.literal(429), z.literal(500)]),
  }),
  z.object({ ...faultCommon, status: z.literal('timeout'), delayMs: z.number().int().min(0).optional() }),
]);

const notifySchema = z.union([
  z.object({ event: z.enum(NOTIFICATION_EVENTS), objectId: z.string().min(1) }),
  z.object({
    rawBody: z.union([z.string(), z.record(z.string(), z.unknown())]),
    shopId: z.string().optional(),
    url: z.url().optional(),
  }),
]);

type Route = {
  method: 'GET' | 'POST' | 'DELETE';
  pattern: RegExp;
  run: (control: ProviderEmulatorControl, id: string, body: unknown) => unknown;
};

const ID = '([^/]+)';
const OK = { ok: true };

const ROUTES: Route[] = [
  { method: 'GET', pattern: /^\/health$/, run: () => OK },
  { method: 'POST', pattern: /^\/reset$/, run: (c) => (c.reset(), OK) },
  { method: 'GET', pattern: /^\/payments$/, run: (c) => c.payments() },
  { method: 'GET', pattern: new RegExp(`^/payments/${ID}$`), run: (c, id) => c.payment(id) },
  {
    method: 'POST',
    pattern: new RegExp(`^/payments/${ID}/succeed$`),
    run: (c, id, body) => c.succeedPayment(id, parse(z.object({ card: cardSchema.optional() }), body)),
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/payments/${ID}/cancel$`),
    run: (c, id, body) => c.cancelPayment(id, parse(paymentCancellation, body)),
  },
  { method: 'GET', pattern: new RegExp(`^/refunds/${ID}$`), run: (c, id) => c.refund(id) },
  { method: 'POST', pattern: new RegExp(`^/payments/${ID}/pay-quietly$`), run: (c, id) => c.payQuietly(id) },
  {
    method: 'POST',
    pattern: /^\/discrepancies\/unknown-payment$/,
    run: (c, _id, body) =>
      c.createUnknownPayment(
        parse(
          z.object({
            shopId: z.string().min(1),
            amount: z.object({ value: z.string(), currency: z.string().regex(/^[A-Z]{3}$/) }),
            metadata: z.record(z.string(), z.string()).optional(),
            description: z.string().max(128).optional(),
          }),
          body,
        ),
      ),
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/payments/${ID}/alter$`),
    run: (c, id, body) =>
      c.alterPayment(
        id,
        parse(
          z.object({
            value: z.string().optional(),
            currency: z
              .string()
              .regex(/^[A-Z]{3}$/)
              .optional(),
          }),
          body,
        ),
      ),
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/payments/${ID}/provider-refund$`),
    run: (c, id, body) => c.createProviderRefund(id, parse(z.object({ value: z.string().optional() }), body).value),
  },
  { method: 'DELETE', pattern: new RegExp(`^/payments/${ID}$`), run: (c, id) => (c.removePayment(id), OK) },
  { method: 'DELETE', pattern: new RegExp(`^/refunds/${ID}$`), run: (c, id) => (c.removeRefund(id), OK) },
  {
    method: 'POST',
    pattern: /^\/refund-outcome$/,
    run: (c, _id, body) => {
      const input = parse(
        z.object({
          outcome: z.enum(['succeeded', 'pending', 'canceled', 'error500']),
          times: z.number().int().min(1).optional(),
          cancellationDetails: refundCancellation.optional(),
        }),
        body,
      );
      c.setRefundOutcome(input.outcome, input);
      return OK;
    },
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/refunds/${ID}/settle$`),
    run: (c, id, body) => {
      const input = parse(
        z.object({ status: z.enum(['succeeded', 'canceled']), cancellationDetails: refundCancellation.optional() }),
        body,
      );
      return c.settleRefund(id, input.status, input.cancellationDetails);
    },
  },
  { method: 'GET', pattern: /^\/faults$/, run: (c) => c.faults() },
  { method: 'POST', pattern: /^\/faults$/, run: (c, _id, body) => c.addFault(parse(faultSchema, body)) },
  { method: 'DELETE', pattern: /^\/faults$/, run: (c) => (c.clearFaults(), OK) },
  { method: 'POST', pattern: /^\/faults\/release$/, run: (c) => ({ released: c.releaseHeld() }) },
  {
    method: 'POST',
    pattern: /^\/notifications\/auto$/,
    run: (c, _id, body) => (c.setAutoNotify(parse(z.object({ enabled: z.boolean() }), body).enabled), OK),
  },
  {
    method: 'POST',
    pattern: /^\/webhook$/,
    run: (c, _id, body) => {
      const input = parse(z.object({ url: z.url().nullable(), shopId: z.string().optional() }), body);
      c.setWebhookUrl(input.url, input.shopId);
      return OK;
    },
  },
  { method: 'POST', pattern: /^\/notify$/, run: (c, _id, body) => c.notify(parse(notifySchema, body)) },
  { method: 'GET', pattern: /^\/notifications$/, run: (c) => c.notifications() },
  { method: 'POST', pattern: /^\/notifications\/flush$/, run: async (c) => (await c.flushNotifications(), OK) },
  { method: 'POST', pattern: new RegExp(`^/notifications/${ID}/redeliver$`), run: (c, id) => c.redeliver(id) },
  { method: 'GET', pattern: /^\/requests$/, run: (c) => c.requests() },
  { method: 'DELETE', pattern: /^\/requests$/, run: (c) => (c.clearRequests(), OK) },
];

/**
 * Serves `/_control/*` (path given without the prefix): JSON in, JSON out, no auth. Errors are
 * `{ "error": message }` with 400 (bad body), 404 (unknown route or object) or 409 (wrong state).
 */
export async function handleControl(
  control: ProviderEmulatorControl,
  method: string,
  path: string,
  rawBody: string,
): Promise<ControlAnswer> {
  try {
    for (const route of ROUTES) {
      const match = route.pattern.exec(path);
      if (!match || route.method !== method) continue;
      let body: unknown;
      try {
        body = parseJson(rawBody);
      } catch {
        throw new ControlError(400, 'the body is not valid JSON');
      }
      return { status: 200, body: await route.run(control, decodeURIComponent(match[1] ?? ''), body) };
    }
    throw new ControlError(404, `no control route ${method} /_control${path}`);
  } catch (err: unknown) {
    if (err instanceof ControlError) return { status: err.status, body: { error: err.message } };
    throw err;
  }
}

function parse<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ` : '') + i.message);
  throw new ControlError(400, problems.join('; '));
}
