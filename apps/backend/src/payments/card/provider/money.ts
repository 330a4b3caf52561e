import type { SettlementCurrency } from '../../../config/index.js';

/** Minor-unit exponents of the currencies the card rail settles in (ISO 4217): one for each a shop may be configured with. */
const EXPONENTS: Record<SettlementCurrency, number> = { RUB: 2, USD: 2, EUR: 2, KZT: 2, BYN: 2 };

function exponentOf(currency: string): number {
  const e = Object.hasOwn(EXPONENTS, currency) ? EXPONENTS[currency as SettlementCurrency] : undefined;
  if (e === undefined) throw new RangeError(`unsupported currency ${currency}`);
  return e;
}

/** Formats minor units as the provider's decimal string, e.g. 12345n RUB -> "123.45". Never a float. */
export function formatAmount(minor: bigint, currency: string): string {
  if (minor < 0n) throw new RangeError('amount must not be negative');
  const e = exponentOf(currency);
  if (e === 0) return minor.toString();
  const digits = minor.toString().padStart(e + 1, '0');
  return `${digits.slice(0, -e)}.${digits.slice(-e)}`;
}

/**
 * Parses the provider's decimal string into minor units, digit by digit (never a float). Takes every
 * spelling YooKassa uses for an amount — whole units, one or as many decimals as the currency has
 * ("100", "100.0", "100.00") — and refuses anything else: a sign, an exponent, a comma, spaces, a bare
 * point, or more decimals than the currency has.
 */
export function parseAmount(value: string, currency: string): bigint {
  const e = exponentOf(currency);
  const m = /^(\d{1,18})(?:\.(\d{1,}))?$/.exec(value);
  if (!m) throw new RangeError(`not an amount: ${JSON.stringify(value)}`);
  const fraction = m[2] ?? '';
  if (fraction.length > e) throw new RangeError(`amount ${value} has more than ${e} decimals for ${currency}`);
  return BigInt(m[1] as string) * 10n ** BigInt(e) + BigInt(fraction.padEnd(e, '0') || '0');
}
