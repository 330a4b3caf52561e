import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { asOperator, failureOf, type ConsoleClient } from './backend.js';
import { readCookie, SESSION_COOKIE } from './cookies.js';
import { csrfToken, csrfValid } from './csrf.js';
import { sendError } from './layout.js';
import { safeReturnPath } from './return-path.js';

import type { ConsoleOperator, ConsoleRole } from './operator.js';

export type { ConsoleOperator, ConsoleRole } from './operator.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by the console guard. */
    operator?: ConsoleOperator;
  }
}

/** The operator behind the request's session cookie, or null (no cookie, or the backend refuses it). */
export async function operatorOf(client: ConsoleClient, req: Request): Promise<ConsoleOperator | null> {
  const token = readCookie(req.headers.cookie, SESSION_COOKIE);
  if (token === undefined) return null;
  try {
    const res = await client.resolveOperator({ body: encodeTable((b) => fb.OperatorLookup.createOperatorLookup(b)) }, asOperator(token));
    return decodeTable(
      res.body,
      (bb) => fb.OperatorInfo.getRootAsOperatorInfo(bb),
      (t) => ({
        id: t.operatorId(),
        login: t.login() ?? '',
        roles: Array.from({ length: t.rolesLength() }, (_, i) => t.roles(i) ?? ''),
        token,
        csrf: csrfToken(token),
      }),
    );
  } catch (err: unknown) {
    if (failureOf(err).errorCode === 'operator_session_invalid') return null;
    throw err;
  }
}

/**
 * Guards a console route: a signed-in operator (a GET without one is sent to the sign-in page,
 * anything else is 401), holding `role` when one is named (else 403), and on every state-changing
 * request a valid CSRF token in the form field `_csrf` (else 403). The backend re-checks the role.
 */
export function guard(client: ConsoleClient, role: ConsoleRole | null): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    operatorOf(client, req).then(
      (operator) => {
        if (operator === null) {
          if (req.method === 'GET') {
            const back = safeReturnPath(req.originalUrl);
            res.redirect(303, back ? `/_gm/login?${new URLSearchParams({ return: back }).toString()}` : '/_gm/login');
          } else {
            sendError(res, 401, 'Sign in required', 'Your console session is missing or has ended; sign in again.');
          }
          return;
        }
        if (role !== null && !operator.roles.includes(role)) {
          req.log.warn({ operatorId: String(operator.id), role }, 'console: role missing');
          sendError(res, 403, 'Not allowed', `This needs the ${role} role.`, operator);
          return;
        }
        if (req.method !== 'GET' && !csrfValid(operator.token, (req.body as Record<string, unknown> | undefined)?.['_csrf'])) {
          req.log.warn({ operatorId: String(operator.id) }, 'console: CSRF token missing or wrong');
          sendError(res, 403, 'Request refused', 'The form token is missing or wrong; reload the page and try again.', operator);
          return;
        }
        req.operator = operator;
        next();
      },
      (err: unknown) => {
        req.log.error({ err }, 'console: operator lookup failed');
        sendError(res, 502, 'Backend unavailable', 'The backend could not answer; try again.');
      },
    );
  };
}

/** The `:id` route parameter as a string ('' when absent or repeated). */
export function paramId(req: Request): string {
  const id = req.params['id'];
  return typeof id === 'string' ? id : '';
}
