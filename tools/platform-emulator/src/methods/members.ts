import { boolArg, chatIdArg, intArg, jsonArg, userIdArg } from '../args.js';
import { badRequest } from '../errors.js';
import { assertBotInChat, botIsAdmin, botMayInvite, changeMember, chatMemberJson, findUser } from '../members.js';
import type { ChatRecord, MemberRecord } from '../state.js';
import { unixNow } from '../state.js';
import { PERMISSION_KEYS, type PermissionKey, type TgChatPermissions } from '../types.js';
import type { MethodContext, MethodHandler } from './context.js';

const MEDIA_PERMISSIONS = [
  'can_send_audios',
  'can_send_documents',
  'can_send_photos',
  'can_send_videos',
  'can_send_video_notes',
  'can_send_voice_notes',
] as const;

/** Permissions that, when omitted, take another permission's value (ChatPermissions in the Bot API). */
const DEFAULTED = [
  ['can_react_to_messages', 'can_send_messages'],
  ['can_edit_tag', 'can_pin_messages'],
  ['can_manage_topics', 'can_pin_messages'],
] as const satisfies readonly (readonly [PermissionKey, PermissionKey])[];

/**
 * getChatMember: the user's ChatMember from emulator state (`left` if never recorded). Unknown
 * users fail with PARTICIPANT_ID_INVALID, unknown chats with `chat not found`, chats the bot is
 * not in with Telegram's 403, and a channel where the bot is no admin with `member list is
 * inaccessible`.
 */
export const getChatMember: MethodHandler<'getChatMember'> = ({ bot, params, world }) => {
  const ref = chatIdArg(params);
  const userId = userIdArg(params);
  const target = world.findChat(ref);
  if (!target) throw badRequest('chat not found');
  const user = findUser(world, userId);
  if (target.kind === 'private') {
    if (!user) throw badRequest('PARTICIPANT_ID_INVALID');
    const inChat = userId === target.user.user.id || userId === bot.user.id;
    return chatMemberJson(user, { status: inChat ? 'member' : 'left', isMember: inChat, untilDate: 0 });
  }
  const chat = target.record;
  assertBotInChat(chat);
  if (chat.chat.type === 'channel' && !botIsAdmin(chat)) throw badRequest('member list is inaccessible');
  if (!user) throw badRequest('PARTICIPANT_ID_INVALID');
  return chatMemberJson(user, user.id === bot.user.id ? chat.bot : world.member(chat, userId));
};

/**
 * restrictChatMember: supergroups only, needs the bot to be an admin with can_restrict_members,
 * never restricts an admin. The permissions are read by the Bot API's rules (readPermissions).
 * Telegram's rule for the outcome: only every permission true lifts the restriction (status
 * `member`, or `left` for someone not in the chat); any permission false leaves the user
 * `restricted` with exactly those permissions, `is_member` and `until_date`. Sends every bot the
 * resulting `chat_member` update.
 */
export const restrictChatMember: MethodHandler<'restrictChatMember'> = (ctx) => {
  const { bot, params, world } = ctx;
  const ref = chatIdArg(params);
  const userId = userIdArg(params);
  const permissions = readPermissions(ctx);
  const target = world.findChat(ref);
  if (!target) throw badRequest('chat not found');
  if (target.kind === 'private' || target.record.chat.type !== 'supergroup') {
    throw badRequest('method is available only for supergroups');
  }
  const chat = target.record;
  assertBotInChat(chat);
  if (!botIsAdmin(chat) || (chat.bot.status === 'administrator' && chat.bot.rights?.can_restrict_members !== true)) {
    throw badRequest('not enough rights to restrict/unrestrict chat member');
  }
  const user = findUser(world, userId);
  if (!user) throw badRequest('PARTICIPANT_ID_INVALID');
  const current = user.id === bot.user.id ? chat.bot : world.member(chat, userId);
  if (current.status === 'creator' || current.status === 'administrator') {
    throw badRequest('user is an administrator of the chat');
  }
  const isMember = current.status === 'member' || (current.status === 'restricted' && current.isMember);
  const lifted = PERMISSION_KEYS.every((key) => permissions[key]);
  const next: MemberRecord = lifted
    ? { status: isMember ? 'member' : 'left', isMember, untilDate: 0 }
    : { status: 'restricted', isMember, untilDate: untilDate(intArg(params, 'until_date')), permissions };
  const from = findUser(world, bot.user.id) ?? user;
  changeMember(world, chat, user, next, from);
  return true;
};

