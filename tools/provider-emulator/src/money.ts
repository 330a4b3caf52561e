/**
 * Money as integer minor units. YooKassa sends amounts as decimal strings ("100.00"); floats would
 * round, so values are parsed digit by digit into bigint kopecks and formatted back the same way.
 */

const MONEY = /^(0|[1-9]\d{0,14})\.(\d{2})$/;

/**
 * Parses an API amount value: a string with exactly two decimals and no sign, exponent or leading
 * zeros ("100.00", "0.50"). Returns minor units, or null when the string is not of that form.
 */
export function parseMoney(value: string): bigint | null {
  const match = MONEY.exec(value);
  if (!match) return null;
  const [, units = '0', cents = '00'] = match;
  return BigInt(units) * 100n + BigInt(cents);
}

/** Formats minor units as the API's amount value: two decimals, no grouping ("1234.50"). */
export function formatMoney(minor: bigint): string {
  if (minor < 0n) throw new RangeError('money must not be negative');
  const cents = (minor % 100n).toString().padStart(2, '0');
  return `${(minor / 100n).toString()}.${cents}`;
}

const QUANTITY = /^(0|[1-9]\d{0,9})(?:\.(\d{1,3}))?$/;

/**
 * Parses a receipt item quantity ("2", "1.5", "0.125", or the same as a JSON number) into
 * thousandths, so that a line total is computed without floats. Null when not of that form.
 */
export function parseQuantityMilli(value: string | number): bigint | null {
  const text = typeof value === 'number' ? String(value) : value;
  const match = QUANTITY.exec(text);
  if (!match) return null;
  const [, whole = '0', fraction = ''] = match;
  return BigInt(whole) * 1000n + BigInt(fraction.padEnd(3, '0'));
}

/** A line total in minor units: unit price times quantity (in thousandths), rounded half up. */
export function lineTotal(priceMinor: bigint, quantityMilli: bigint): bigint {
  return (priceMinor * quantityMilli + 500n) / 1000n;
}

/** The fee taken from `minor` at `basisPoints` (1/100 of a percent), rounded half up. */
export function feeOf(minor: bigint, basisPoints: number): bigint {
  return (minor * BigInt(basisPoints) + 5000n) / 10000n;
}
