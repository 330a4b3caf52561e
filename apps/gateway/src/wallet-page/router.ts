import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type RequestHandler, type Router } from 'express';
import { WALLET_CSP } from './csp.js';

/** The page's client-side routes: the wallet (also where the card checkout returns) and the e-mail confirmation. */
export const WALLET_ROUTES: readonly string[] = ['/wallet', '/wallet/', '/wallet/return', '/wallet/confirm'];

/** Where the confirmation link the backend mails points (the REST operation profile.confirm_email). */
const CONFIRM_API_PATH = '/api/v1/user/profile/confirm-email';
const TOKEN = /^[A-Za-z0-9_-]{1,512}$/;

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
 * the strict CSP. A browser that opens a mailed confirmation link (`Accept: text/html`) is sent to
 * /wallet/confirm with the same token, which confirms by POST and says the outcome in words; an API
 * client asking for JSON keeps the JSON operation.
 */
export function walletPageRouter(dir: string): Router {
  const root = resolve(dir);
  const router = express.Router();
  router.get(CONFIRM_API_PATH, (req, res, next) => {
    const token = req.query['token'];
    if (req.accepts(['json', 'html']) !== 'html' || typeof token !== 'string' || !TOKEN.test(token)) return next();
    res
      .set({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' })
      .redirect(303, `/wallet/confirm?token=${encodeURIComponent(token)}`);
  });
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