/** Telegram treats a restriction under 30 s or over 366 days away as forever (until_date 0). */
function untilDate(value: number | undefined): number {
  if (value === undefined || Number.isNaN(value) || value <= 0) return 0;
  const now = unixNow();
  return value < now + 30 || value > now + 366 * 86_400 ? 0 : value;
}

/**
 * The permissions a restrictChatMember call sets, by the Bot API's ChatPermissions rules: a field
 * omitted is false, except `can_react_to_messages` (defaults to can_send_messages) and
 * `can_edit_tag` and `can_manage_topics` (default to can_pin_messages); without
 * `use_independent_chat_permissions`, can_send_other_messages and can_add_web_page_previews imply
 * can_send_messages and the media permissions, and can_send_polls implies can_send_messages.
 */
function readPermissions({ params }: MethodContext): TgChatPermissions {
  const raw = jsonArg(params, 'permissions', "can't parse permissions JSON object");
  if (raw === undefined || raw === '') throw badRequest("can't parse permissions JSON object");
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest('object expected as permissions');
  const given = raw as Record<string, unknown>;
  const perms = {} as TgChatPermissions;
  for (const key of PERMISSION_KEYS) {
    const value = given[key];
    if (value !== undefined && typeof value !== 'boolean') {
      throw badRequest(`can't parse chat permissions: Field "${key}" must be of type Boolean`);
    }
    perms[key] = value === true;
  }
  if (!boolArg(params, 'use_independent_chat_permissions')) {
    if (perms.can_send_other_messages || perms.can_add_web_page_previews) {
      perms.can_send_messages = true;
      for (const key of MEDIA_PERMISSIONS) perms[key] = true;
    }
    if (perms.can_send_polls) perms.can_send_messages = true;
  }
  for (const [key, source] of DEFAULTED) {
    if (given[key] === undefined) perms[key] = perms[source];
  }
  return perms;
}

/**
 * The chat and user of an approveChatJoinRequest / declineChatJoinRequest call, checked as Telegram
 * does: an unknown chat is `chat not found`, a chat the bot is not in the usual 403, a bot that is no
 * administrator with can_invite_users CHAT_ADMIN_REQUIRED, and no pending request of that user
 * HIDE_REQUESTER_MISSING.
 */
function pendingJoinRequest({ params, world }: MethodContext): { chat: ChatRecord; userId: number } {
  const ref = chatIdArg(params);
  const userId = userIdArg(params);
  const target = world.findChat(ref);
  if (!target || target.kind === 'private') throw badRequest('chat not found');
  const chat = target.record;
  assertBotInChat(chat);
  if (!botMayInvite(chat)) throw badRequest('CHAT_ADMIN_REQUIRED');
  if (chat.joinRequests?.has(userId) !== true) throw badRequest('HIDE_REQUESTER_MISSING');
  return { chat, userId };
}

/**
 * approveChatJoinRequest `{chat_id, user_id}`: the pending request's user becomes a member (a
 * `chat_member` update marked via_join_request, from the bot) and the request is gone; true.
 */
export const approveChatJoinRequest: MethodHandler<'approveChatJoinRequest'> = (ctx) => {
  const { chat, userId } = pendingJoinRequest(ctx);
  chat.joinRequests?.delete(userId);
  const user = findUser(ctx.world, userId);
  if (!user) throw badRequest('HIDE_REQUESTER_MISSING');
  const current = ctx.world.member(chat, userId);
  const next: MemberRecord =
    current.status === 'restricted' ? { ...current, isMember: true } : { status: 'member', isMember: true, untilDate: 0 };
  changeMember(ctx.world, chat, user, next, findUser(ctx.world, ctx.bot.user.id) ?? user, true);
  return true;
};

/** declineChatJoinRequest `{chat_id, user_id}`: the pending request is dropped, the user stays outside; true. */
export const declineChatJoinRequest: MethodHandler<'declineChatJoinRequest'> = (ctx) => {
  const { chat, userId } = pendingJoinRequest(ctx);
  chat.joinRequests?.delete(userId);
  return true;
};
