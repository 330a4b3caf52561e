import { connector } from '@wordgame/contracts';
import type { Language } from '@wordgame/i18n';
import type { Logger } from '@wordgame/logging';
import type { CommandOutcome } from '../link/index.js';
import { type PlatformClient, PlatformError } from '../platform/index.js';
import { platformUserId } from './external-id.js';
import { callForCommand, delivered, failed, failureOf, notDelivered } from './outcome.js';
import { RenderError, renderNotification } from './templates.js';

/**
 * The user cannot be messaged by the bot, a clean not-delivered: 403 (they blocked the bot or never
 * started it) or 400 "chat not found" (the platform has no private chat with them).
 */
function unreachableUser(err: unknown): boolean {
  return err instanceof PlatformError && (err.status === 403 || (err.status === 400 && /chat not found/i.test(err.description)));
}

/** The platform user id of a recipient; undefined (and a reason) when it is not one of ours. */
function recipientId(recipient: connector.PlatformIdentity | undefined): { id: number } | { problem: string } {
  if (!recipient) return { problem: 'command has no recipient' };
  const kind = recipient.kind;
  if (kind !== connector.PlatformKind.TELEGRAM && kind !== connector.PlatformKind.UNSPECIFIED) {
    return { problem: `recipient is a ${connector.PlatformKind[kind] ?? String(kind)} identity, not this platform's` };
  }
  const id = platformUserId(recipient.externalId);
  return id === undefined ? { problem: 'recipient external_id is not a platform user id' } : { id };
}

/**
 * Books a private chat's send slot for a message sent now (the bot's one ChatPacer): the chat
 * commands' answers and the refund notices to that chat then keep the platform's pace after it. A
 * command is sent at once, never held back past its Ack deadline.
 */
export type NoteSent = (chatId: number) => void;

/**
 * Sends `text` privately, booking the chat's slot when `noteSent` is given; a user who blocked or
 * never started the bot is a clean not-delivered.
 */
async function sendPrivately(
  platform: PlatformClient,
  recipient: connector.PlatformIdentity | undefined,
  text: string,
  logger: Logger,
  noteSent?: NoteSent,
): Promise<CommandOutcome> {
  const to = recipientId(recipient);
  if ('problem' in to) return failed(to.problem);
  try {
    noteSent?.(to.id);
    await callForCommand(platform, 'sendMessage', { chat_id: to.id, text });
    return delivered();
  } catch (err: unknown) {
    if (unreachableUser(err)) {
      logger.info({ reason: err instanceof PlatformError ? err.description : '' }, 'user cannot be messaged by the bot');
      return notDelivered();
    }
    return failureOf(err);
  }
}

/** send_to_user: the text as a private message. */
export function sendToUser(
  platform: PlatformClient,
  request: connector.SendToUserRequest,
  logger: Logger,
  noteSent?: NoteSent,
): Promise<CommandOutcome> {
  return sendPrivately(platform, request.recipient, request.text, logger, noteSent);
}

/** The language to write to a platform user in: theirs when the bot has seen it, else the configured default. */
export type LanguageFor = (platformUserId: number | undefined) => Language;

/**
 * notify: a payment-outcome kind rendered in the recipient's language and sent privately; other
 * kinds are in-app only (not delivered).
 */
export async function notify(
  platform: PlatformClient,
  request: connector.NotifyRequest,
  logger: Logger,
  languageFor: LanguageFor,
  noteSent?: NoteSent,
): Promise<CommandOutcome> {
  let text: string | undefined;
  try {
    const to = recipientId(request.recipient);
    text = renderNotification(request.kind, request.params, languageFor('id' in to ? to.id : undefined));
  } catch (err: unknown) {
    if (err instanceof RenderError) return failed(err.message);
    throw err;
  }
  if (text === undefined) return notDelivered();
  return sendPrivately(platform, request.recipient, text, logger, noteSent);
}

/** send_to_channel: a post to the configured game channel; none configured is a clean not-delivered. */
export async function sendToChannel(
  platform: PlatformClient,
  channelId: string | undefined,
  request: connector.SendToGameChannelRequest,
): Promise<CommandOutcome> {
  if (channelId === undefined) return notDelivered();
  try {
    await callForCommand(platform, 'sendMessage', { chat_id: channelId, text: request.text });
    return delivered();
  } catch (err: unknown) {
    return failureOf(err);
  }
}
