import type { CallOptions } from '@connectrpc/connect';
import type { Request } from 'express';
import type { Logger } from '@wordgame/logging';
import type { AuthRequirement } from '../auth/index.js';
import type { SessionContext } from '../http/index.js';
import type { DocumentedRoute } from './doc.js';

/** What a handler gets: the request, its logger, the caller's session (when required) and backend call options. */
export interface OperationContext {
  req: Request;
  log: Logger;
  /** Present for `session` and `trusted_session` operations. */
  session: SessionContext | undefined;
  /** Headers (`x-request-id`, and from the session `X-Account-Id`/`X-Platform`) and deadline for backend calls. */
  call: CallOptions;
}

/** A handler's answer: the status and the JSON body (none for 204). */
export interface Reply {
  status: number;
  body?: unknown;
}

/**
 * One named gateway operation: the row of the edge's table that logs and metrics are keyed by
 * (`wallet.buy`), its route, what it requires of the caller, and the handler that makes the
 * backend call; `doc` is its entry in the API document (openapi/).
 */
export interface Operation extends DocumentedRoute {
  name: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path from the root, e.g. `/api/v1/user/wallet`. */
  path: string;
  auth: AuthRequirement;
  handle(ctx: OperationContext): Promise<Reply>;
}

/** The caller of an authenticated operation; its absence is a wiring bug (answered 500). */
export function callerOf(ctx: OperationContext): SessionContext {
  if (ctx.session === undefined) throw new Error(`operation ${ctx.req.path} has no session: mounted without authentication`);
  return ctx.session;
}
