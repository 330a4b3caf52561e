import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@wordgame/logging';
import type { CallEnd, CallLog } from './calls.js';
import { ApiError, errorBody } from './errors.js';
import { sendFault, type FaultRecord, type FaultTable } from './faults.js';
import { sendJson, sleep } from './http.js';
import { findMethod } from './methods/index.js';
import { readParams } from './params.js';
import type { Payments } from './payments.js';
import type { BotRecord, World } from './state.js';

/** Everything a Bot API request needs from the running emulator. */
export interface BotApiDeps {
  world: World;
  payments: Payments;
  faults: FaultTable;
  calls: CallLog;
  logger: Logger;
  /** Aborts when the emulator stops, so pending long polls end at once. */
  shutdown: AbortSignal;
  /** Sees every Bot API envelope the emulator sends (see BotApiAnswer). */
  onAnswer?: ((answer: BotApiAnswer) => void) | undefined;
}

/**
 * One Bot API answer as sent: the method (canonical name, or as asked when unknown), the HTTP
 * status and the JSON body. Only Telegram envelopes are reported: the HTML pages and raw bodies
 * of injected faults imitate something in front of Telegram and are left out. `injectedUpdateIds`
 * names the updates of a getUpdates answer that a test queued verbatim (POST /_control/updates).
 */
export interface BotApiAnswer {
  method: string;
  status: number;
  body: unknown;
  injectedUpdateIds: number[];
}

const PATH = /^\/bot([^/]+)\/([^/]*)$/;

/**
 * Serves `{root}/bot<TOKEN>/<method>` like the Bot API: 401 for an unknown token, 404 for an
 * unknown method or path, then any injected fault for the method, then the method itself, always
 * answering Telegram's JSON envelope. Every call is written to the call log; a client that
 * disconnects aborts its call (a long poll stops waiting) and gets nothing written.
 */
export async function handleBotApi(req: IncomingMessage, res: ServerResponse, url: URL, deps: BotApiDeps): Promise<void> {
  const match = PATH.exec(url.pathname);
  const token = match?.[1] === undefined ? undefined : safeDecode(match[1]);
  const rawMethod = match?.[2] ?? '';
  const report = (method: string, status: number, body: unknown, injectedUpdateIds: number[] = []): void =>
    deps.onAnswer?.({ method, status, body, injectedUpdateIds });
  const sendApiError = (method: string, err: ApiError): void => {
    const body = errorBody(err);
    sendJson(res, err.code, body, retryHeader(err));
    report(method, err.code, body);
  };
  if (token === undefined) return sendApiError(rawMethod, new ApiError(404, 'Not Found'));
  const bot = deps.world.botByToken(token);
  const method = findMethod(rawMethod);
  if (!bot || !method) {
    const err = bot ? new ApiError(404, 'Not Found') : new ApiError(401, 'Unauthorized');
    const finish = deps.calls.start(method?.name ?? rawMethod, bot?.user.id ?? null, {});
    sendApiError(method?.name ?? rawMethod, err);
    return finish({ status: err.code, description: err.description, outcome: 'answered' });
  }

  const client = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) client.abort();
  });
  const signal = AbortSignal.any([client.signal, deps.shutdown]);

  let params;
  try {
    params = await readParams(req, url);
  } catch (err: unknown) {
    if (!(err instanceof ApiError)) return; // the client went away mid-body
    const finish = deps.calls.start(method.name, bot.user.id, {});
    sendApiError(method.name, err);
    return finish({ status: err.code, description: err.description, outcome: 'answered' });
  }

  const finish = deps.calls.start(method.name, bot.user.id, params);
  const fault = deps.faults.take(method.name);
  if (fault) deps.logger.info({ method: method.name, fault }, 'injecting fault');
  const end = (outcome: Omit<CallEnd, 'faultId'>): void => finish(fault ? { ...outcome, faultId: fault.id } : outcome);

  if (fault?.delayMs !== undefined) await sleep(fault.delayMs, signal);
  if (client.signal.aborted) return end({ status: 0, outcome: 'client_closed' });
  if (fault?.drop === true) {
    req.socket.destroy();
    return end({ status: 0, outcome: 'dropped' });
  }
  if (fault?.status !== undefined) {
    const sent = sendFault(res, fault as FaultRecord & { status: number });
    if (sent.envelope !== undefined) report(method.name, sent.status, sent.envelope);
    return end({ status: sent.status, description: sent.description, outcome: 'answered' });
  }

  let answer: { status: number; body: unknown; err?: ApiError };
  try {
    const result: unknown = await method.handler({ bot, params, world: deps.world, payments: deps.payments, signal });
    answer = { status: 200, body: { ok: true, result } };
  } catch (err: unknown) {
    const apiErr = err instanceof ApiError ? err : new ApiError(500, 'Internal Server Error');
    if (!(err instanceof ApiError)) deps.logger.error({ err, method: method.name }, 'method handler failed');
    answer = { status: apiErr.code, body: errorBody(apiErr), err: apiErr };
  }
  if (client.signal.aborted) return end({ status: 0, outcome: 'client_closed' });
  sendJson(res, answer.status, answer.body, answer.err ? retryHeader(answer.err) : {});
  report(method.name, answer.status, answer.body, injectedIn(bot, answer.body));
  deps.logger.debug({ method: method.name, status: answer.status }, 'bot api call');
  const description = answer.err?.description;
  end(
    description === undefined
      ? { status: answer.status, outcome: 'answered' }
      : { status: answer.status, description, outcome: 'answered' },
  );
}

/** The ids of a getUpdates answer's updates that a test queued verbatim. */
function injectedIn(bot: BotRecord, body: unknown): number[] {
  const result = (body as { result?: unknown }).result;
  if (!Array.isArray(result)) return [];
  return result
    .map((update: unknown) => (update as { update_id?: unknown }).update_id)
    .filter((id): id is number => typeof id === 'number' && bot.queue.isInjected(id));
}

/** 429s carry Retry-After as well as `parameters.retry_after`. */
function retryHeader(err: ApiError): Record<string, string> {
  return err.retryAfter === undefined ? {} : { 'retry-after': String(err.retryAfter) };
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
