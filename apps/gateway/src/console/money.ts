/** Currencies counted in whole units: chips and stars. Others are ISO 4217 with 2 minor digits. */
const WHOLE = new Set(['CHIPS', 'XTR', 'JPY', 'KRW']);

/** Formats an integer amount in minor units for display, exactly (bigint arithmetic, no float). */
export function formatAmount(amount: bigint, currency: string): string {
  if (WHOLE.has(currency)) return `${amount.toString()} ${currency}`;
  const sign = amount < 0n ? '-' : '';
  const abs = amount < 0n ? -amount : amount;
  return `${sign}${(abs / 100n).toString()}.${(abs % 100n).toString().padStart(2, '0')} ${currency}`;
}
