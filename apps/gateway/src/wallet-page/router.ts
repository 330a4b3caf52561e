import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type RequestHandler, type Router } from 'express';
import { WALLET_CSP } from './csp.js';

/** The page's client-side routes: the wallet, also where the card checkout returns. */
export const WALLET_ROUTES: readonly string[] = ['/wallet', '/wallet/', '/wallet/return'];

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'content-security-policy': WALLET_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin-allow-popups',
  });
  next();
};

/** True when `dir` holds a built wallet page (index.html). */
export function walletPageBuilt(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

/**
 * Serves the built wallet page (dist/apps/wallet-web): hashed assets under /wallet/assets (cached
 * for a year, immutable), index.html for each client-side route (never cached), every answer with
 * the strict CSP. The e-mail confirmation page is not part of it (confirm-page.ts).
 */
export function walletPageRouter(dir: string): Router {
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
  router.get(WALLET_ROUTES as string[], (_req, res, next) => {
    res.set('cache-control', 'no-cache');
    res.sendFile(join(root, 'index.html'), (err) => (err ? next(err) : undefined));
  });
  return router;
}
