import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@wordgame/logging';
import { handleApi, type ApiResponse } from './api.js';
import { identifyShop } from './auth.js';
import { CHECKOUT_PATH, serveCheckout } from './checkout.js';
import type { ProviderEmulatorControl } from './control.js';
import { handleControl } from './control-http.js';
import { ApiError, type ErrorStatus } from './errors.js';
import type { Fault, FaultTable } from './faults.js';
import { readBody, sendJson } from './http.js';
import type { IdempotenceStore } from './idempotence.js';
import type { Notifier } from './notifications.js';
import type { LoggedRequest, RequestLog } from './request-log.js';
import type { EmulatorState } from './state.js';

/** The parts the server routes requests to. */
export interface ServerParts {
  state: EmulatorState;
  idempotence: IdempotenceStore;
  notifier: Notifier;
  faults: FaultTable;
  requestLog: RequestLog;
  logger: Logger;
  /** Built by the caller once `releaseHeld` exists (the control object needs it). */
  control: () => ProviderEmulatorControl;
}

/** A listening server. */
export interface RunningServer {
  /** Base URL, e.g. "http://127.0.0.1:8082" (no trailing slash). */
  url: string;
  /** Destroys every held request's connection; returns how many were held. */
  releaseHeld(): number;
  /** Stops accepting, drops held requests, aborts notifications, closes every socket. */
  stop(): Promise<void>;
}

interface Held {
  timer: NodeJS.Timeout | null;
  response: ServerResponse;
}

const FAULT_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'Invalid request (injected fault)',
  401: 'Login or password is incorrect (injected fault)',
  403: 'Not enough rights to perform the operation (injected fault)',
  404: 'Requested resource is not found (injected fault)',
  429: 'Too many requests: the limit of requests per unit of time has been exceeded (injected fault)',
  500: 'Internal server error: the result of the request is unknown, retry it (injected fault)',
};

/**
 * Starts the HTTP server: `/v3/*` is the YooKassa API (with faults, request log and
 * notifications wired in), `/_control/*` the control API, and the checkout page for
 * confirmation_url. Every socket is tracked so stop() is prompt even with held requests.
 */
export async function startServer(parts: ServerParts, host: string, port: number): Promise<RunningServer> {
  const { state, logger } = parts;
  const held = new Set<Held>();

  const releaseHeld = (): number => {
    const count = held.size;
    for (const entry of held) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.response.destroy();
    }
    held.clear();
    return count;
  };

  const fire = (response: ApiResponse): void => {
    for (const notice of response.notices) void parts.notifier.notifyChange(notice.shopId, notice.event, notice.object);
  };

  const serveApi = (request: IncomingMessage, response: ServerResponse, path: string, rawBody: string, query: URLSearchParams): void => {
    const method = request.method ?? 'GET';
    const entry = parts.requestLog.start(method, path);
    entry.shopId = identifyShop(request.headers.authorization, state.shops)?.shopId ?? null;
    const key = request.headers['idempotence-key'];
    entry.idempotenceKey = typeof key === 'string' ? key : null;
    const process = (): ApiResponse => handleApi(state, parts.idempotence, { method, path, headers: request.headers, rawBody, query });
    const answer = (result: ApiResponse): void => {
      sendJson(response, result.status, result.json);
      complete(entry, result.status, result.replayed);
    };

    const fault = parts.faults.take(method, path);
    if (!fault) {
      const result = process();
      answer(result);
      fire(result);
      return;
    }
    entry.fault = fault.status === 'timeout' ? 'timeout' : 'error';
    const applied = fault.applied ? process() : null;
    if (applied) fire(applied);
    if (fault.status !== 'timeout') {
      const error = new ApiError(fault.status, FAULT_DESCRIPTIONS[fault.status]);
      sendJson(response, fault.status, JSON.stringify(error.body()));
      complete(entry, fault.status, false);
      return;
    }
    hold(response, fault, () => {
      if (applied) return answer(applied);
      const result = process();
      answer(result);
      fire(result);
    });
  };

  const hold = (response: ServerResponse, fault: Fault, then: () => void): void => {
    const entry: Held = { timer: null, response };
    held.add(entry);
    response.on('close', () => {
      held.delete(entry);
      if (entry.timer) clearTimeout(entry.timer);
    });
    if (fault.status === 'timeout' && fault.delayMs !== undefined) {
      entry.timer = setTimeout(() => {
        held.delete(entry);
        then();
      }, fault.delayMs);
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://emulator');
    const path = url.pathname;
    const method = request.method ?? 'GET';
    try {
      const rawBody = await readBody(request);
      if (method === 'GET' && (path === '/livez' || path === '/readyz')) {
        // No dependencies: serving at all is both alive and ready (container health checks).
        sendJson(response, 200, JSON.stringify({ status: 'ok' }));
      } else if (path.startsWith('/_control/')) {
        const answer = await handleControl(parts.control(), method, path.slice('/_control'.length), rawBody);
        sendJson(response, answer.status, JSON.stringify(answer.body));
      } else if (path === CHECKOUT_PATH) {
        await serveCheckout(parts.control(), response, method, url.searchParams, rawBody);
      } else if (path === '/v3' || path.startsWith('/v3/')) {
        serveApi(request, response, path, rawBody, url.searchParams);
      } else {
        sendJson(response, 404, JSON.stringify(new ApiError(404, `No such path: ${path}`).body()));
      }
    } catch (err: unknown) {
      logger.error({ err, method, path }, 'request failed');
      sendJson(response, 500, JSON.stringify(new ApiError(500, 'Internal server error').body()));
    }
  };

  const server = http.createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = baseUrlOf(server.address() as AddressInfo);

  let stopped: Promise<void> | null = null;
  return {
    url,
    releaseHeld,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        releaseHeld();
        parts.notifier.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

function complete(entry: LoggedRequest, status: number, replayed: boolean): void {
  entry.status = status;
  entry.replayed = replayed;
}

function baseUrlOf(address: AddressInfo): string {
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
