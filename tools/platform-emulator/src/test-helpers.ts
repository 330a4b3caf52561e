import { BotApiChecker, type Divergence } from './conformance/checker.js';
import { startPlatformEmulator, type PlatformEmulator, type PlatformEmulatorOptions } from './index.js';

/** Telegram's answer envelope, as tests read it. */
export interface ApiBody {
  ok: boolean;
  result?: unknown;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

/** One Bot API answer: status, headers and the parsed body. */
export interface ApiAnswer<R = unknown> {
  status: number;
  headers: Headers;
  body: ApiBody & { result?: R };
}

/** How to send parameters: JSON body (default), urlencoded form, or query string with GET. */
export type Encoding = 'json' | 'form' | 'query';

/** Calls a Bot API method over real HTTP, as a bot would. */
export async function callApi<R = unknown>(
  emulator: PlatformEmulator,
  method: string,
  params: Record<string, unknown> = {},
  options: { token?: string; encoding?: Encoding; signal?: AbortSignal } = {},
): Promise<ApiAnswer<R>> {
  const token = options.token ?? emulator.tokens[0] ?? '';
  const base = `${emulator.apiRoot}/bot${token}/${method}`;
  const asText = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const encoding = options.encoding ?? 'json';
  const init: RequestInit = { method: 'POST' };
  if (options.signal) init.signal = options.signal;
  let url = base;
  if (encoding === 'json') {
    init.headers = { 'content-type': 'application/json' };
    init.body = JSON.stringify(params);
  } else if (encoding === 'form') {
    init.body = new URLSearchParams(asText);
  } else {
    init.method = 'GET';
    url = `${base}?${new URLSearchParams(asText).toString()}`;
  }
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, body: (await res.json()) as ApiBody & { result?: R } };
}

/** Calls the control API over HTTP. */
export async function controlApi<T = unknown>(
  emulator: PlatformEmulator,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.headers = { 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  const res = await fetch(`${emulator.url}/_control${path}`, init);
  return { status: res.status, body: (await res.json()) as T };
}

/** Polls `condition` until it holds; fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** True while the first bot has a getUpdates call waiting. */
export function isPolling(emulator: PlatformEmulator): boolean {
  return emulator.control.state().bots[0]?.polling ?? false;
}

const checker = new BotApiChecker();
const divergences: Divergence[] = [];

/**
 * Starts an emulator whose every Bot API answer is held against the published types
 * (BotApiChecker); the project's jest setup (test/setup-conformance.ts) fails any test after
 * which a divergence was seen. The emulator's own tests all start it this way.
 */
export function startCheckedEmulator(options: PlatformEmulatorOptions = {}): Promise<PlatformEmulator> {
  return startPlatformEmulator({
    ...options,
    onAnswer: (answer) => {
      divergences.push(...checker.check(answer));
      options.onAnswer?.(answer);
    },
  });
}

/** Divergences seen since the last call (and forgets them). */
export function takeDivergences(): Divergence[] {
  return divergences.splice(0, divergences.length);
}
