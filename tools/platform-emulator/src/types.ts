/**
 * The Telegram Bot API object shapes the emulator produces (https://core.telegram.org/bots/api),
 * limited to the fields it fills. Field names are Telegram's snake_case so values serialise as-is.
 */

/** https://core.telegram.org/bots/api#user */
export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

/** The user object `getMe` returns: a User plus the bot capability flags. */
export interface TgBotUser extends TgUser {
  can_join_groups: boolean;
  can_read_all_group_messages: boolean;
  supports_inline_queries: boolean;
  can_connect_to_business: boolean;
  has_main_web_app: boolean;
}

export type ChatType = 'private' | 'group' | 'supergroup' | 'channel';

/** https://core.telegram.org/bots/api#chat */
export interface TgChat {
  id: number;
  type: ChatType;
  title?: string;
  username?: string;
  first_name?: string;
  last_name?: string;
}

/** https://core.telegram.org/bots/api#successfulpayment (the Telegram Stars subset). */
export interface TgSuccessfulPayment {
  currency: string;
  total_amount: number;
  invoice_payload: string;
  telegram_payment_charge_id: string;
  provider_payment_charge_id: string;
  subscription_expiration_date?: number;
  is_recurring?: true;
  is_first_recurring?: true;
}

/** https://core.telegram.org/bots/api#messageentity (only what the emulator generates). */
export interface TgMessageEntity {
  type: string;
  offset: number;
  length: number;
}

/** https://core.telegram.org/bots/api#message */
export interface TgMessage {
  message_id: number;
  from?: TgUser;
  sender_chat?: TgChat;
  date: number;
  chat: TgChat;
  text?: string;
  entities?: TgMessageEntity[];
  reply_markup?: unknown;
  successful_payment?: TgSuccessfulPayment;
}

/** An update as delivered by getUpdates: `update_id` plus exactly one payload field. */
export type TgUpdate = { update_id: number } & Record<string, unknown>;

/** The boolean fields of https://core.telegram.org/bots/api#chatpermissions, in Telegram's order. */
export const PERMISSION_KEYS = [
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

export type PermissionKey = (typeof PERMISSION_KEYS)[number];
export type TgChatPermissions = Record<PermissionKey, boolean>;

/** The boolean fields of https://core.telegram.org/bots/api#chatadministratorrights. */
export const ADMIN_RIGHT_KEYS = [
  'is_anonymous',
  'can_manage_chat',
  'can_delete_messages',
  'can_manage_video_chats',
  'can_restrict_members',
  'can_promote_members',
  'can_change_info',
  'can_invite_users',
  'can_post_stories',
  'can_edit_stories',
  'can_delete_stories',
  'can_post_messages',
  'can_edit_messages',
  'can_pin_messages',
  'can_manage_topics',
] as const;

export type AdminRightKey = (typeof ADMIN_RIGHT_KEYS)[number];
export type TgAdminRights = Record<AdminRightKey, boolean>;

export type MemberStatus = 'creator' | 'administrator' | 'member' | 'restricted' | 'left' | 'kicked';

/** https://core.telegram.org/bots/api#chatmember, flattened the way Telegram serialises it. */
export type TgChatMember = { status: MemberStatus; user: TgUser } & Record<string, unknown>;
