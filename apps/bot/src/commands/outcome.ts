import type { z } from 'zod';
import { PlatformError, type PlatformClient } from '../platform/client.js';
import type { CommandOutcome } from '../link/client.js';

/** Delivered, with an optional result (the invoice link). */
export function delivered(result = ''): CommandOutcome {
  return { delivered: true, error: '', result };
}

/** A clean not-delivered: kind not rendered out-of-app, user never started the bot, nothing configured. */
export function notDelivered(): CommandOutcome {
  return { delivered: false, error: '', result: '' };
}

/** An unexpected failure (transport, 5xx, unknown 4xx, bad command): error set, not delivered. */
export function failed(error: string): CommandOutcome {
  return { delivered: false, error, result: '' };
}

/** The Ack error text for an exception: the platform's status and description, never the token. */
export function failureOf(err: unknown): CommandOutcome {
  if (err instanceof PlatformError) return failed(err.message);
  return failed(err instanceof Error ? err.message : 'unexpected failure');
}

/**
 * Calls the platform for a command. A 429 is retried (up to `attempts` calls): the client holds
 * every call until the bounded Retry-After pause is over, so the retry waits it out. Other
 * failures throw at once.
 */
export async function callForCommand<T>(
  platform: PlatformClient,
  method: string,
  params: Record<string, unknown>,
  result: z.ZodType<T>,
  attempts = 3,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await platform.call(method, params, { result });
    } catch (err: unknown) {
      if (!(err instanceof PlatformError && err.kind === 'rate_limited') || attempt >= attempts) throw err;
    }
  }
}
