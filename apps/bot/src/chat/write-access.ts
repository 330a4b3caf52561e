import { PlatformError, type PlatformClient } from '../platform/client.js';
import { chatMemberResult, trueResult } from '../platform/shapes.js';
import { isInChat, type TgChatMember } from '../platform/types.js';

/** Every ChatPermissions flag; all true lifts a restriction (the chat's defaults then apply). */
const PERMISSION_KEYS = [
  'can_send_messages',
  'can_send_audios',
  'can_send_documents',
  'can_send_photos',
  'can_send_videos',
  'can_send_video_notes',
  'can_send_voice_notes',
  'can_send_polls',
  'can_send_other_messages',
  'can_add_web_page_previews',
  'can_change_info',
  'can_invite_users',
  'can_pin_messages',
  'can_manage_topics',
] as const;

/** Where a user stands in the discussion chat, as far as the write gate cares. */
export type Standing = 'absent' | 'admin' | 'member';

/**
 * Looks the user up with getChatMember: `absent` when they are not in the chat (left, kicked, a
 * restricted non-member, or a user the platform does not know), `admin` for the creator and
 * administrators (whom restrictChatMember cannot touch), else `member`. Other failures throw.
 */
export async function standingIn(platform: PlatformClient, chatId: string, userId: number): Promise<Standing> {
  let member: TgChatMember;
  try {
    member = await platform.call('getChatMember', { chat_id: chatId, user_id: userId }, { result: chatMemberResult });
  } catch (err: unknown) {
    if (err instanceof PlatformError && err.status === 400 && /PARTICIPANT_ID_INVALID|user not found/i.test(err.description))
      return 'absent';
    throw err;
  }
  if (!isInChat(member)) return 'absent';
  return member.status === 'creator' || member.status === 'administrator' ? 'admin' : 'member';
}

/**
 * Grants (`allow`) or revokes write access with restrictChatMember: revoking sets every
 * permission false (read-only); granting sets every permission true, which lifts the restriction
 * so the chat's default permissions apply again.
 */
export async function setWriteAccess(platform: PlatformClient, chatId: string, userId: number, allow: boolean): Promise<void> {
  const permissions = Object.fromEntries(PERMISSION_KEYS.map((key) => [key, allow]));
  await platform.call('restrictChatMember', { chat_id: chatId, user_id: userId, permissions }, { result: trueResult });
}

/** A platform user id from an external_id string, or undefined when it is not one. */
export function platformUserId(externalId: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(externalId)) return undefined;
  const id = Number(externalId);
  return Number.isSafeInteger(id) ? id : undefined;
}
