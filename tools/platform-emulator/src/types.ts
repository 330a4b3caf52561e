/**
 * The Telegram Bot API objects the emulator produces, taken from @grammyjs/types (the Bot API
 * reference as TypeScript types, the version grammY 1.46.0 pins) rather than written here, so an
 * answer the emulator builds cannot lack a field the published types require. Field names are
 * Telegram's snake_case so values serialise as-is.
 */
import type {
  Chat,
  ChatAdministratorRights,
  ChatMember,
  ChatPermissions,
  Message,
  MessageEntity,
  SuccessfulPayment,
  Update,
  User,
  UserFromGetMe,
} from '@grammyjs/types';

/** https://core.telegram.org/bots/api#user */
export type TgUser = User;

/** The user object `getMe` returns: a User plus the bot capability flags. */
export type TgBotUser = UserFromGetMe;

export type ChatType = Chat['type'];

/** https://core.telegram.org/bots/api#chat */
export type TgChat = Chat;

/** https://core.telegram.org/bots/api#successfulpayment */
export type TgSuccessfulPayment = SuccessfulPayment;

/** https://core.telegram.org/bots/api#messageentity */
export type TgMessageEntity = MessageEntity;

/** https://core.telegram.org/bots/api#message */
export type TgMessage = Message;

/** https://core.telegram.org/bots/api#update (the emulator's own updates; tests may queue raw ones). */
export type TgUpdate = Update;

/**
 * Every field of https://core.telegram.org/bots/api#chatpermissions. The mapped type makes the
 * build fail when the published type gains or loses a permission, so the emulator's rule "all
 * true lifts a restriction" always counts every permission the Bot API defines.
 */
const PERMISSIONS: { [K in keyof Required<ChatPermissions>]: true } = {
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
};

export type PermissionKey = keyof ChatPermissions;

/** The ChatPermissions fields, in Telegram's order. */
export const PERMISSION_KEYS = Object.keys(PERMISSIONS) as PermissionKey[];

/** A complete ChatPermissions (what a ChatMemberRestricted carries). */
export type TgChatPermissions = Required<ChatPermissions>;

/** Every field of https://core.telegram.org/bots/api#chatadministratorrights (the build fails on drift). */
const ADMIN_RIGHTS: { [K in keyof Required<ChatAdministratorRights>]: true } = {
  is_anonymous: true,
  can_manage_chat: true,
  can_delete_messages: true,
  can_manage_video_chats: true,
  can_restrict_members: true,
  can_promote_members: true,
  can_change_info: true,
  can_invite_users: true,
  can_manage_tags: true,
  can_post_stories: true,
  can_edit_stories: true,
  can_delete_stories: true,
  can_post_messages: true,
  can_edit_messages: true,
  can_pin_messages: true,
  can_manage_topics: true,
  can_manage_direct_messages: true,
  can_send_welcome_messages: true,
};

export type AdminRightKey = keyof ChatAdministratorRights;

/** The ChatAdministratorRights fields. */
export const ADMIN_RIGHT_KEYS = Object.keys(ADMIN_RIGHTS) as AdminRightKey[];

/** A complete ChatAdministratorRights. */
export type TgAdminRights = Required<ChatAdministratorRights>;

export type MemberStatus = ChatMember['status'];

/** https://core.telegram.org/bots/api#chatmember (one of its six status shapes). */
export type TgChatMember = ChatMember;
