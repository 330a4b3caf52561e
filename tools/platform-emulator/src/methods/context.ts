import type { BotApiResults, EmulatedMethod } from '../conformance/published.js';
import type { Params } from '../params.js';
import type { Payments } from '../payments.js';
import type { BotRecord, World } from '../state.js';

/** What a Bot API method handler works with: the calling bot, its parameters and the world. */
export interface MethodContext {
  bot: BotRecord;
  params: Params;
  world: World;
  payments: Payments;
  /** Aborts when the client disconnects or the server stops (long polls stop waiting). */
  signal: AbortSignal;
}

/**
 * A Bot API method: returns the `result` value (or a promise of it) or throws ApiError for
 * Telegram's `{"ok":false,...}` answer. The result is typed as the method's published result
 * (BotApiResults, from @grammyjs/types), so a handler cannot build an answer that lacks a field
 * the Bot API requires.
 */
export type MethodHandler<M extends EmulatedMethod = EmulatedMethod> = (ctx: MethodContext) => BotApiResults[M] | Promise<BotApiResults[M]>;
