import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumPath } from '@wordgame/testkit';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** Where the browser test writes its screenshots (CI keeps .reports as artifacts; git ignores it). */
export const SCREENSHOT_DIR = join(ROOT, '.reports/wallet-web');

/** The two viewports every tab is captured at: a phone and a laptop. */
export const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
] as const;

/** Builds the wallet page from its sources into `outDir` with the project's own Vite config. */
export function buildWalletPage(outDir: string): void {
  const vite = join(ROOT, 'node_modules/vite/bin/vite.js');
  const res = spawnSync(process.execPath, [vite, 'build', '--config', 'apps/wallet-web/vite.config.ts', '--logLevel', 'warn'], {
    cwd: ROOT,
    env: { ...process.env, WALLET_WEB_OUT_DIR: outDir },
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`wallet page build failed: ${res.stderr}`);
}

/** Chromium (testkit's chromiumPath: CHROMIUM_PATH or PATH), headless, with nothing reaching out on its own (each launch gets a fresh temporary profile). */
export function launchWalletChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** What a page reported that a strict-CSP page must never report: uncaught errors and refused content. */
export function watchPage(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(`csp: ${msg.text()}`);
  });
  return problems;
}

/**
 * Interactive elements without an accessible name (label, aria-label(ledby), text or title): a
 * `tag#id` entry for each. Evaluated in the page (the test project has no DOM typings).
 */
export const UNNAMED_CONTROLS = `(() => {
  const nameOf = (el) => {
    const by = el.getAttribute('aria-labelledby');
    const labelled = by ? by.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ') : '';
    const labels = el.labels ? Array.from(el.labels).map((l) => l.textContent ?? '').join(' ') : '';
    return [el.getAttribute('aria-label') ?? '', labelled, labels, el.tagName === 'INPUT' ? '' : el.textContent ?? '', el.getAttribute('title') ?? ''].join(' ').trim();
  };
  return Array.from(document.querySelectorAll('button, input, select, textarea, a[href], [role=tab], [role=tabpanel]'))
    .filter((el) => !(el.type === 'hidden') && !nameOf(el))
    .map((el) => el.tagName.toLowerCase() + '#' + (el.id || '?'));
})()`;

/** Whether the page scrolls sideways (text unreadable at phone width when it does). */
export const SCROLLS_SIDEWAYS = `document.documentElement.scrollWidth > document.documentElement.clientWidth + 1`;

/** Captures each tab of the page at both viewports as `<context>-<tab>-<w>x<h>.png`; answers the files. */
export async function captureTabs(page: Page, context: string): Promise<string[]> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const files: string[] = [];
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    for (const tab of ['wallet', 'buy', 'history', 'profile']) {
      await showTab(page, tab);
      if ((await page.evaluate<boolean>(SCROLLS_SIDEWAYS)) === true)
        throw new Error(`${context} ${tab} scrolls sideways at ${viewport.width} px`);
      const file = join(SCREENSHOT_DIR, `${context}-${tab}-${viewport.width}x${viewport.height}.png`);
      await page.screenshot({ path: file, fullPage: true });
      files.push(file);
    }
  }
  await showTab(page, 'wallet');
  return files;
}

/** Opens a tab and waits until its panel is filled. */
export async function showTab(page: Page, tab: string): Promise<void> {
  await page.click(`#tab-${tab}`);
  await page.waitForSelector(`#panel[data-tab="${tab}"]:not([aria-busy]) > *`);
}

/** The part of a DOM element the page evaluations use (the test project has no DOM typings). */
type El = { getAttribute(name: string): string | null };

/** Attribute `name` of every element matching `selector`, in document order. */
export function attributes(page: Page, selector: string, name: string): Promise<(string | null)[]> {
  return page.$$eval(selector, (items: El[], attr: string) => items.map((i) => i.getAttribute(attr)), name);
}
