import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { dailyChart, type DayTotal } from '../src/console/chart.js';
import { html } from '../src/http/html.js';
import { page } from '../src/console/layout.js';
import { launchChromium } from './console-support.js';

/** The DOM the page functions touch (the test compiles without the DOM library). */
interface Box {
  left: number;
  right: number;
  bottom: number;
}
interface El {
  getAttribute(name: string): string | null;
  getBoundingClientRect(): Box;
  querySelectorAll(selector: string): Iterable<El>;
}

const DAY = 86_400n;
const from = BigInt(Date.UTC(2026, 10, 1) / 1000); // 2026-11-01
const day = (n: number) => from + BigInt(n) * DAY;

/** A week of RUB (a refund day included) and chips on two days. */
const week: DayTotal[] = [
  { dayUnix: day(0), currency: 'RUB', amount: 9_900n },
  { dayUnix: day(2), currency: 'RUB', amount: 24_950n },
  { dayUnix: day(3), currency: 'RUB', amount: -9_900n },
  { dayUnix: day(6), currency: 'RUB', amount: 100n },
  { dayUnix: day(1), currency: 'CHIPS', amount: 300n },
  { dayUnix: day(5), currency: 'CHIPS', amount: 45n },
];

describe('console daily chart', () => {
  const week7 = dailyChart(week, from, day(7)).value;

  it('titles every bar with its day and amount, zero days included', () => {
    for (const t of [
      '2026-11-01: 99.00 RUB',
      '2026-11-02: 0.00 RUB',
      '2026-11-03: 249.50 RUB',
      '2026-11-04: -99.00 RUB',
      '2026-11-07: 1.00 RUB',
    ])
      expect(week7).toContain(`<title>${t}</title>`);
    expect(week7).toContain('<title>2026-11-02: 300 CHIPS</title>');
    expect(week7.match(/<g class="bar" /g)).toHaveLength(14);
  });

  it('labels the date axis with the first and the last day', () => {
    expect(week7).toContain('class="tick-date">2026-11-01</text>');
    expect(week7).toContain('class="tick-date">2026-11-07</text>');
  });

  it('labels the amount axis from the largest day down to zero, and below zero when a day is negative', () => {
    const rub = week7.slice(week7.indexOf('data-chart="RUB"'), week7.indexOf('data-chart="CHIPS"'));
    for (const a of ['249.50 RUB', '124.75 RUB', '0.00 RUB', '-124.75 RUB', '-249.50 RUB'])
      expect(rub).toContain(`class="tick-amount">${a}</text>`);
    const chips = week7.slice(week7.indexOf('data-chart="CHIPS"'));
    expect(chips).toContain('class="tick-amount">300 CHIPS</text>');
    expect(chips).not.toContain('-150 CHIPS');
  });

  it('writes the value on a bar wide enough to carry it', () => {
    expect(week7).toContain('class="bar-value">249.50</text>');
    expect(week7).toContain('class="bar-value">-99.00</text>');
    const month = dailyChart(week, from, day(30)).value;
    expect(month).not.toContain('bar-value');
    expect(month).toContain('<title>2026-11-03: 249.50 RUB</title>');
    expect(month).toContain('class="tick-date">2026-11-30</text>');
  });

  it('is an image with a summary as its accessible name', () => {
    expect(week7).toContain(
      'role="img" aria-label="Daily totals in RUB, 2026-11-01 to 2026-11-07 (UTC): total 250.50 RUB, largest 249.50 RUB on 2026-11-03"',
    );
    expect(week7).toContain(
      'aria-label="Daily totals in CHIPS, 2026-11-01 to 2026-11-07 (UTC): total 345 CHIPS, largest 300 CHIPS on 2026-11-02"',
    );
  });

  it('says in words that a range has no operations instead of drawing an empty box', () => {
    const empty = dailyChart([], from, day(30)).value;
    expect(empty).toBe(
      '<p class="chart-empty" role="status">No operations in this range (2026-11-01 to 2026-11-30, UTC), so there is nothing to chart.</p>',
    );
    expect(dailyChart([{ dayUnix: day(40), currency: 'RUB', amount: 5n }], from, day(30)).value).toContain('No operations in this range');
    expect(dailyChart([], from, from).value).toContain('No operations in this range');
  });

  it('charts a range whose days all net to zero with one zero tick', () => {
    const zero = dailyChart([{ dayUnix: day(1), currency: 'XTR', amount: 0n }], from, day(3)).value;
    expect(zero).toContain('every day zero');
    expect(zero.match(/class="tick-amount"/g)).toHaveLength(1);
  });

  it('escapes what it is given', () => {
    const hostile = dailyChart([{ dayUnix: day(0), currency: '<img src=x onerror=alert(1)>"', amount: 1n }], from, day(2)).value;
    expect(hostile).not.toContain('<img');
    expect(hostile).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;');
  });
});

describe('console daily chart in a browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('renders readable axes and bar titles (screenshot in .reports/console-chart.png)', async () => {
    const tab = await browser.newPage({ viewport: { width: 760, height: 900 } });
    const body = html`<h2>A week</h2>${dailyChart(week, from, day(7))}<h2>A month</h2>${dailyChart(week, from, day(30))}<h2>Nothing</h2>${dailyChart([], from, day(30))}`;
    await tab.setContent(page('Ledger', body).value);
    const names = await tab.$$eval('svg[role=img]', (svgs: El[]) => svgs.map((s) => s.getAttribute('aria-label') ?? ''));
    expect(names).toHaveLength(4);
    expect(await tab.locator('.tick-date').allTextContents()).toContain('2026-11-30');
    expect(await tab.locator('.chart-empty').textContent()).toContain('No operations in this range');
    // Every label sits inside its image: nothing is clipped off the left or bottom edge.
    const clipped = await tab.$$eval(
      'svg[role=img]',
      (svgs: El[]) =>
        svgs.flatMap((svg) => {
          const box = svg.getBoundingClientRect();
          return [...svg.querySelectorAll('text')]
            .map((t) => t.getBoundingClientRect())
            .filter((r: Box) => r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5);
        }).length,
    );
    expect(clipped).toBe(0);
    const dir = resolve(import.meta.dirname, '../../../.reports');
    mkdirSync(dir, { recursive: true });
    await tab.screenshot({ path: resolve(dir, 'console-chart.png'), fullPage: true });
    await tab.close();
  }, 60_000);
});
