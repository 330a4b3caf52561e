import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { backendApi } from '@wordgame/contracts';
import { withServiceToken } from '@wordgame/h2-unary';
import { createBackendPool } from '../backend/pool.js';

/** The backend's ConsoleService over its own h2c connection. */
export type ConsoleClient = Client<typeof backendApi.ConsoleService>;

/**
 * A ConsoleService client on its own connections (one per backend replica, spread as the REST
 * calls are: backend/pool.ts); every call presents the service `token`.
 */
export function createConsoleClient(urls: string | readonly string[], token: string): ConsoleClient {
  const pool = createBackendPool({
    urls: typeof urls === 'string' ? [urls] : urls,
    refreshMs: 10_000,
    factory: (baseUrl) => ({ ...createConnectTransport({ baseUrl, httpVersion: '2', defaultTimeoutMs: 15_000, interceptors: [withServiceToken(token)] }), close: () => undefined }),
  });
  return createClient(backendApi.ConsoleService, pool);
}

/** Call options that carry the operator's session token to the backend (which re-checks the role). */
export function asOperator(token: string, signal?: AbortSignal): { headers: Record<string, string>; signal?: AbortSignal; timeoutMs?: number } {
  return { headers: { 'x-operator-session': token }, ...(signal ? { signal, timeoutMs: 600_000 } : {}) };
}

/** A backend failure as the console shows it: machine code, Connect code and a safe message. */
export interface BackendFailure {
  errorCode: string;
  code: Code;
  message: string;
}

/** The machine code and safe message of a backend error (transport failures: `unavailable`). */
export function failureOf(err: unknown): BackendFailure {
  const e = ConnectError.from(err);
  const errorCode = e.metadata.get('x-error-code') ?? (e.code === Code.Unavailable || e.code === Code.DeadlineExceeded ? 'unavailable' : 'internal');
  const message = errorCode === 'internal' || errorCode === 'unavailable' ? 'the backend could not answer; try again' : e.rawMessage;
  return { errorCode, code: e.code, message };
}
