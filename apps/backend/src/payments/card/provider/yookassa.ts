import { z } from 'zod';
import { formatAmount, parseAmount } from './money.js';
import {
  ProviderError,
  type CreatePaymentInput,
  type CreateRefundInput,
  type ListPage,
  type ListQuery,
  type PaymentProvider,
  type ProviderPayment,
  type ProviderRefund,
  type Receipt,
  type Shop,
} from './types.js';

const amountSchema = z.object({ value: z.string(), currency: z.string() });

const paymentSchema = z.object({
  id: z.string().min(1),
  status: z.enum(['pending', 'waiting_for_capture', 'succeeded', 'canceled']),
  amount: amountSchema,
  test: z.boolean(),
  paid: z.boolean().default(false),
  metadata: z.record(z.string(), z.string()).nullish(),
  confirmation: z.object({ confirmation_url: z.string().optional() }).nullish(),
  cancellation_details: z.object({ party: z.string(), reason: z.string() }).nullish(),
  refunded_amount: amountSchema.nullish(),
  created_at: z.string().optional(),
});

const refundSchema = z.object({
  id: z.string().min(1),
  payment_id: z.string().min(1),
  status: z.enum(['pending', 'succeeded', 'canceled']),
  amount: amountSchema,
  created_at: z.string().optional(),
});

const listSchema = z.object({ type: z.literal('list'), items: z.array(z.unknown()), next_cursor: z.string().min(1).nullish() });

const errorSchema = z.object({ code: z.string().optional(), description: z.string().optional(), parameter: z.string().optional() });

export interface YooKassaOptions {
  /** API root including the version, e.g. `https://api.yookassa.ru/v3`. */
  apiUrl: string;
  /** Per-call deadline; a call that outlives it is `unavailable` (its outcome unknown). */
  timeoutMs?: number;
}

/** The list filters YooKassa documents: created_at.gte / created_at.lt, limit (≤ 100), cursor. */
function listParams(query: ListQuery): string {
  const params = new URLSearchParams({
    'created_at.gte': query.from.toISOString(),
    'created_at.lt': query.to.toISOString(),
    limit: String(Math.min(100, Math.max(1, query.limit ?? 100))),
  });
  if (query.cursor !== undefined) params.set('cursor', query.cursor);
  return params.toString();
}

function createdAtOf(raw: string | undefined): { createdAt?: Date } {
  if (raw === undefined) return {};
  const at = new Date(raw);
  return Number.isNaN(at.getTime()) ? {} : { createdAt: at };
}

function receiptBody(receipt: Receipt): Record<string, unknown> {
  return {
    customer: { email: receipt.email },
    items: receipt.items.map((item) => ({
      description: item.description.slice(0, 128),
      quantity: '1.00',
      amount: { value: formatAmount(item.amountMinor, item.currency), currency: item.currency },
      vat_code: receipt.vatCode,
      payment_subject: 'service',
      payment_mode: 'full_payment',
    })),
  };
}

/**
 * The YooKassa v3 adapter: HTTP Basic with the shop's id and secret key, `Idempotence-Key` on every
 * POST, amounts as two-decimal strings converted from and to integer minor units. Payments are
 * single-stage (`capture: true`) with redirect confirmation.
 */
export class YooKassaProvider implements PaymentProvider {
  readonly name = 'yookassa';

  constructor(private readonly options: YooKassaOptions) {}

  async createPayment(shop: Shop, input: CreatePaymentInput, idempotenceKey: string): Promise<ProviderPayment> {
    const body = {
      amount: { value: formatAmount(input.amountMinor, input.currency), currency: input.currency },
      capture: true,
      confirmation: { type: 'redirect', return_url: input.returnUrl },
      description: input.description.slice(0, 128),
      metadata: input.metadata,
      ...(input.receipt ? { receipt: receiptBody(input.receipt) } : {}),
    };
    return this.toPayment(await this.request(shop, 'create payment', 'POST', '/payments', body, idempotenceKey), paymentSchema);
  }

  async getPayment(shop: Shop, paymentId: string): Promise<ProviderPayment> {
    return this.toPayment(await this.request(shop, 'get payment', 'GET', `/payments/${encodeURIComponent(paymentId)}`), paymentSchema);
  }

