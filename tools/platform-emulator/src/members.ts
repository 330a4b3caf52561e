import { forbidden } from './errors.js';
import type { ChatRecord, MemberRecord, World } from './state.js';
import { unixNow } from './state.js';
import type { EnqueueResult } from './updates.js';
import { ADMIN_RIGHT_KEYS, PERMISSION_KEYS, type TgChatMember, type TgUser } from './types.js';

/** Serialises a member record as Telegram's ChatMember (one of its six status shapes). */
export function chatMemberJson(user: TgUser, rec: MemberRecord): TgChatMember {
  const title = rec.customTitle === undefined ? {} : { custom_title: rec.customTitle };
  switch (rec.status) {
    case 'creator':
      return { status: 'creator', user, is_anonymous: false, ...title };
    case 'administrator': {
      const rights = fill(ADMIN_RIGHT_KEYS, rec.rights ?? {});
      return { status: 'administrator', user, can_be_edited: false, ...rights, ...title };
    }
    case 'member':
      return rec.untilDate > 0 ? { status: 'member', user, until_date: rec.untilDate } : { status: 'member', user };
    case 'restricted': {
      const perms = fill(PERMISSION_KEYS, rec.permissions ?? {});
      return { status: 'restricted', user, is_member: rec.isMember, ...perms, until_date: rec.untilDate };
    }
    case 'left':
      return { status: 'left', user };
    case 'kicked':
      return { status: 'kicked', user, until_date: rec.untilDate };
  }
}

/** Every key of `keys` as a boolean, false unless `given` says true. */
export function fill<K extends string>(keys: readonly K[], given: Partial<Record<K, boolean>>): Record<K, boolean> {
  return Object.fromEntries(keys.map((key) => [key, given[key] === true])) as Record<K, boolean>;
}

/** The User object for an id: a world user or one of the emulated bots. */
export function findUser(world: World, id: number): TgUser | undefined {
  const bot = world.botById(id)?.user;
  if (bot) {
    const { id: botId, is_bot, first_name, username } = bot;
    return username === undefined ? { id: botId, is_bot, first_name } : { id: botId, is_bot, first_name, username };
  }
  return world.users.get(id)?.user;
}

/** The chat's kind as Telegram words it in membership errors ("supergroup chat", "channel chat"). */
function chatNoun(chat: ChatRecord): string {
  return `${chat.chat.type} chat`;
}

/** Throws Telegram's 403 when the bot has left or was removed from the chat. */
export function assertBotInChat(chat: ChatRecord): void {
  if (chat.bot.status === 'kicked') throw forbidden(`bot was kicked from the ${chatNoun(chat)}`);
  if (chat.bot.status === 'left') throw forbidden(`bot is not a member of the ${chatNoun(chat)}`);
}

/** True when the bot administers the chat (creator or administrator). */
export function botIsAdmin(chat: ChatRecord): boolean {
  return chat.bot.status === 'administrator' || chat.bot.status === 'creator';
}

/**
 * Records a member's new standing and, when it changed, sends Telegram's `chat_member` update (old
 * and new ChatMember, `from` who made the change) to every bot, if the bot administers the chat:
 * the Bot API delivers chat_member only to administrators (and only when asked for in
 * allowed_updates, which the queue applies); `viaJoinRequest` marks a join an administrator approved.
 * Returns the per-bot enqueue results.
 */
export function changeMember(
  world: World,
  chat: ChatRecord,
  user: TgUser,
  next: MemberRecord,
  from: TgUser,
  viaJoinRequest = false,
): EnqueueResult[] {
  const before = chatMemberJson(user, world.member(chat, user.id));
  chat.members.set(user.id, next);
  const after = chatMemberJson(user, next);
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const payload = {
    chat_member: {
      chat: chat.chat,
      from,
      date: unixNow(),
      old_chat_member: before,
      new_chat_member: after,
      ...(viaJoinRequest ? { via_join_request: true } : {}),
    },
  };
  if (!botIsAdmin(chat)) return world.bots.map(() => ({ queued: false, reason: 'chat_member goes only to administrators of the chat' }));
  return world.bots.map((bot) => bot.queue.enqueue(payload));
}

/**
 * Who may answer a chat's join requests: an administrator with can_invite_users (the Bot API's
 * rule for approveChatJoinRequest / declineChatJoinRequest, and for receiving chat_join_request).
 */
export function botMayInvite(chat: ChatRecord): boolean {
  return chat.bot.status === 'creator' || (chat.bot.status === 'administrator' && chat.bot.rights?.can_invite_users === true);
}
