import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { PlatformControl } from './control.js';
import { ControlError } from './errors.js';
import { sendJson } from './http.js';
import { readBody } from './params.js';
import { STAR_TRANSACTIONS_ORDERS, type StarTransactionsOrder } from './star-order.js';
import { ADMIN_RIGHT_KEYS, PERMISSION_KEYS } from './types.js';

const id = z.number().int();
const flags = <K extends string>(keys: readonly K[]) => z.partialRecord(z.enum(keys as unknown as [K, ...K[]]), z.boolean());

/**
 * Accepts the project's snake_case spelling of a control body's top-level fields (`user_id`,
 * `first_name`, `chat_id`, …) besides the emulator's camelCase; naming one field both ways is a 400.
 * Nested values (rights, permissions, raw updates) keep the platform's own keys.
 */
export function camelTopLevel(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const camel = key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    if (camel in out) throw new ControlError(400, `${camel} is given twice (${key} and ${camel})`);
    out[camel] = value;
  }
  return out;
}

/** A query parameter by its camelCase name or its snake_case one (`userId` or `user_id`). */
function param(url: URL, camel: string): string | null {
  return url.searchParams.get(camel) ?? url.searchParams.get(camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
}

const schemas = {
  user: z.strictObject({
    id: id.positive().optional(),
    firstName: z.string().min(1).optional(),
    lastName: z.string().optional(),
    username: z.string().optional(),
    languageCode: z.string().optional(),
    started: z.boolean().optional(),
    blocked: z.boolean().optional(),
  }),
  chat: z.strictObject({
    id: id.negative().optional(),
    type: z.enum(['group', 'supergroup', 'channel']),
    title: z.string().optional(),
    username: z.string().optional(),
    botStatus: z.enum(['administrator', 'member', 'left', 'kicked']).optional(),
    botRights: flags(ADMIN_RIGHT_KEYS).optional(),
    joinByRequest: z.boolean().optional(),
  }),
  member: z.strictObject({
    chatId: id,
    userId: id,
    status: z.enum(['creator', 'administrator', 'member', 'restricted', 'left', 'kicked']),
    permissions: flags(PERMISSION_KEYS).optional(),
    isMember: z.boolean().optional(),
    untilDate: id.nonnegative().optional(),
    rights: flags(ADMIN_RIGHT_KEYS).optional(),
    customTitle: z.string().optional(),
    notify: z.boolean().optional(),
  }),
  membership: z.strictObject({ chatId: id, userId: id }),
  update: z.record(z.string(), z.unknown()),
  userMessage: z.strictObject({
    userId: id,
    text: z.string().min(1),
    chatId: id.optional(),
    token: z.string().optional(),
  }),
  press: z.strictObject({
    userId: id,
    messageId: id.positive(),
    data: z.string().min(1),
    chatId: id.optional(),
    token: z.string().optional(),
  }),
  fault: z.strictObject({
    method: z.string().min(1).optional(),
    status: id.min(200).max(599).optional(),
    body: z.string().max(1_000_000).optional(),
    contentType: z.string().min(1).max(200).optional(),
    retryAfter: id.nonnegative().optional(),
    description: z.string().optional(),
    delayMs: id.nonnegative().optional(),
    drop: z.boolean().optional(),
    times: id.positive().optional(),
  }),
  pay: z.strictObject({ link: z.string().min(1), userId: id }),
  starOrder: z.strictObject({ order: z.enum(STAR_TRANSACTIONS_ORDERS as unknown as [StarTransactionsOrder, ...StarTransactionsOrder[]]) }),
};

type Route = {
  method: string;
  path: RegExp;
  run: (control: PlatformControl, body: () => Promise<unknown>, url: URL, match: RegExpExecArray) => unknown;
};

const routes: Route[] = [
  { method: 'POST', path: /^\/reset$/, run: (c) => (c.reset(), { ok: true }) },
  { method: 'POST', path: /^\/users$/, run: async (c, body) => c.createUser(schemas.user.parse(camelTopLevel(await body()))) },
  { method: 'POST', path: /^\/chats$/, run: async (c, body) => c.createChat(schemas.chat.parse(camelTopLevel(await body()))) },
  { method: 'POST', path: /^\/members$/, run: async (c, body) => c.setMember(schemas.member.parse(camelTopLevel(await body()))) },
  {
    method: 'POST',
    path: /^\/chats\/(-\d+)\/join-by-request$/,
    run: async (c, body, _url, match) =>
      c.setJoinByRequest(Number(match[1]), z.strictObject({ enabled: z.boolean() }).parse(camelTopLevel(await body())).enabled),
  },
  {
    method: 'GET',
    path: /^\/chats\/(-\d+)\/join-requests$/,
    run: (c, _body, _url, match) => c.joinRequests(Number(match[1])),
  },
  { method: 'POST', path: /^\/join$/, run: async (c, body) => c.join(schemas.membership.parse(camelTopLevel(await body()))) },
  { method: 'POST', path: /^\/leave$/, run: async (c, body) => c.leave(schemas.membership.parse(camelTopLevel(await body()))) },
  {
    method: 'POST',
    path: /^\/updates$/,
    run: async (c, body, url) => c.injectUpdate(schemas.update.parse(await body()), url.searchParams.get('token') ?? undefined),
  },
  {
    method: 'POST',
    path: /^\/messages$/,
    run: async (c, body) => c.sendUserMessage(schemas.userMessage.parse(camelTopLevel(await body()))),
  },
  {
    method: 'GET',
    path: /^\/messages$/,
    run: (c, _body, url) => {
      const chatId = param(url, 'chatId');
      const direction = url.searchParams.get('direction');
      return c.messages({
        ...(chatId === null ? {} : { chatId: Number(chatId) }),
        ...(direction === 'from_bot' || direction === 'to_bot' ? { direction } : {}),
      });
    },
  },
  {
    method: 'POST',
    path: /^\/callback-queries$/,
    run: async (c, body) => c.pressButton(schemas.press.parse(camelTopLevel(await body()))),
  },
  {
    method: 'GET',
    path: /^\/callback-queries\/([^/]+)$/,
    run: (c, _body, _url, match) => {
      const found = c.callbackQuery(decodeURIComponent(match[1] ?? ''));
      if (!found) throw new ControlError(404, 'no such callback_query');
      return found;
    },
  },
  { method: 'GET', path: /^\/commands$/, run: (c, _body, url) => c.commandMenu(url.searchParams.get('token') ?? undefined) },
  { method: 'POST', path: /^\/faults$/, run: async (c, body) => c.addFault(schemas.fault.parse(camelTopLevel(await body()))) },
  { method: 'GET', path: /^\/faults$/, run: (c) => c.faults() },
  { method: 'DELETE', path: /^\/faults$/, run: (c) => (c.clearFaults(), { ok: true }) },
  { method: 'POST', path: /^\/pay$/, run: async (c, body) => c.pay(schemas.pay.parse(camelTopLevel(await body()))) },
  {
    method: 'GET',
    path: /^\/precheckouts\/([^/]+)$/,
    run: (c, _body, _url, match) => {
      const found = c.preCheckout(decodeURIComponent(match[1] ?? ''));
      if (!found) throw new ControlError(404, 'no such pre_checkout_query');
      return found;
    },
  },
  {
    method: 'GET',
    path: /^\/star-refunds$/,
    run: (c, _body, url) => {
      const userId = param(url, 'userId');
      if (userId !== null && !/^\d+$/.test(userId)) throw new ControlError(400, 'user_id must be a user id');
      return c.starRefunds(userId === null ? {} : { userId: Number(userId) });
    },
  },
  { method: 'GET', path: /^\/star-transactions$/, run: (c) => c.starTransactions() },
  { method: 'GET', path: /^\/star-transactions\/order$/, run: (c) => c.starTransactionsOrder() },
  {
    method: 'POST',
    path: /^\/star-transactions\/order$/,
    run: async (c, body) => c.setStarTransactionsOrder(schemas.starOrder.parse(await body()).order),
  },
  {
    method: 'POST',
    path: /^\/star-transactions\/unforwarded$/,
    run: async (c, body) => {
      const input = z
        .strictObject({
          userId: id.positive(),
          amount: id.positive(),
          payload: z.string().max(128).default(''),
          date: id.positive().optional(),
        })
        .parse(camelTopLevel(await body()));
      const { date, ...rest } = input;
      return c.unforwardedCharge(date === undefined ? rest : { ...rest, date });
    },
  },
  {
    method: 'POST',
    path: /^\/star-transactions\/([^/]+)\/refund$/,
    run: (c, _body, _url, match) => (c.platformRefund(decodeURIComponent(match[1] ?? '')), { ok: true }),
  },
  {
    method: 'POST',
    path: /^\/star-transactions\/([^/]+)\/support-refund$/,
    run: (c, _body, _url, match) => c.supportRefund(decodeURIComponent(match[1] ?? '')),
  },
  {
    method: 'POST',
    path: /^\/star-transactions\/([^/]+)\/amount$/,
    run: async (c, body, _url, match) => (
      c.alterCharge(decodeURIComponent(match[1] ?? ''), z.strictObject({ amount: id.positive() }).parse(await body()).amount),
      { ok: true }
    ),
  },
  {
    method: 'DELETE',
    path: /^\/star-transactions\/([^/]+)$/,
    run: (c, _body, _url, match) => (c.forgetCharge(decodeURIComponent(match[1] ?? '')), { ok: true }),
  },
  { method: 'GET', path: /^\/clock$/, run: (c) => c.clock() },
  {
    method: 'POST',
    path: /^\/clock\/advance$/,
    run: async (c, body) => c.advanceClock(z.strictObject({ seconds: id.nonnegative() }).parse(camelTopLevel(await body())).seconds),
  },
  {
    method: 'GET',
    path: /^\/subscriptions$/,
    run: (c, _body, url) => {
      const userId = param(url, 'userId');
      if (userId !== null && !/^\d+$/.test(userId)) throw new ControlError(400, 'user_id must be a user id');
      return c.subscriptions(userId === null ? {} : { userId: Number(userId) });
    },
  },
  {
    method: 'GET',
    path: /^\/subscriptions\/([^/]+)$/,
    run: (c, _body, _url, match) => {
      const found = c.subscription(decodeURIComponent(match[1] ?? ''));
      if (!found) throw new ControlError(404, 'no subscription with that charge');
      return found;
    },
  },
  {
    method: 'POST',
    path: /^\/subscriptions\/([^/]+)\/fail-next-renewal$/,
    run: async (c, body, _url, match) => {
      const { reason } = z.strictObject({ reason: z.string().min(1).max(200).optional() }).parse(camelTopLevel(await body()));
      return c.failNextRenewal(decodeURIComponent(match[1] ?? ''), reason);
    },
  },
  { method: 'GET', path: /^\/calls$/, run: (c, _body, url) => c.calls(url.searchParams.get('method') ?? undefined) },
  { method: 'DELETE', path: /^\/calls$/, run: (c) => (c.clearCalls(), { ok: true }) },
  { method: 'GET', path: /^\/state$/, run: (c) => c.state() },
];

/**
 * Serves the control API under `/_control/...` (JSON in and out): each route validates its body
 * with a strict schema and calls the matching PlatformControl operation. Failures answer
 * `{"error": "..."}` with 400 (bad input) or 404 (unknown route or entity).
 */
export async function handleControl(req: IncomingMessage, res: ServerResponse, url: URL, control: PlatformControl): Promise<void> {
  const sub = url.pathname.slice('/_control'.length);
  const pathMatches = routes.filter((r) => r.path.test(sub));
  const route = pathMatches.find((r) => r.method === req.method);
  if (!route) {
    const status = pathMatches.length > 0 ? 405 : 404;
    return sendJson(res, status, { error: status === 405 ? 'method not allowed' : 'no such control route' });
  }
  const match = route.path.exec(sub) as RegExpExecArray;
  try {
    const result = await route.run(control, () => readJson(req), url, match);
    sendJson(res, 200, result ?? null);
  } catch (err: unknown) {
    if (err instanceof ControlError) return sendJson(res, err.status, { error: err.message });
    if (err instanceof z.ZodError) {
      const problems = err.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
      return sendJson(res, 400, { error: problems.join('; ') });
    }
    throw err;
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = (await readBody(req)).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ControlError(400, 'body is not JSON');
  }
}
