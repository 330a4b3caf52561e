import type { MessageInitShape } from '@bufbuild/protobuf';
import type { botlink, CommandOutcome } from '@wordgame/contracts';

/** A command's payload with its kind set (the `payload` oneof of botlink.v1.Command, message or init form). */
export type CommandPayload = Exclude<NonNullable<MessageInitShape<typeof botlink.CommandSchema>['payload']>, { case: undefined }>;

/**
 * The payload kind: notify, send_to_user, send_to_channel, chat_gate, create_invoice or
 * refund_star_payment, get_star_transactions (camelCase here; kindLabel gives the metric label). Every kind of the
 * contract's oneof is carried as is: the hub never filters kinds.
 */
export type CommandKind = CommandPayload['case'];

/** What became of one command (the contract's one definition, `CommandOutcome` in libs/contracts). */
export type Outcome = CommandOutcome;

/** Outcome error when the Link ended before the command's Ack. */
export const LINK_LOST = 'link_lost';
/** Outcome error when the chosen Link's send queue was full. */
export const QUEUE_FULL = 'queue_full';
/** Outcome error when the command's id was written to a Link of this gateway before (a second copy, dropped). */
export const DUPLICATE_COMMAND = 'duplicate_command';
