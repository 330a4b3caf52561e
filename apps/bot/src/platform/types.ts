/**
 * The Bot API object fields the bot reads (https://core.telegram.org/bots/api), snake_case as on
 * the wire. Only what the bot uses; everything else in an update is ignored.
 */

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name?: string;
  username?: string;
  /** IETF language tag of the user's client, when Telegram sends it (read only as an unknown value). */
  language_code?: unknown;
}

export interface TgChat {
  id: number;
  type: string;
  username?: string;
}

export interface TgSuccessfulPayment {
  currency: string;
  total_amount: number;
  invoice_payload: string;
  telegram_payment_charge_id: string;
}

export interface TgMessage {
  message_id: number;
  chat: TgChat;
  from?: TgUser;
  new_chat_members?: TgUser[];
  successful_payment?: TgSuccessfulPayment;
}

/** A ChatMember in any of its status shapes; `is_member` is set only for `restricted`. */
export interface TgChatMember {
  status: 'creator' | 'administrator' | 'member' | 'restricted' | 'left' | 'kicked';
  user: TgUser;
  is_member?: boolean;
}

export interface TgChatMemberUpdated {
  chat: TgChat;
  from: TgUser;
  old_chat_member: TgChatMember;
  new_chat_member: TgChatMember;
}

export interface TgPreCheckoutQuery {
  id: string;
  from: TgUser;
  currency: string;
  total_amount: number;
  invoice_payload: string;
}

export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  chat_member?: TgChatMemberUpdated;
  pre_checkout_query?: TgPreCheckoutQuery;
}

/** True when the member is in the chat (restricted members carry `is_member`). */
export function isInChat(member: TgChatMember): boolean {
  switch (member.status) {
    case 'creator':
    case 'administrator':
    case 'member':
      return true;
    case 'restricted':
      return member.is_member === true;
    default:
      return false;
  }
}
