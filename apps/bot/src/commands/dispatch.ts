import type { botlink } from '@wordgame/contracts';
import type { CommandHandler } from '../link/index.js';
import type { PlatformClient } from '../platform/index.js';
import { chatGate } from './chat-gate.js';
import { createInvoice } from './create-invoice.js';
import { editStarSubscription } from './edit-star-subscription.js';
import { forgetUser, type ForgetUser } from './forget-user.js';
import { notify, sendToChannel, sendToUser, type LanguageFor, type NoteSent } from './messages.js';
import { failed } from './outcome.js';
import { refundStarPayment } from './refund-star-payment.js';
import { getStarTransactions } from './star-transactions.js';

export interface CommandDeps {
  platform: PlatformClient;
  /** BOT_GAME_CHANNEL_ID. */
  gameChannelId: string | undefined;
  /** BOT_DISCUSSION_CHAT_ID. */
  discussionChatId: string | undefined;
  /** The language of a user's notifications (the one learned from their updates, else the default). */
  languageFor: LanguageFor;
  /** Erases what the bot's file keeps of one user (forget_user). */
  forget: ForgetUser;
  /** Books a private chat's send slot (BOT_CHAT_SEND_GAP_MS) for a notify or send_to_user sent now. */
  noteSent?: NoteSent;
}

/**
 * The Ack error for a Command whose payload this bot cannot handle: a payload kind added to the
 * contract after this bot was built arrives as an unknown field (protobuf keeps it aside and the
 * oneof reads as unset), and a Command may carry no payload at all. Names the unknown field numbers.
 */
export function unknownKind(command: botlink.Command): string {
  const fields = [...new Set((command.$unknown ?? []).map((field) => field.no))];
  return fields.length > 0 ? `unknown command kind (Command field ${fields.join(', ')})` : 'unknown command kind (no payload)';
}

/**
 * Routes each Command to the handler of its payload. A payload this bot does not know (a newer
 * gateway's kind) or no payload is an error Ack, never a crash: the bot keeps serving the Link.
 */
export function commandHandler(deps: CommandDeps): CommandHandler {
  return async (command, logger) => {
    const { payload } = command;
    switch (payload.case) {
      case 'notify':
        return notify(deps.platform, payload.value, logger, deps.languageFor, deps.noteSent);
      case 'sendToUser':
        return sendToUser(deps.platform, payload.value, logger, deps.noteSent);
      case 'sendToChannel':
        return sendToChannel(deps.platform, deps.gameChannelId, payload.value);
      case 'chatGate':
        return chatGate(deps.platform, deps.discussionChatId, payload.value, logger);
      case 'createInvoice':
        return createInvoice(deps.platform, payload.value);
      case 'refundStarPayment':
        return refundStarPayment(deps.platform, payload.value, logger);
      case 'getStarTransactions':
        return getStarTransactions(deps.platform, payload.value, logger);
      case 'forgetUser':
        return forgetUser(deps.forget, payload.value, logger);
      case 'editStarSubscription':
        return editStarSubscription(deps.platform, payload.value, logger);
      case undefined: {
        const error = unknownKind(command);
        logger.warn({ error }, 'command of a kind this bot does not know');
        return failed(error);
      }
    }
  };
}
