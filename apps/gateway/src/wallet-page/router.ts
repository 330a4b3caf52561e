import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import express, { type RequestHandler, type Router } from 'express';
import { pickLanguage, type Language } from '@wordgame/i18n';
import { escapeHtml } from '../http/index.js';
import { WALLET_CSP } from './csp.js';

/** The page's client-side routes: the wallet, also where the card checkout returns. */
export const WALLET_ROUTES: readonly string[] = ['/wallet', '/wallet/', '/wallet/return'];

/** The operator's policy pages the wallet's settings view links (PRIVACY_POLICY_URL, TERMS_OF_SERVICE_URL). */
export interface WalletPageLinks {
  privacyPolicyUrl: string;
  termsOfServiceUrl: string;
}

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'content-security-policy': WALLET_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin-allow-popups',
  });
  next();
};

/** The wallet page's language when the request names none it has (the page's own default, wallet-web launch/language.ts). */
const PAGE_DEFAULT_LANGUAGE: Language = 'ru';

/**
 * The page with its `<html lang>` set to `language`: the language the page will show on the web
 * (the browser's first known one), so the document never declares Russian while showing English
 * before or without its script; the script sets it again from the language it chooses.
 */
export function withLanguage(page: string, language: Language): string {
  return page.replace(/<html\b[^>]*>/i, `<html lang="${language}">`);
}

/** True when `dir` holds a built wallet page (index.html). */
export function walletPageBuilt(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

/**
 * The page's settings as data attributes of its `<html>` element (escaped; the page reads them with
 * `dataset`), so the page learns them with no inline script and no extra request.
 */
export function withPageSettings(index: string, links: WalletPageLinks): string {
  const attrs = ` data-privacy-policy-url="${escapeHtml(links.privacyPolicyUrl)}" data-terms-of-service-url="${escapeHtml(links.termsOfServiceUrl)}"`;
  return index.replace(/<html\b/i, (tag) => `${tag}${attrs}`);
}

/**
 * Serves the built wallet page (dist/apps/wallet-web): hashed assets under /wallet/assets (cached
 * for a year, immutable), index.html for each client-side route (never cached, read afresh so a
 * rebuild is served at once, carrying the operator's policy links), every answer with the strict
 * CSP. The e-mail confirmation page is not part of it (confirm-page.ts).
 */
export function walletPageRouter(dir: string, links: WalletPageLinks): Router {
  const root = resolve(dir);
  const router = express.Router();
  router.use('/wallet', securityHeaders);
  router.use(
    '/wallet/assets',
    express.static(join(root, 'assets'), {
      index: false,
      dotfiles: 'ignore',
      immutable: true,
      maxAge: '365d',
      fallthrough: true,
      redirect: false,
    }),
  );
  router.get(WALLET_ROUTES as string[], (req, res, next) => {
    res.set('cache-control', 'no-cache');
    readFile(join(root, 'index.html'), 'utf8')
      .then((page) =>
        res.type('html').send(withPageSettings(withLanguage(page, pickLanguage(req.acceptsLanguages(), PAGE_DEFAULT_LANGUAGE)), links)),
      )
      .catch(next);
  });
  return router;
}
