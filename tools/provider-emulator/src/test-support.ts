import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProviderEmulator, type ProviderEmulator, type ProviderEmulatorOptions } from './index.js';

/** Shops the tests use: a test shop and a live one. */
export const SHOP_A = { shopId: 'shop-a', secretKey: 'secret-a', test: true };
export const SHOP_B = { shopId: 'shop-b', secretKey: 'secret-b', test: false };

/** A JSON answer. */
export interface Answer {
  status: number;
  json: Record<string, unknown>;
}

/** A tiny YooKassa API client over fetch, authenticated as one shop. */
export function client(emulator: ProviderEmulator, shop: { shopId: string; secretKey: string } = SHOP_A) {
  const authorization = `Basic ${Buffer.from(`${shop.shopId}:${shop.secretKey}`).toString('base64')}`;
  return {
    get: (path: string): Promise<Answer> => call(emulator.apiUrl + path, { method: 'GET', headers: { authorization } }),
    post: (path: string, body: unknown, key: string | null = nextKey(), headers: Record<string, string> = {}) =>
      call(emulator.apiUrl + path, {
        method: 'POST',
        headers: {
          authorization,
          'content-type': 'application/json',
          ...(key === null ? {} : { 'idempotence-key': key }),
          ...headers,
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}

/** Calls a URL and parses the JSON answer. */
export async function call(url: string, init: RequestInit): Promise<Answer> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, json: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** POSTs to the control API. */
export function control(emulator: ProviderEmulator, path: string, body?: unknown, method = 'POST'): Promise<Answer> {
  return call(`${emulator.url}/_control${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

let keySequence = 0;
/** A fresh idempotence key. */
export function nextKey(): string {
  keySequence += 1;
  return `key-${process.pid}-${keySequence}`;
}

/** A valid payment creation body. */
export function paymentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: { value: '100.00', currency: 'RUB' },
    capture: true,
    confirmation: { type: 'redirect', return_url: 'https://example.test/return' },
    description: 'Order 1',
    ...overrides,
  };
}

/** A notification the receiver got. */
export interface Received {
  body: string;
  json: { type?: string; event?: string; object?: Record<string, unknown> } | null;
}

/** A real HTTP receiver for notifications; answers `status` (200 unless changed). */
export async function startReceiver() {
  const received: Received[] = [];
  const state = { status: 200 };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Received['json'] = null;
      try {
        json = JSON.parse(body) as Received['json'];
      } catch {
        json = null;
      }
      received.push({ body, json });
      response.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    received,
    answerWith(status: number) {
      state.status = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** An emulator with two shops on an ephemeral port. */
export function startEmulator(options: ProviderEmulatorOptions = {}): Promise<ProviderEmulator> {
  return startProviderEmulator({ shops: [SHOP_A, SHOP_B], ...options });
}

/** Creates a payment and returns its id. */
export async function createPayment(emulator: ProviderEmulator, overrides: Record<string, unknown> = {}): Promise<string> {
  const answer = await client(emulator).post('/payments', paymentBody(overrides));
  if (answer.status !== 200 || typeof answer.json.id !== 'string') throw new Error(`payment not created: ${JSON.stringify(answer)}`);
  return answer.json.id;
}
