import { isInChat, type PlatformClient, PlatformError, type TgChatMember } from '../platform/index.js';
import type { ChatPermissions } from '@grammyjs/types';

/**
 * Write access granted: every permission the Bot API defines, true. Typed as the published
 * `Required<ChatPermissions>`, so a permission added to @grammyjs/types is a build error here until
 * it is granted too: Telegram lifts a restriction only when every permission is true, and a grant
 * that leaves one out would leave the player `restricted`.
 */
export const GRANT_ALL = {
  can_send_messages: true,
  can_send_audios: true,
  can_send_documents: true,
  can_send_photos: true,
  can_send_videos: true,
  can_send_video_notes: true,
  can_send_voice_notes: true,
  can_send_polls: true,
  can_send_other_messages: true,
  can_add_web_page_previews: true,
  can_react_to_messages: true,
  can_change_info: true,
  can_invite_users: true,
  can_edit_tag: true,
  can_pin_messages: true,
  can_manage_topics: true,
} as const satisfies Required<ChatPermissions>;

/** Write access revoked (read-only): every permission of GRANT_ALL, false. */
export const REVOKE_ALL = Object.fromEntries(Object.keys(GRANT_ALL).map((key) => [key, false])) as {
  [K in keyof typeof GRANT_ALL]: false;
};

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
    member = await platform.call('getChatMember', { chat_id: chatId, user_id: userId });
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
 * permission false (read-only, REVOKE_ALL); granting sets every permission the Bot API defines
 * true (GRANT_ALL), which lifts the restriction so the chat's default permissions apply again.
 */
export async function setWriteAccess(platform: PlatformClient, chatId: string, userId: number, allow: boolean): Promise<void> {
  await platform.call('restrictChatMember', { chat_id: chatId, user_id: userId, permissions: allow ? GRANT_ALL : REVOKE_ALL });
}
