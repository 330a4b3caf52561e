import { confirmByPage, signTelegramInitData } from '@wordgame/testkit';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TELEGRAM_BOT_TOKEN } from './stack.js';
import { waitFor } from './wait.js';

/** One HTTP answer: status and parsed JSON body (undefined when empty or not JSON). */
export interface Answer {
  status: number;
  body: unknown;
}

/** fetch with an optional JSON body; a transport failure throws (the caller decides what it means). */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; json?: unknown; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
    signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

/** A customer's session. */
export interface Customer {
  token: string;
  accountId: string;
}

/** The Authorization header of a customer. */
export const bearer = (c: Customer): Record<string, string> => ({ authorization: `Bearer ${c.token}` });

/** The operator API's Authorization header for an operator session token. */
export const operator = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

function session(res: Answer, what: string): Customer {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as { token: string; account_id: string };
  return { token: body.token, accountId: body.account_id };
}

/**
 * Telegram Mini App init data for `userId`, signed as Telegram documents it: secret =
 * HMAC_SHA256("WebAppData", bot token), hash = HMAC_SHA256(secret, the sorted key=value lines).
 */
export function telegramInitData(userId: number): string {
  const fields: Record<string, string> = {
    query_id: `faults-${userId}`,
    user: JSON.stringify({ id: userId, first_name: 'Payer' }),
    auth_date: String(Math.floor(Date.now() / 1000)),
  };
  return signTelegramInitData(TELEGRAM_BOT_TOKEN, fields);
}

/** A telegram Mini App session for platform user `userId`. */
export async function telegramCustomer(api: string, userId: number): Promise<Customer> {
  return session(
    await call(`${api}/session/telegram`, { method: 'POST', json: { init_data: telegramInitData(userId) } }),
    'telegram session',
  );
}

/** A direct (web) customer signed up with `email`; with `mailDir`, the confirmation link mailed at signup is followed. */
export async function directCustomer(api: string, email: string, mailDir?: string): Promise<Customer> {
  const customer = session(
    await call(`${api}/session/direct`, { method: 'POST', json: { email, password: 'faults password 1', mode: 'signup', subtype: 'web' } }),
    'direct session',
  );
  if (mailDir !== undefined) await confirmEmail(api, mailDir, email);
  return customer;
}

/** Opens the newest confirmation link mailed to `email` in the backend's dev mailbox and presses the page's button, as the customer would. */
async function confirmEmail(api: string, mailDir: string, email: string): Promise<void> {
  let token: string | undefined;
  await waitFor(`confirmation mail to ${email}`, () => {
    for (const file of readdirSync(mailDir).sort().reverse()) {
      const mail = readFileSync(join(mailDir, file), 'utf8').replace(/=\r?\n/g, '');
      if (!mail.includes(email)) continue;
      token = /confirm-email\?token=([A-Za-z0-9_%=-]+)/.exec(mail)?.[1];
      if (token !== undefined) return true;
    }
    return false;
  });
  const res = await confirmByPage(`${api}/user/profile/confirm-email?token=${token ?? ''}`);
  if (res.outcome !== 'confirmed') throw new Error(`confirm e-mail: ${res.status} ${res.message}`);
}

/** A product as the operator catalog editor takes it. */
export interface ProductDraft {
  title: string;
  atoms: { kind: 'chips' | 'hints' | 'no_ads_days' | 'no_ads_forever'; quantity: bigint }[];
  prices: { method: 'chips' | 'xtr' | 'provider'; amount: bigint; currency: string }[];
}

/** Creates a product through the operator API as the operator of `operatorToken`; answers its id. */
export async function createProduct(gateway: string, draft: ProductDraft, operatorToken: string): Promise<string> {
  const res = await call(`${gateway}/_gm/api/catalog/products`, {
    method: 'POST',
    headers: operator(operatorToken),
    json: {
      title: draft.title,
      texts: { ru: { title: draft.title } },
      atoms: draft.atoms.map((a) => ({ kind: a.kind, quantity: a.quantity.toString() })),
      prices: draft.prices.map((p) => ({ method: p.method, amount: p.amount.toString(), currency: p.currency })),
    },
  });
  if (res.status !== 201) throw new Error(`create product: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { product_id: string }).product_id;
}

/** An order as the REST edge answers it (the fields the suites read). */
export interface Order {
  order_id: string;
  state: string;
  amount: string;
  currency: string;
  chips: string;
  invoice_link: string | null;
  confirmation_url: string | null;
  refunded: boolean;
}

/** Opens an order for `productId` on `rail`; answers the edge's reply (201 with the order, or the error). */
export function createOrder(api: string, customer: Customer, productId: string, rail: 'stars' | 'card'): Promise<Answer> {
  return call(`${api}/user/wallet/orders`, { method: 'POST', headers: bearer(customer), json: { product_id: productId, rail } });
}

/** Reads one of the customer's orders. */
export async function getOrder(api: string, customer: Customer, orderId: string): Promise<Order> {
  const res = await call(`${api}/user/wallet/orders/${orderId}`, { headers: bearer(customer) });
  if (res.status !== 200) throw new Error(`order ${orderId}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Order;
}

/** The balance of one segment of the customer's wallet ("0" when absent). */
export async function balance(api: string, customer: Customer, segment: string): Promise<bigint> {
  const res = await call(`${api}/user/wallet`, { headers: bearer(customer) });
  if (res.status !== 200) throw new Error(`wallet: ${res.status} ${JSON.stringify(res.body)}`);
  const wallet = res.body as { segments: { segment: string; balance: string }[] };
  return BigInt(wallet.segments.find((s) => s.segment === segment)?.balance ?? '0');
}
