import type { CommandHandler } from '../link/client.js';
import type { PlatformClient } from '../platform/client.js';
import { chatGate } from './chat-gate.js';
import { createInvoice } from './create-invoice.js';
import { notify, sendToChannel, sendToUser } from './messages.js';
import { failed } from './outcome.js';

export interface CommandDeps {
  platform: PlatformClient;
  /** BOT_GAME_CHANNEL_ID. */
  gameChannelId: string | undefined;
  /** BOT_DISCUSSION_CHAT_ID. */
  discussionChatId: string | undefined;
}

/** Routes each Command to the handler of its payload; a Command with no payload is an error Ack. */
export function commandHandler(deps: CommandDeps): CommandHandler {
  return async (command, logger) => {
    const { payload } = command;
    switch (payload.case) {
      case 'notify':
        return notify(deps.platform, payload.value, logger);
      case 'sendToUser':
        return sendToUser(deps.platform, payload.value, logger);
      case 'sendToChannel':
        return sendToChannel(deps.platform, deps.gameChannelId, payload.value);
      case 'chatGate':
        return chatGate(deps.platform, deps.discussionChatId, payload.value, logger);
      case 'createInvoice':
        return createInvoice(deps.platform, payload.value);
      case 'refundStarPayment':
        return failed('refund_star_payment is not handled by this bot yet');
      case undefined:
        return failed('command has no payload');
    }
  };
}
