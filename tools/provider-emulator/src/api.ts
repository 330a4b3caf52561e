import type { IncomingHttpHeaders } from 'node:http';
import { authenticate } from './auth.js';
import { ApiError, invalidRequest, notFound } from './errors.js';
import { fingerprintOf, IdempotenceStore, requireIdempotenceKey } from './idempotence.js';
import type { NotificationEvent } from './notifications.js';
import { cancelPayment, capturePayment, createPayment, getPayment } from './payments.js';
import { listPayments, listRefunds } from './lists.js';
import { createRefund, getRefund } from './refunds.js';
import type { EmulatorState, Shop } from './state.js';

/** A /v3 request with its body read. */
export interface ApiRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The query string (list filters); empty for other routes. */
  query?: URLSearchParams;
}

/** A notification a request's state change fires, with the object as it was right after. */
export interface Notice {
  shopId: string;
  event: NotificationEvent;
  object: unknown;
}

/** The answer to a /v3 request plus what the request log and the notifier need to know. */
export interface ApiResponse {
  status: number;
  json: string;
  shopId: string | null;
  idempotenceKey: string | null;
  replayed: boolean;
  /** Notifications to send once answered (none for a replay: nothing changed). */
  notices: Notice[];
}

interface Result {
  status: number;
  body: unknown;
  notices: Notice[];
}

type Handler = (state: EmulatorState, shop: Shop, id: string, body: unknown, query: URLSearchParams) => Result;

const ID = '([^/]+)';
const ROUTES: Array<{ method: 'GET' | 'POST'; pattern: RegExp; handler: Handler }> = [
  { method: 'GET', pattern: /^\/v3\/payments$/, handler: (state, shop, _id, _body, query) => ok(listPayments(state, shop, query)) },
  { method: 'GET', pattern: /^\/v3\/refunds$/, handler: (state, shop, _id, _body, query) => ok(listRefunds(state, shop, query)) },
  { method: 'POST', pattern: /^\/v3\/payments$/, handler: (state, shop, _id, body) => ok(createPayment(state, shop, body).object) },
  { method: 'GET', pattern: new RegExp(`^/v3/payments/${ID}$`), handler: (state, shop, id) => ok(getPayment(state, shop, id).object) },
  {
    method: 'POST',
    pattern: new RegExp(`^/v3/payments/${ID}/capture$`),
    handler: (state, shop, id, body) => changed(shop, capturePayment(state, shop, id, body)),
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/v3/payments/${ID}/cancel$`),
    handler: (state, shop, id) => changed(shop, cancelPayment(state, shop, id)),
  },
  {
    method: 'POST',
    pattern: /^\/v3\/refunds$/,
    handler: (state, shop, _id, body) => {
      const { record, succeeded } = createRefund(state, shop, body);
      const object = structuredClone(record.object);
      return { status: 200, body: object, notices: succeeded ? [{ shopId: shop.shopId, event: 'refund.succeeded', object }] : [] };
    },
  },
  { method: 'GET', pattern: new RegExp(`^/v3/refunds/${ID}$`), handler: (state, shop, id) => ok(getRefund(state, shop, id).object) },
];

/**
 * Answers a /v3 request: authenticates the shop, routes, enforces Idempotence-Key on POST and
 * replays or rejects repeated keys, and turns domain errors into YooKassa error bodies. Pure with
 * respect to I/O: the server decides when (and whether) the answer is written.
 */
export function handleApi(state: EmulatorState, idempotence: IdempotenceStore, request: ApiRequest): ApiResponse {
  const response: ApiResponse = { status: 500, json: '', shopId: null, idempotenceKey: null, replayed: false, notices: [] };
  try {
    const shop = authenticate(request.headers.authorization, state.shops);
    response.shopId = shop.shopId;
    const { handler, id } = route(request.method, request.path);
    if (request.method !== 'POST')
      return answer(response, run(handler, state, shop, id, undefined, request.query ?? new URLSearchParams()));

    const key = requireIdempotenceKey(request.headers['idempotence-key']);
    response.idempotenceKey = key;
    const body = parseJsonBody(request);
    const fingerprint = fingerprintOf(request.method, request.path, body);
    const stored = idempotence.lookup(shop.shopId, key, fingerprint);
    if (stored) return { ...response, status: stored.status, json: stored.json, replayed: true };
    answer(response, run(handler, state, shop, id, body, new URLSearchParams()));
    idempotence.remember(shop.shopId, key, fingerprint, { status: response.status, json: response.json });
    return response;
  } catch (err: unknown) {
    if (!(err instanceof ApiError)) throw err;
    return answer(response, { status: err.status, body: err.body(), notices: [] });
  }
}

function run(handler: Handler, state: EmulatorState, shop: Shop, id: string, body: unknown, query: URLSearchParams): Result {
  try {
    return handler(state, shop, id, body, query);
  } catch (err: unknown) {
    if (!(err instanceof ApiError)) throw err;
    return { status: err.status, body: err.body(), notices: [] };
  }
}

function answer(response: ApiResponse, result: Result): ApiResponse {
  response.status = result.status;
  response.json = JSON.stringify(result.body);
  response.notices = result.notices;
  return response;
}

function route(method: string, path: string): { handler: Handler; id: string } {
  let pathMatched = false;
  for (const candidate of ROUTES) {
    const match = candidate.pattern.exec(path);
    if (!match) continue;
    pathMatched = true;
    if (candidate.method === method) return { handler: candidate.handler, id: decodeId(match[1] ?? '') };
  }
  if (pathMatched) throw new ApiError(405, `Method ${method} is not allowed for ${path}`);
  throw notFound(`No such API method: ${method} ${path}`);
}

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw notFound(`Object ${raw} not found`);
  }
}

function parseJsonBody(request: ApiRequest): unknown {
  if (request.rawBody.trim() === '') return {};
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw new ApiError(415, 'Content-Type must be application/json');
  try {
    return JSON.parse(request.rawBody) as unknown;
  } catch {
    throw invalidRequest('The request body is not valid JSON');
  }
}

function ok(object: object): Result {
  return { status: 200, body: structuredClone(object), notices: [] };
}

function changed(shop: Shop, change: { record: { object: object }; event: NotificationEvent }): Result {
  const object = structuredClone(change.record.object);
  return { status: 200, body: object, notices: [{ shopId: shop.shopId, event: change.event, object }] };
}
