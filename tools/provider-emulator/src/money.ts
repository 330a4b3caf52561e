/**
 * Money as integer minor units. YooKassa carries amounts as decimal strings; floats would round, so
 * values are parsed digit by digit into bigint kopecks and formatted back the same way.
 *
 * What YooKassa accepts (API v3 reference, `amount.value`: a string, the decimal separator a point,
 * no thousands separator, as many decimals as the currency has — two for every currency it
 * settles): whole units and one or two decimals. Its own SDKs have sent each form: yookassa-python
 * 2.0 sent `str(Decimal(round(float(v), 2)))` ("100", "100.5"), 2.1 sent `str(round(float(v), 2))`
 * ("100.0"), later versions and the PHP SDK send "100.00"; YooMoney confirmed on the Python SDK's
 * tracker (issue 4, May 2021) that a value without the second decimal is not an error.
 */

const MONEY = /^(0|[1-9]\d{0,14})(?:\.(\d{1,2}))?$/;

/**
 * Parses an API amount value: unsigned decimal digits without leading zeros, optionally a point and
 * one or two decimals ("100", "100.0", "100.00", "0.5"). Returns minor units, or null for anything
 * else: a sign, an exponent, a comma, spaces, more than two decimals, a bare point, leading zeros.
 */
export function parseMoney(value: string): bigint | null {
  const match = MONEY.exec(value);
  if (!match) return null;
  const [, units = '0', cents = ''] = match;
  return BigInt(units) * 100n + BigInt(cents.padEnd(2, '0'));
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
