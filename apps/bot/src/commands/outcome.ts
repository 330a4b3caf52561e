import { type BotMethod, type MethodParams, type PlatformClient, PlatformError, type ReadResults } from '../platform/index.js';
import type { CommandOutcome } from '../link/index.js';

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
export async function callForCommand<M extends BotMethod>(
  platform: PlatformClient,
  method: M,
  params: MethodParams<M>,
  attempts = 3,
): Promise<ReadResults[M]> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return (await platform.call<BotMethod>(method, params)) as ReadResults[M];
    } catch (err: unknown) {
      if (!(err instanceof PlatformError && err.kind === 'rate_limited') || attempt >= attempts) throw err;
    }
  }
}