  async createRefund(shop: Shop, input: CreateRefundInput, idempotenceKey: string): Promise<ProviderRefund> {
    const body = {
      payment_id: input.paymentId,
      amount: { value: formatAmount(input.amountMinor, input.currency), currency: input.currency },
      ...(input.description ? { description: input.description.slice(0, 250) } : {}),
      ...(input.receipt ? { receipt: receiptBody(input.receipt) } : {}),
    };
    return this.toRefund(await this.request(shop, 'create refund', 'POST', '/refunds', body, idempotenceKey));
  }

  async getRefund(shop: Shop, refundId: string): Promise<ProviderRefund> {
    return this.toRefund(await this.request(shop, 'get refund', 'GET', `/refunds/${encodeURIComponent(refundId)}`));
  }

  async listPayments(shop: Shop, query: ListQuery): Promise<ListPage<ProviderPayment>> {
    const page = this.parse(listSchema, await this.request(shop, 'list payments', 'GET', `/payments?${listParams(query)}`), 'payment list');
    return { items: page.items.map((raw) => this.toPayment(raw, paymentSchema)), nextCursor: page.next_cursor ?? null };
  }

  async listRefunds(shop: Shop, query: ListQuery): Promise<ListPage<ProviderRefund>> {
    const page = this.parse(listSchema, await this.request(shop, 'list refunds', 'GET', `/refunds?${listParams(query)}`), 'refund list');
    return { items: page.items.map((raw) => this.toRefund(raw)), nextCursor: page.next_cursor ?? null };
  }

  private toPayment(raw: unknown, schema: typeof paymentSchema): ProviderPayment {
    const p = this.parse(schema, raw, 'payment');
    return {
      id: p.id,
      status: p.status,
      amountMinor: this.amountOf(p.amount, 'payment'),
      currency: p.amount.currency,
      test: p.test,
      paid: p.paid,
      metadata: p.metadata ?? {},
      ...(p.confirmation?.confirmation_url ? { confirmationUrl: p.confirmation.confirmation_url } : {}),
      ...(p.cancellation_details ? { cancellation: p.cancellation_details } : {}),
      refundedMinor: p.refunded_amount ? this.amountOf(p.refunded_amount, 'payment') : 0n,
      ...createdAtOf(p.created_at),
    };
  }

  private toRefund(raw: unknown): ProviderRefund {
    const r = this.parse(refundSchema, raw, 'refund');
    return {
      id: r.id,
      paymentId: r.payment_id,
      status: r.status,
      amountMinor: this.amountOf(r.amount, 'refund'),
      currency: r.amount.currency,
      ...createdAtOf(r.created_at),
    };
  }

  /**
   * An answer's amount in minor units. YooKassa writes `value` as whole units with up to two
   * decimals ("100", "100.0", "100.00"); any of them is read exactly (no float). A value that is not
   * an amount, or a currency the rail does not settle in, makes the answer unusable: the outcome is
   * unknown (`unavailable`), as for any answer of an unexpected shape, never a crash.
   */
  private amountOf(amount: z.infer<typeof amountSchema>, what: string): bigint {
    try {
      return parseAmount(amount.value, amount.currency);
    } catch (err: unknown) {
      if (!(err instanceof RangeError)) throw err;
      throw new ProviderError('unavailable', this.name, `read ${what}`, `unexpected ${what} amount: ${err.message}`);
    }
  }

  private parse<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
    const parsed = schema.safeParse(raw);
    if (!parsed.success)
      throw new ProviderError(
        'unavailable',
        this.name,
        `read ${what}`,
        `unexpected ${what} shape: ${parsed.error.issues[0]?.path.join('.') ?? ''}`,
      );
    return parsed.data;
  }

  private async request(
    shop: Shop,
    operation: string,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    idempotenceKey?: string,
  ): Promise<unknown> {
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`${shop.id}:${shop.secretKey}`).toString('base64')}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotenceKey !== undefined) headers['idempotence-key'] = idempotenceKey;
    let res: Response;
    let payload: unknown;
    try {
      res = await fetch(`${this.options.apiUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
      payload = await res.json().catch(() => undefined);
    } catch (err: unknown) {
      throw new ProviderError('unavailable', this.name, operation, err instanceof Error ? err.name : 'transport failure');
    }
    if (res.ok) return payload;
    const e = errorSchema.safeParse(payload);
    const detail = e.success ? [e.data.code, e.data.parameter, e.data.description].filter(Boolean).join(' ') : res.statusText;
    if (res.status === 404) throw new ProviderError('not_found', this.name, operation, detail, 404);
    if (res.status === 429 || res.status >= 500) throw new ProviderError('unavailable', this.name, operation, detail, res.status);
    throw new ProviderError('rejected', this.name, operation, detail, res.status);
  }
}
