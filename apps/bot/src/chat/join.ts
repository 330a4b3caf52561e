import type { Logger } from '@wordgame/logging';
import type { PlatformClient } from '../platform/client.js';
import { isInChat, type TgChat, type TgUpdate, type TgUser } from '../platform/types.js';
import { setWriteAccess } from './write-access.js';

/** The eligibility answer the bot acts on (ResolveChatEligibility). */
export type ResolveEligibility = (externalId: string) => Promise<{ registered: boolean; eligible: boolean }>;

/** A user who just entered the discussion chat; `unrestricted` when they joined as a plain member. */
export interface Joiner {
  user: TgUser;
  unrestricted: boolean;
}

/** True when `chat` is the configured chat (numeric id or @username). */
export function isChat(chat: TgChat, configured: string): boolean {
  if (configured.startsWith('@')) return chat.username !== undefined && `@${chat.username}`.toLowerCase() === configured.toLowerCase();
  return String(chat.id) === configured;
}

/**
 * The people who entered the discussion chat in this update: a `chat_member` change from outside
 * the chat to inside it, or a `new_chat_members` service message. Bots are left alone. Both kinds
 * can report the same join; acting twice is harmless (the same restriction again).
 */
export function joinersOf(update: TgUpdate, chatId: string): Joiner[] {
  const change = update.chat_member;
  if (change && isChat(change.chat, chatId)) {
    const entered = !isInChat(change.old_chat_member) && isInChat(change.new_chat_member);
    if (!entered || change.new_chat_member.user.is_bot) return [];
    return [{ user: change.new_chat_member.user, unrestricted: change.new_chat_member.status === 'member' }];
  }
  const message = update.message;
  if (message?.new_chat_members && isChat(message.chat, chatId)) {
    return message.new_chat_members.filter((u) => !u.is_bot).map((user) => ({ user, unrestricted: false }));
  }
  return [];
}

/**
 * Acts on a joiner's eligibility: eligible users may write (a plain member already can, so no
 * call is made), everyone else (unregistered, suspended, chat-muted) is made read-only. When
 * eligibility cannot be resolved (channel down, timeout) nothing changes and the failure is
 * logged; the gateway's later chat_gate commands correct the standing.
 */
export async function gateJoiner(
  platform: PlatformClient,
  chatId: string,
  joiner: Joiner,
  resolve: ResolveEligibility,
  logger: Logger,
): Promise<void> {
  const log = logger.child({ platformUserId: joiner.user.id });
  let eligible: boolean;
  try {
    ({ eligible } = await resolve(String(joiner.user.id)));
  } catch (err: unknown) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'chat eligibility unresolved; standing left as it is');
    return;
  }
  if (eligible && joiner.unrestricted) return;
  await setWriteAccess(platform, chatId, joiner.user.id, eligible);
  log.info({ eligible }, 'discussion chat write access set on join');
}
