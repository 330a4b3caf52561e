import type * as Tg from '@grammyjs/types';

/**
 * What the bot reads of the Bot API, taken from @grammyjs/types (the Bot API reference as
 * TypeScript types, the version grammY 1.46.0 pins). Each `Tg*` type is a read view: the fields
 * the bot uses, typed from the published type. The checks at the bottom make the build fail when
 * a view stops being a projection of its published type (a field the published type lacks, or a
 * type or required-ness the published answers would not satisfy). Deliberate loosenings, each
 * still a projection: a chat's `type` and a partner's `type` are any string (a kind Telegram adds
 * later is ignored, not refused) and `language_code` is read as an unknown value.
 */

export type TgUser = Pick<Tg.User, 'id' | 'is_bot' | 'first_name'> &
  Partial<Pick<Tg.User, 'username'>> & {
    /** IETF language tag of the user's client, when Telegram sends it (read only as an unknown value). */
    language_code?: unknown;
  };

export interface TgChat {
  id: Tg.Chat['id'];
  type: string;
  username?: Tg.Chat.SupergroupChat['username'];
}

/**
 * A successful payment as read; a subscription's charge also carries `is_recurring`,
 * `is_first_recurring` (its first charge) and `subscription_expiration_date` (unix seconds). The two
 * flags are published as `true` when present; they are read as booleans (a hostile `false` reads
 * as not set, never as a type error that would lose the payment).
 */
export type TgSuccessfulPayment = Pick<
  Tg.SuccessfulPayment,
  'currency' | 'total_amount' | 'invoice_payload' | 'telegram_payment_charge_id'
> &
  Partial<Pick<Tg.SuccessfulPayment, 'subscription_expiration_date'>> & {
    is_recurring?: boolean;
    is_first_recurring?: boolean;
  };

/** A refund made outside the bot (Telegram support, say): the charge and what it paid, as the bot reads it. */
export type TgRefundedPayment = Pick<Tg.RefundedPayment, 'currency' | 'total_amount' | 'invoice_payload' | 'telegram_payment_charge_id'>;

export interface TgMessage {
  message_id: Tg.Message['message_id'];
  chat: TgChat;
  from?: TgUser;
  new_chat_members?: TgUser[];
  successful_payment?: TgSuccessfulPayment;
  text?: Tg.Message.TextMessage['text'];
  /** The text's entities; a command is a `bot_command` entity at offset 0. */
  entities?: TgMessageEntity[];
  refunded_payment?: TgRefundedPayment;
}

/** A message entity as read: its kind and where it sits in the text (UTF-16 code units). */
export type TgMessageEntity = Pick<Tg.MessageEntity, 'offset' | 'length'> & { type: string };

/** A message a button was pressed on, as read (an accessible or an inaccessible one). */
export interface TgCallbackMessage {
  message_id: Tg.Message['message_id'];
  chat: TgChat;
}

/** A button press (callback_query): who pressed, on which message, and the button's data as sent (untrusted). */
export type TgCallbackQuery = Pick<Tg.CallbackQuery, 'id'> &
  Partial<Pick<Tg.CallbackQuery, 'data'>> & { from: TgUser; message?: TgCallbackMessage };

/** A ChatMember in any of its status shapes; `is_member` is part of (only) the `restricted` one. */
export type TgChatMember =
  | { status: Exclude<Tg.ChatMember['status'], 'restricted'>; user: TgUser }
  | ({ user: TgUser } & Pick<Tg.ChatMemberRestricted, 'status' | 'is_member'>);

export interface TgChatMemberUpdated {
  chat: TgChat;
  from: TgUser;
  old_chat_member: TgChatMember;
  new_chat_member: TgChatMember;
  via_join_request?: Tg.ChatMemberUpdated['via_join_request'];
}

/** A request to join a chat that takes join requests (the bot approves or declines it). */
export interface TgChatJoinRequest {
  chat: TgChat;
  from: TgUser;
  user_chat_id: Tg.ChatJoinRequest['user_chat_id'];
  date: Tg.ChatJoinRequest['date'];
}

export type TgPreCheckoutQuery = Pick<Tg.PreCheckoutQuery, 'id' | 'currency' | 'total_amount' | 'invoice_payload'> & { from: TgUser };

export interface TgUpdate {
  update_id: Tg.Update['update_id'];
  message?: TgMessage;
  chat_member?: TgChatMemberUpdated;
  pre_checkout_query?: TgPreCheckoutQuery;
  callback_query?: TgCallbackQuery;
  chat_join_request?: TgChatJoinRequest;
}

/** getMe as the bot reads it. */
export type TgMe = Pick<Tg.UserFromGetMe, 'id'> & Partial<Pick<Tg.UserFromGetMe, 'username'>>;

/** A TransactionPartner as read: only the user kind (payments from and refunds to users) is used. */
export interface TgTransactionPartner {
  type: string;
  user?: TgUser;
  invoice_payload?: Tg.TransactionPartnerUser['invoice_payload'];
  /** Seconds of the subscription period a subscription's charge paid for. */
  subscription_period?: Tg.TransactionPartnerUser['subscription_period'];
}

export type TgStarTransaction = Pick<Tg.StarTransaction, 'id' | 'amount' | 'date'> & {
  source?: TgTransactionPartner;
  receiver?: TgTransactionPartner;
};

