import type { MessageInitShape } from '@bufbuild/protobuf';
import type { botlink } from '@wordgame/contracts';

/** A command's payload with its kind set (the `payload` oneof of botlink.v1.Command, message or init form). */
export type CommandPayload = Exclude<NonNullable<MessageInitShape<typeof botlink.CommandSchema>['payload']>, { case: undefined }>;

/**
 * The payload kind: notify, send_to_user, send_to_channel, chat_gate, create_invoice or
 * refund_star_payment, get_star_transactions (camelCase here; kindLabel gives the metric label). Every kind of the
 * contract's oneof is carried as is: the hub never filters kinds.
 */
export type CommandKind = CommandPayload['case'];

/**
 * What became of one command. `failed` is the bot's Ack.error (the bot was reached: an unexpected
 * transport or render failure delivering the Command); `error` covers a Link that ended before the
 * Ack (`link_lost`), a full send queue (`queue_full`) and a peer gateway that could not be asked;
 * `timeout` means no Ack in time (the command may still have reached the bot); `no_bot` means
 * nothing was sent.
 */
export type Outcome =
  | { status: 'delivered'; result: string }
  | { status: 'not_delivered' }
  | { status: 'failed'; error: string }
  | { status: 'error'; error: string }
  | { status: 'timeout' }
  | { status: 'no_bot' };

/** Outcome error when the Link ended before the command's Ack. */
export const LINK_LOST = 'link_lost';
/** Outcome error when the chosen Link's send queue was full. */
export const QUEUE_FULL = 'queue_full';
