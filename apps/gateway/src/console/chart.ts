import { html, type SafeHtml } from './html.js';
import { formatAmount } from './money.js';

/** One UTC day's total in one currency. */
export interface DayTotal {
  dayUnix: bigint;
  currency: string;
  amount: bigint;
}

const W = 600;
const H = 120;

/**
 * Inline SVG bar charts of daily totals, one per currency, over every day of the range (days
 * without operations are zero). Bar heights are scaled with bigint arithmetic; negative days
 * (refunds outweighing sales) hang below the axis. No scripts, no external resources.
 */
export function dailyChart(days: readonly DayTotal[], fromUnix: bigint, toUnix: bigint): SafeHtml {
  const currencies = [...new Set(days.map((d) => d.currency))];
  const dayCount = Number((toUnix - fromUnix) / 86_400n);
  if (currencies.length === 0 || dayCount <= 0) return html`<p>No operations to chart.</p>`;
  const barW = Math.max(1, Math.floor(W / dayCount));
  return html`${currencies.map((currency) => {
    const byDay = new Map(days.filter((d) => d.currency === currency).map((d) => [d.dayUnix, d.amount]));
    let max = 1n;
    for (const v of byDay.values()) max = v < 0n ? (-v > max ? -v : max) : v > max ? v : max;
    const half = BigInt(H / 2);
    const bars = Array.from({ length: dayCount }, (_, i) => {
      const day = fromUnix + BigInt(i) * 86_400n;
      const v = byDay.get(day) ?? 0n;
      const h = Number(((v < 0n ? -v : v) * half) / max);
      const y = v < 0n ? H / 2 : H / 2 - h;
      const label = `${new Date(Number(day) * 1000).toISOString().slice(0, 10)}: ${formatAmount(v, currency)}`;
      return html`<rect x="${i * barW}" y="${y}" width="${Math.max(1, barW - 1)}" height="${h}" fill="${v < 0n ? '#c62828' : '#2e7d32'}"><title>${label}</title></rect>`;
    });
    return html`<figure><figcaption>Daily totals, ${currency} (UTC days)</figcaption>
<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="daily totals ${currency}" data-chart="${currency}">
<line x1="0" y1="${H / 2}" x2="${W}" y2="${H / 2}" stroke="#999"/>${bars}</svg></figure>`;
  })}`;
}