export interface TgStarTransactions {
  transactions: TgStarTransaction[];
}

/** An update as it came from getUpdates: its id is read, everything else is checked per update later. */
export type TgRawUpdate = Pick<Tg.Update, 'update_id'> & { [K in Exclude<keyof Tg.Update, 'update_id'>]?: unknown };

/** The Bot API methods the bot calls, and nothing else. */
export type BotMethod =
  | 'getMe'
  | 'getUpdates'
  | 'sendMessage'
  | 'createInvoiceLink'
  | 'answerPreCheckoutQuery'
  | 'getChatMember'
  | 'restrictChatMember'
  | 'refundStarPayment'
  | 'getStarTransactions'
  | 'editUserStarSubscription'
  | 'answerCallbackQuery'
  | 'setMyCommands'
  | 'setChatMenuButton'
  | 'approveChatJoinRequest'
  | 'declineChatJoinRequest';

/** A method's parameters exactly as published (`Opts` of @grammyjs/types; no files are sent). */
export type MethodParams<M extends BotMethod> = Tg.Opts<never>[M];

/** A method's result exactly as published. */
export type PublishedResult<M extends BotMethod> = ReturnType<Tg.ApiMethods<never>[M]>;

/** What the bot reads of each method's result (see the read views above). */
export interface ReadResults {
  getMe: TgMe;
  getUpdates: TgRawUpdate[];
  sendMessage: Pick<Tg.Message, 'message_id'>;
  createInvoiceLink: PublishedResult<'createInvoiceLink'>;
  answerPreCheckoutQuery: boolean;
  getChatMember: TgChatMember;
  restrictChatMember: boolean;
  refundStarPayment: boolean;
  getStarTransactions: TgStarTransactions;
  editUserStarSubscription: boolean;
  answerCallbackQuery: boolean;
  setMyCommands: boolean;
  setChatMenuButton: boolean;
  approveChatJoinRequest: boolean;
  declineChatJoinRequest: boolean;
}

/** True when every field `View` names exists (in some member of) `Published` and every published value fits the view. */
type Projects<Published, View> = [Published] extends [View]
  ? [Exclude<KeysOf<View>, KeysOf<Published>>] extends [never]
    ? true
    : { unknownFields: Exclude<KeysOf<View>, KeysOf<Published>> }
  : { publishedDoesNotFit: View };
type KeysOf<T> = T extends readonly (infer E)[] ? KeysOf<E> : T extends object ? keyof T : never;

/**
 * Compiles only while each read view is a projection of its published type; the validators in
 * shapes.ts are in turn checked to produce these views, so what the bot accepts at run time
 * agrees with what the Bot API publishes.
 */
export const READ_VIEWS_PROJECT_PUBLISHED_TYPES: {
  results: { [M in BotMethod]: Projects<PublishedResult<M>, ReadResults[M]> };
  user: Projects<Tg.User, TgUser>;
  chat: Projects<Tg.Chat, TgChat>;
  message: Projects<Tg.Message, TgMessage>;
  successfulPayment: Projects<Tg.SuccessfulPayment, TgSuccessfulPayment>;
  refundedPayment: Projects<Tg.RefundedPayment, TgRefundedPayment>;
  chatMember: Projects<Tg.ChatMember, TgChatMember>;
  chatMemberUpdated: Projects<Tg.ChatMemberUpdated, TgChatMemberUpdated>;
  chatJoinRequest: Projects<Tg.ChatJoinRequest, TgChatJoinRequest>;
  preCheckoutQuery: Projects<Tg.PreCheckoutQuery, TgPreCheckoutQuery>;
  update: Projects<Tg.Update, TgUpdate>;
  transactionPartner: Projects<Tg.TransactionPartner, TgTransactionPartner>;
  starTransaction: Projects<Tg.StarTransaction, TgStarTransaction>;
  messageEntity: Projects<Tg.MessageEntity, TgMessageEntity>;
  callbackQuery: Projects<Tg.CallbackQuery, TgCallbackQuery>;
} = {
  results: {
    getMe: true,
    getUpdates: true,
    sendMessage: true,
    createInvoiceLink: true,
    answerPreCheckoutQuery: true,
    getChatMember: true,
    restrictChatMember: true,
    refundStarPayment: true,
    getStarTransactions: true,
    editUserStarSubscription: true,
    answerCallbackQuery: true,
    setMyCommands: true,
    setChatMenuButton: true,
    approveChatJoinRequest: true,
    declineChatJoinRequest: true,
  },
  user: true,
  chat: true,
  message: true,
  successfulPayment: true,
  refundedPayment: true,
  chatMember: true,
  chatMemberUpdated: true,
  chatJoinRequest: true,
  preCheckoutQuery: true,
  update: true,
  transactionPartner: true,
  starTransaction: true,
  messageEntity: true,
  callbackQuery: true,
};

/** True when the member is in the chat (restricted members carry `is_member`). */
export function isInChat(member: TgChatMember): boolean {
  switch (member.status) {
    case 'creator':
    case 'administrator':
    case 'member':
      return true;
    case 'restricted':
      return member.is_member;
    default:
      return false;
  }
}
