import { Code, ConnectError, createClient, type Client, type Transport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { backendApi, ERRORS, errorCodeOf } from '@wordgame/contracts';
import { withServiceToken } from '@wordgame/h2-unary';
import { createBackendPool } from '../backend/index.js';

/** The backend's ConsoleService over its own h2c connection. */
export type ConsoleClient = Client<typeof backendApi.ConsoleService>;

/**
 * A ConsoleService client on its own connections (one per backend replica, spread as the REST
 * calls are: backend/pool.ts); every call presents the service `token`.
 */
export function createConsoleClient(urls: string | readonly string[], token: string): ConsoleClient {
  return createClient(backendApi.ConsoleService, consoleTransport(urls, token, 15_000));
}

/** A connect-node transport over every backend replica (the console's calls carry `token`); `timeoutMs` per call. */
export function consoleTransport(urls: string | readonly string[], token: string, timeoutMs: number): Transport {
  return createBackendPool({
    urls: typeof urls === 'string' ? [urls] : urls,
    refreshMs: 10_000,
    factory: (baseUrl) => ({
      ...createConnectTransport({ baseUrl, httpVersion: '2', defaultTimeoutMs: timeoutMs, interceptors: [withServiceToken(token)] }),
      close: () => undefined,
    }),
  });
}

/** Call options that carry the operator's session token to the backend (which re-checks the role). */
export function asOperator(
  token: string,
  signal?: AbortSignal,
): { headers: Record<string, string>; signal?: AbortSignal; timeoutMs?: number } {
  return { headers: { 'x-operator-session': token }, ...(signal ? { signal, timeoutMs: 600_000 } : {}) };
}

/** A backend failure as the console shows it: machine code, Connect code, a safe message and the page's HTTP status. */
export interface BackendFailure {
  errorCode: string;
  code: Code;
  message: string;
  status: number;
}

/**
 * The console's use of the one error registry: a code the backend names (`client` or `service`)
 * keeps its message (written for users and operators) and answers the registry's HTTP status;
 * anything else (a transport failure, the backend's `internal` or `backend_unavailable`, a code
 * this build does not know) is `unavailable` or `internal` with a generic message and 502.
 */
export function failureOf(err: unknown): BackendFailure {
  const e = ConnectError.from(err);
  const named = errorCodeOf(e);
  if (named !== undefined && ERRORS[named].audience !== 'edge')
    return { errorCode: named, code: e.code, message: e.rawMessage || ERRORS[named].message, status: ERRORS[named].http };
  const errorCode = e.code === Code.Unavailable || e.code === Code.DeadlineExceeded ? 'unavailable' : 'internal';
  return { errorCode, code: e.code, message: 'the backend could not answer; try again', status: 502 };
}
