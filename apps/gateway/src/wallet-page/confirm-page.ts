import { createHash } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { createTranslator, pickLanguage, type MessageKey, type Translator } from '@wordgame/i18n';
import { BACKEND_CALL_TIMEOUT_MS, edgeHeaders } from '../auth/index.js';
import type { BackendClients } from '../backend/index.js';
import { fromBackendError, html, raw, type SafeHtml } from '../http/index.js';
import { ConfirmPageTokens } from './confirm-token.js';

/** Where the confirmation link the backend mails points: this page, never a JSON operation. */
export const CONFIRM_PATH = '/api/v1/user/profile/confirm-email';

const TOKEN = /^[A-Za-z0-9_-]{1,512}$/;

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1f;background:#f4f5f7}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:12px}
h1{font-size:1.25rem;margin:0 0 1rem}
button{font:inherit;width:100%;padding:.75rem 1rem;border:0;border-radius:8px;background:#1f5fd6;color:#fff;cursor:pointer}
button:focus-visible{outline:3px solid #1b1b1f;outline-offset:2px}
[data-outcome=error],[data-outcome=refused],[data-outcome=missing]{color:#b00020}
a{color:#1f5fd6}`;

/**
 * The page's Content-Security-Policy: nothing loads and nothing runs (no script at all; the one
 * inline style is allowed by its hash, never 'unsafe-inline'), the form posts only to this origin,
 * and no site may frame it (a framed button could be clicked for the player).
 */
export const CONFIRM_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** What the confirmation page needs: the backend, the secret its page tokens are keyed from, a clock. */
export interface ConfirmPageOptions {
  backend: BackendClients;
  /** A secret every gateway replica shares and no client knows (BACKEND_SERVICE_TOKEN). */
  pageTokenSecret: string;
  /** Milliseconds since the epoch (page token expiry). */
  now: () => number;
}

type Outcome = 'ready' | 'confirmed' | 'error' | 'refused' | 'missing';

interface View {
  status: number;
  outcome: Outcome;
  message: string;
  /** The confirmation token to offer the button for, with a fresh page token; absent = no button. */
  offer?: { token: string; pageToken: string };
}

function render(t: Translator, view: View): SafeHtml {
  const form = view.offer
    ? html`<form method="post" action="${CONFIRM_PATH}"><input type="hidden" name="token" value="${view.offer.token}"><input type="hidden" name="page_token" value="${view.offer.pageToken}"><button type="submit" id="confirm-button">${t.t('wallet.confirm_button')}</button></form>`
    : '';
  return html`<!doctype html>
<html lang="${t.language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${t.t('wallet.confirm_title')}</title><style>${raw(STYLE)}</style></head>
<body><main aria-labelledby="confirm-title"><h1 id="confirm-title">${t.t('wallet.confirm_title')}</h1>
<p id="confirm-result" role="status" data-outcome="${view.outcome}">${view.message}</p>
${form}
<p><a href="/wallet">${t.t('wallet.back_to_wallet')}</a></p></main></body></html>`;
}

function send(req: Request, res: Response, t: Translator, view: View): void {
  res.set({
    'content-security-policy': CONFIRM_PAGE_CSP,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  });
  res.status(view.status).type('html').send(render(t, view).value);
  req.log.debug({ outcome: view.outcome }, 'confirmation page');
}

/** The page's words in the player's language: the browser's Accept-Language, else Russian (as the wallet page). */
function translatorFor(req: Request): Translator {
  return createTranslator(pickLanguage(req.acceptsLanguages(), 'ru'));
}

/**
 * The e-mail confirmation page at the mailed link. A GET or HEAD, whatever it accepts, only shows
 * the page: the address stays unconfirmed, so a mail scanner or link preview that fetches the link
 * consumes nothing. The page's one button posts a form carrying the mailed token and a page token
 * (ConfirmPageTokens) that only a fetch of this page yields; only that POST confirms, answering the
 * outcome in words. A POST whose page token is missing, forged or expired changes nothing and is
 * answered 403 with the button offered afresh. The page works without JavaScript and loads nothing.
 */
export function confirmPageRouter(options: ConfirmPageOptions): Router {
  const tokens = new ConfirmPageTokens(options.pageTokenSecret, options.now);
  const router = express.Router();
  const offer = (token: string) => ({ token, pageToken: tokens.mint(token) });

  router.get(CONFIRM_PATH, (req, res) => {
    const t = translatorFor(req);
    const token = req.query['token'];
    if (typeof token !== 'string' || !TOKEN.test(token)) {
      send(req, res, t, { status: 400, outcome: 'missing', message: t.t('wallet.confirm_missing') });
      return;
    }
    send(req, res, t, { status: 200, outcome: 'ready', message: t.t('wallet.confirm_prompt'), offer: offer(token) });
  });

  router.post(CONFIRM_PATH, express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 8 }), async (req, res) => {
    const t = translatorFor(req);
    const form = (req.body ?? {}) as Record<string, unknown>;
    const token = form['token'];
    if (typeof token !== 'string' || !TOKEN.test(token)) {
      send(req, res, t, { status: 400, outcome: 'missing', message: t.t('wallet.confirm_missing') });
      return;
    }
    if (!tokens.valid(token, form['page_token'])) {
      req.log.info('confirmation refused: the page token is missing, forged or expired');
      send(req, res, t, { status: 403, outcome: 'refused', message: t.t('wallet.confirm_page_invalid'), offer: offer(token) });
      return;
    }
    try {
      const reply = await options.backend.account.confirmEmail(
        { body: encodeTable((b) => fb.EmailConfirmation.createEmailConfirmation(b, b.createString(token))) },
        { headers: edgeHeaders(req.requestId, req.clientAddress), timeoutMs: BACKEND_CALL_TIMEOUT_MS },
      );
      const email = decodeTable(
        reply.body,
        (bb) => fb.EmailConfirmed.getRootAsEmailConfirmed(bb),
        (c) => c.email() ?? '',
      );
      send(req, res, t, { status: 200, outcome: 'confirmed', message: t.t('wallet.confirm_ok', { email }) });
    } catch (err: unknown) {
      const failure = fromBackendError(err);
      if (!failure) throw err;
      if (failure.status >= 500) req.log.warn({ err, code: failure.code }, 'e-mail confirmation failed');
      const key = `wallet.errors.${failure.code}`;
      const message = t.has(key) ? t.t(key as MessageKey) : t.t('wallet.error', { code: failure.code });
      send(req, res, t, { status: failure.status, outcome: 'error', message });
    }
  });
  return router;
}
