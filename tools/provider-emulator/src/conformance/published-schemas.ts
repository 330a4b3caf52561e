import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { createGenerator } from 'ts-json-schema-generator';

/** The answer types of published-types.ts, each validated by a schema generated from it. */
export type AnswerType = 'PaymentAnswer' | 'RefundAnswer' | 'PaymentListAnswer' | 'RefundListAnswer' | 'ErrorAnswer';

const TYPES: readonly AnswerType[] = ['PaymentAnswer', 'RefundAnswer', 'PaymentListAnswer', 'RefundListAnswer', 'ErrorAnswer'];

/** Validators for the published answer types. */
export interface PublishedSchemas {
  /** Problems of `value` as a `type` ("/amount/value must be string"), empty when it conforms. */
  problems(type: AnswerType, value: unknown): string[];
}

/**
 * Generates JSON schemas from the SDK's .d.ts (through published-types.ts) with
 * ts-json-schema-generator, objects closed (`additionalProperties: false`, so a field the types do
 * not know is a problem too), and compiles them with ajv. Done once per test file (about a second).
 */
export function loadPublishedSchemas(): PublishedSchemas {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const generator = createGenerator({
    path: `${here}published-types.ts`,
    tsconfig: `${here}../../tsconfig.json`,
    type: '*',
    expose: 'export',
    skipTypeCheck: true,
    additionalProperties: false,
  });
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validators = new Map<AnswerType, ValidateFunction>();
  for (const type of TYPES) validators.set(type, ajv.compile(generator.createSchema(type)));
  return {
    problems(type, value) {
      const validate = validators.get(type);
      if (!validate) throw new Error(`no schema for ${type}`);
      if (validate(value)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`);
    },
  };
}

/** The reference's amount: a string with a point and the currency's two decimals ("1000.00"), and an ISO 4217 code. */
const AMOUNT_VALUE = /^(0|[1-9]\d*)\.\d{2}$/;

/**
 * Checks what the types cannot: every `{value, currency}` in an answer carries `value` as the
 * reference writes it (a string, always with two decimals for the currencies YooKassa settles in)
 * and `currency` as three capital letters. Returns the paths that do not.
 */
export function amountProblems(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => amountProblems(item, `${path}/${i}`));
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  if ('value' in record && 'currency' in record) {
    if (typeof record.value !== 'string' || !AMOUNT_VALUE.test(record.value))
      problems.push(`${path}/value ${JSON.stringify(record.value)}`);
    if (typeof record.currency !== 'string' || !/^[A-Z]{3}$/.test(record.currency))
      problems.push(`${path}/currency ${JSON.stringify(record.currency)}`);
  }
  for (const [key, child] of Object.entries(record)) problems.push(...amountProblems(child, `${path}/${key}`));
  return problems;
}
