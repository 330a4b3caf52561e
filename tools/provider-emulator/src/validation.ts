import { z } from 'zod';
import { invalidRequest } from './errors.js';
import { parseMoney } from './money.js';

/**
 * Validates a request body against a schema. The first problem becomes 400 invalid_request whose
 * `parameter` is the dotted path YooKassa would name ("amount.value", "receipt.items[0].vat_code").
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const parameter = issue ? pathOf(issue.path) : undefined;
  const message = issue?.message ?? 'invalid request body';
  throw invalidRequest(parameter ? `${parameter}: ${message}` : message, parameter);
}

function pathOf(path: readonly PropertyKey[]): string | undefined {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? undefined : out;
}

/** YooKassa's description of a malformed amount (it names the parameter, e.g. `amount.value`). */
export const AMOUNT_FORMAT_ERROR = 'Specify the amount in the correct format, for example 100.00';

/**
 * `{ value, currency }` as YooKassa takes it: value a string of whole units with at most two
 * decimals ("100", "100.0", "100.00") and above zero; a JSON number, a sign, an exponent, a comma or
 * a third decimal is refused (see money.ts for the evidence), and currency an ISO 4217 code.
 */
export const amountSchema = z.object(
  {
    value: z
      .string({ error: AMOUNT_FORMAT_ERROR })
      .refine((v) => parseMoney(v) !== null, AMOUNT_FORMAT_ERROR)
      .refine((v) => (parseMoney(v) ?? 0n) > 0n, 'The amount must be greater than zero'),
    currency: z.string({ error: 'must be a currency code' }).regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code, e.g. "RUB"'),
  },
  { error: 'is required: { value, currency }' },
);

/** A parsed amount; `minor` is the value in minor units. */
export function minorOf(amount: z.infer<typeof amountSchema>): bigint {
  const minor = parseMoney(amount.value);
  if (minor === null) throw new TypeError('amount was not validated');
  return minor;
}

/** Metadata: at most 16 string values, keys up to 32 characters, values up to 512. */
export const metadataSchema = z
  .record(z.string().max(32, 'keys must be at most 32 characters'), z.string({ error: 'values must be strings' }).max(512))
  .refine((m) => Object.keys(m).length <= 16, 'must have at most 16 keys');

/** An absolute http(s) URL of at most 2048 characters. */
export const urlSchema = z
  .string({ error: 'must be a URL' })
  .max(2048)
  .refine((v) => {
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

/** A top-level field of an unvalidated JSON body exactly as sent (kept for tests to read back). */
export function rawField(body: unknown, name: string): unknown {
  if (typeof body !== 'object' || body === null || !(name in body)) return undefined;
  return (body as Record<string, unknown>)[name];
}
