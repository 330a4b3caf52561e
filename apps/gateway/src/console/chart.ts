import { html, type SafeHtml } from '../http/index.js';
import { formatAmount } from './money.js';

/** One UTC day's total in one currency. */
export interface DayTotal {
  dayUnix: bigint;
  currency: string;
  amount: bigint;
}

const DAY = 86_400n;
/** Plot area and the margins that hold the amount axis (left) and the date axis (bottom). */
const PLOT_W = 600;
const PLOT_H = 140;
const LEFT = 96;
const TOP = 16;
const BOTTOM = 34;
const W = LEFT + PLOT_W + 40;
const H = TOP + PLOT_H + BOTTOM;
/** Least room a date label needs, and a bar needs to carry its value as text. */
const DATE_LABEL_PX = 84;
const VALUE_LABEL_PX = 44;

/** Pixels to one decimal, so attributes stay short whatever the bar width. */
const px = (n: number): number => Math.round(n * 10) / 10;
const isoDay = (dayUnix: bigint): string => new Date(Number(dayUnix) * 1000).toISOString().slice(0, 10);
const abs = (v: bigint): bigint => (v < 0n ? -v : v);
/** The amount without its currency code, for text on a bar (the axis names the currency). */
const bare = (v: bigint, currency: string): string => formatAmount(v, currency).slice(0, -(currency.length + 1));

/** The y of an amount: `zero` is the axis line, `max` the largest magnitude, `span` the pixels it gets. */
function yOf(v: bigint, zero: number, max: bigint, span: number): number {
  return zero - Number((v * BigInt(span)) / max);
}

/** Amount ticks: the top, the middle and zero, mirrored below zero when a day is negative. */
function amountTicks(max: bigint, negative: boolean): bigint[] {
  const up = [max, max / 2n, 0n];
  return negative ? [...up, -max / 2n, -max] : up;
}

/** Day indexes to label: the first, the last, and evenly between as far as the labels fit. */
function dateTicks(dayCount: number, barW: number): number[] {
  const step = Math.max(1, Math.ceil(DATE_LABEL_PX / barW));
  const out: number[] = [];
  for (let i = 0; i < dayCount; i += step) out.push(i);
  const last = dayCount - 1;
  if (out[out.length - 1] !== last) {
    if (out.length > 1 && (last - (out[out.length - 1] ?? 0)) * barW < DATE_LABEL_PX) out.pop();
    out.push(last);
  }
  return out;
}

function currencyChart(days: readonly DayTotal[], currency: string, fromUnix: bigint, dayCount: number): SafeHtml {
  const byDay = new Map<bigint, bigint>();
  for (const d of days) if (d.currency === currency) byDay.set(d.dayUnix, (byDay.get(d.dayUnix) ?? 0n) + d.amount);
  const values = Array.from({ length: dayCount }, (_, i) => byDay.get(fromUnix + BigInt(i) * DAY) ?? 0n);
  let max = 0n;
  let peak = 0;
  let total = 0n;
  values.forEach((v, i) => {
    total += v;
    if (abs(v) > max) [max, peak] = [abs(v), i];
  });
  const negative = values.some((v) => v < 0n);
  const scale = max === 0n ? 1n : max;
  const span = negative ? PLOT_H / 2 : PLOT_H;
  const zero = TOP + span;
  const barW = PLOT_W / dayCount;
  const first = isoDay(fromUnix);
  const last = isoDay(fromUnix + BigInt(dayCount - 1) * DAY);
  const summary =
    `Daily totals in ${currency}, ${first} to ${last} (UTC): total ${formatAmount(total, currency)}` +
    (max === 0n
      ? ', every day zero'
      : `, largest ${formatAmount(values[peak] ?? 0n, currency)} on ${isoDay(fromUnix + BigInt(peak) * DAY)}`);

  const ticks = (max === 0n ? [0n] : amountTicks(max, negative)).map((t) => {
    const y = px(yOf(t, zero, scale, span));
    return html`<line x1="${LEFT}" y1="${y}" x2="${LEFT + PLOT_W}" y2="${y}" stroke="${t === 0n ? '#555' : '#e0e0e0'}"/><text x="${LEFT - 6}" y="${y + 4}" text-anchor="end" class="tick-amount">${formatAmount(t, currency)}</text>`;
  });
  const bars = values.map((v, i) => {
    const x = LEFT + i * barW;
    const h = Math.abs(yOf(v, zero, scale, span) - zero);
    const label = `${isoDay(fromUnix + BigInt(i) * DAY)}: ${formatAmount(v, currency)}`;
    const value =
      v !== 0n && barW >= VALUE_LABEL_PX
        ? html`<text x="${px(x + barW / 2)}" y="${px(v < 0n ? zero + h + 12 : zero - h - 3)}" text-anchor="middle" class="bar-value">${bare(v, currency)}</text>`
        : '';
    return html`<g class="bar" data-day="${isoDay(fromUnix + BigInt(i) * DAY)}" data-minor="${v}"><title>${label}</title><rect x="${px(x + 0.5)}" y="${px(v < 0n ? zero : zero - h)}" width="${px(Math.max(1, barW - 1))}" height="${px(h)}" fill="${v < 0n ? '#c62828' : '#2e7d32'}"/>${value}</g>`;
  });
  const dates = dateTicks(dayCount, barW).map((i) => {
    const x = px(LEFT + i * barW + barW / 2);
    return html`<line x1="${x}" y1="${TOP + PLOT_H}" x2="${x}" y2="${TOP + PLOT_H + 4}" stroke="#555"/><text x="${x}" y="${TOP + PLOT_H + 18}" text-anchor="middle" class="tick-date">${isoDay(fromUnix + BigInt(i) * DAY)}</text>`;
  });
  return html`<figure class="chart"><figcaption>Daily totals, ${currency} (UTC days; hover a bar for its day and amount)</figcaption>
<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary}" data-chart="${currency}" font-family="sans-serif" font-size="11">
<title>${summary}</title>
<g class="y-axis">${ticks}</g>
<g class="bars">${bars}</g>
<line x1="${LEFT}" y1="${TOP + PLOT_H}" x2="${LEFT + PLOT_W}" y2="${TOP + PLOT_H}" stroke="#555"/><line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${TOP + PLOT_H}" stroke="#555"/>
<g class="x-axis">${dates}</g>
</svg></figure>`;
}

/**
 * Inline SVG bar charts of daily totals, one per currency, over every UTC day of [fromUnix,
 * toUnix) (days without operations are zero). Each chart names what it shows: amounts on the left
 * axis, dates under the bars, each bar's day and amount as its `<title>` (and as text above it when
 * the bar is wide enough), and a summary as the accessible name. Heights are scaled with bigint
 * arithmetic; negative days (refunds outweighing sales) hang below the zero line. A range without
 * operations says so in words. No scripts, no external resources.
 */
export function dailyChart(days: readonly DayTotal[], fromUnix: bigint, toUnix: bigint): SafeHtml {
  const dayCount = Number((toUnix - fromUnix) / DAY);
  const inRange = days.filter((d) => d.dayUnix >= fromUnix && d.dayUnix < toUnix);
  const currencies = [...new Set(inRange.map((d) => d.currency))];
  if (currencies.length === 0 || dayCount <= 0) {
    const range = dayCount > 0 ? ` (${isoDay(fromUnix)} to ${isoDay(toUnix - DAY)}, UTC)` : '';
    return html`<p class="chart-empty" role="status">No operations in this range${range}, so there is nothing to chart.</p>`;
  }
  return html`${currencies.map((currency) => currencyChart(inRange, currency, fromUnix, dayCount))}`;
}
