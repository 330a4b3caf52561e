import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { ConnectError } from '@connectrpc/connect';
import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { edgeHeaders } from '../../auth/index.js';
import { html, retryAfterOf } from '../../http/index.js';
import { asOperator, failureOf, type ConsoleClient } from '../backend.js';
import { cookieHeader, LOGIN_COOKIE, readCookie, SESSION_COOKIE } from '../cookies.js';
import { page, send, sendError } from '../layout.js';
import { safeReturnPath } from '../return-path.js';

function form(res: Response, status: number, secure: boolean, returnTo: string | null, message?: string): void {
  const nonce = randomBytes(24).toString('base64url');
  res.append('set-cookie', cookieHeader(LOGIN_COOKIE, nonce, { secure, maxAgeSeconds: 1_800 }));
  send(
    res,
    status,
    page(
      'Sign in',
      html`${message ? html`<p class="error" id="error">${message}</p>` : ''}
<form method="post" action="/_gm/login">
<input type="hidden" name="_csrf" value="${nonce}">
${returnTo ? html`<input type="hidden" name="return" value="${returnTo}">` : ''}
<p><label>Login <input name="login" autocomplete="username" required></label></p>
<p><label>Password <input name="password" type="password" autocomplete="current-password" required></label></p>
<p><button type="submit">Sign in</button></p></form>`,
    ),
  );
}

/** GET /_gm/login: the sign-in form with a fresh pre-session CSRF nonce (cookie + hidden field). */
export function loginPage(secure: boolean) {
  return (req: Request, res: Response): void => form(res, 200, secure, safeReturnPath(req.query['return']));
}

/**
 * POST /_gm/login: checks the pre-session CSRF nonce, signs in through the backend (stating the
 * client address for its sign-in limits), sets the HttpOnly SameSite=Strict session cookie and
 * goes to the return path when it is a console path. A limited sign-in is 429 with Retry-After.
 */
export function loginAction(client: ConsoleClient, secure: boolean) {
  return async (req: Request, res: Response): Promise<void> => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const returnTo = safeReturnPath(body['return']);
    const nonce = readCookie(req.headers.cookie, LOGIN_COOKIE);
    if (nonce === undefined || body['_csrf'] !== nonce) {
      form(res, 403, secure, returnTo, 'The form expired; try again.');
      return;
    }
    const login = typeof body['login'] === 'string' ? body['login'] : '';
    const password = typeof body['password'] === 'string' ? body['password'] : '';
    try {
      const grant = await client.signIn(
        { body: encodeTable((b) => fb.OperatorSignIn.createOperatorSignIn(b, b.createString(login), b.createString(password))) },
        { headers: edgeHeaders(req.requestId, req.clientAddress) },
      );
      const { token, expiresAt } = decodeTable(
        grant.body,
        (bb) => fb.OperatorGrant.getRootAsOperatorGrant(bb),
        (t) => ({
          token: t.token() ?? '',
          expiresAt: t.operator()?.expiresAtUnix() ?? 0n,
        }),
      );
      const maxAge = Math.max(0, Number(expiresAt) - Math.floor(Date.now() / 1000));
      res.append('set-cookie', cookieHeader(SESSION_COOKIE, token, { secure, maxAgeSeconds: maxAge }));
      res.append('set-cookie', cookieHeader(LOGIN_COOKIE, '', { secure, maxAgeSeconds: 0 }));
      res.redirect(303, returnTo ?? '/_gm/');
    } catch (err: unknown) {
      const f = failureOf(err);
      if (f.errorCode === 'invalid_credentials') {
        form(res, 401, secure, returnTo, 'Wrong login or password.');
        return;
      }
      if (f.errorCode === 'rate_limited') {
        const seconds = retryAfterOf(ConnectError.from(err));
        res.setHeader('retry-after', String(seconds));
        form(res, 429, secure, returnTo, `Too many attempts; try again in ${Math.ceil(seconds / 60)} minutes.`);
        return;
      }
      req.log.error({ err }, 'console sign-in failed');
      sendError(res, 502, 'Backend unavailable', f.message);
    }
  };
}

/** POST /_gm/logout (guarded, CSRF-checked): ends the backend session and clears the cookie. */
export function logoutAction(client: ConsoleClient, secure: boolean) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (operator) await client.signOut({ body: encodeTable((b) => fb.OperatorLookup.createOperatorLookup(b)) }, asOperator(operator.token));
    res.append('set-cookie', cookieHeader(SESSION_COOKIE, '', { secure, maxAgeSeconds: 0 }));
    res.redirect(303, '/_gm/login');
  };
}
