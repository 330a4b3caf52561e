import { createHash } from 'node:crypto';
import type { BotCommand, MenuButton } from '@grammyjs/types';
import { UpdateQueue, type QueueSnapshot } from './updates.js';
import {
  ADMIN_RIGHT_KEYS,
  type MemberStatus,
  type TgAdminRights,
  type TgBotUser,
  type TgChat,
  type TgChatPermissions,
  type TgMessage,
  type TgUser,
} from './types.js';
import type { ChatRef } from './args.js';
import type { StarTransactionsOrder } from './star-order.js';

/** One accepted bot token and its own update queue. */
export interface BotRecord {
  token: string;
  user: TgBotUser;
  queue: UpdateQueue;
}

/** A user of the emulated world; `started` means the user pressed Start (the bot may write first). */
export interface UserRecord {
  user: TgUser;
  started: boolean;
  blocked: boolean;
}

/** Someone's standing in a chat; `permissions` only for `restricted`, `rights` only for admins. */
export interface MemberRecord {
  status: MemberStatus;
  isMember: boolean;
  untilDate: number;
  permissions?: TgChatPermissions;
  rights?: TgAdminRights;
  customTitle?: string;
}

/**
 * A group, supergroup or channel, with its members and the bot's own membership. `joinByRequest`:
 * joining needs an administrator's approval (ChatFullInfo.join_by_request); `joinRequests` holds the
 * pending requests by user id, with their unix date.
 */
export interface ChatRecord {
  chat: TgChat;
  bot: MemberRecord;
  members: Map<number, MemberRecord>;
  joinByRequest?: boolean;
  joinRequests?: Map<number, number>;
}

/** A message in a chat, sent by the bot (`from_bot`) or by a user towards the bot (`to_bot`). */
export interface MessageRecord {
  chatId: number;
  direction: 'from_bot' | 'to_bot';
  botId: number;
  message: TgMessage;
  options?: Record<string, unknown>;
}

/** An invoice created by createInvoiceLink, addressable by its link. */
export interface InvoiceRecord {
  link: string;
  botId: number;
  title: string;
  description: string;
  payload: string;
  currency: string;
  amount: number;
  subscriptionPeriod?: number;
  createdAt: string;
}

export type PreCheckoutStatus = 'pending' | 'approved' | 'rejected' | 'expired';

/** A pre_checkout_query sent to the bot and what became of it. */
export interface PreCheckoutRecord {
  id: string;
  botId: number;
  link: string;
  userId: number;
  currency: string;
  totalAmount: number;
  payload: string;
  status: PreCheckoutStatus;
  errorMessage?: string;
  createdAt: string;
  answeredAt?: string;
  telegramPaymentChargeId?: string;
}

/**
 * A completed Stars payment (the successful_payment the bot was sent): the charge, its payer and
 * amount, and `refundedAt` once refundStarPayment returned it to the payer (at most once).
 */
export interface PaymentRecord {
  telegramPaymentChargeId: string;
  preCheckoutQueryId: string;
  botId: number;
  userId: number;
  link: string;
  payload: string;
  currency: string;
  totalAmount: number;
  at: string;
  refundedAt?: string;
  /** For a subscription's charge: the period it pays for (seconds) and the subscription's id (its first charge id). */
  subscriptionPeriod?: number;
  subscriptionId?: string;
}

/**
 * A Stars subscription started by paying an invoice with `subscription_period`: keyed by its first
 * charge id, it lists every charge (first payment, then each renewal), the unix second its paid
 * period ends, whether the bot cancelled its extension (editUserStarSubscription) and whether the
 * next renewal is to fail (control API; the user lacks the stars). `expired` once a period ended
 * without a renewal.
 */
export interface SubscriptionRecord {
  id: string;
  botId: number;
  userId: number;
  link: string;
  payload: string;
  currency: string;
  amount: number;
  period: number;
  chargeIds: string[];
  startedAt: number;
  expiresAt: number;
  canceled: boolean;
  failNextRenewal?: string;
  status: 'active' | 'expired';
  /** Why it expired: `canceled` or the renewal failure's reason. */
  endReason?: string;
}

/**
 * A callback_query sent to a bot (a user pressed an inline button, or a test played a hostile
 * client's press with any data) and the bot's answerCallbackQuery, once it came.
 */
export interface CallbackQueryRecord {
  id: string;
  botId: number;
  userId: number;
  chatId: number;
  messageId: number;
  data: string;
  at: string;
  answeredAt?: number;
  answer?: { text?: string; showAlert: boolean; url?: string };
}

/**
 * The world as plain JSON (what the state file holds): every record, the id counters, and each
 * bot's update queue (its next update_id and the updates not yet confirmed), keyed by token.
 */
export interface WorldSnapshot {
  version: 1;
  users: UserRecord[];
  chats: Array<{
    chat: TgChat;
    bot: MemberRecord;
    members: Array<[number, MemberRecord]>;
    joinByRequest?: boolean;
    joinRequests?: Array<[number, number]>;
  }>;
  messages: MessageRecord[];
  invoices: InvoiceRecord[];
  preCheckouts: PreCheckoutRecord[];
  payments: PaymentRecord[];
  messageIds: Array<[number, number]>;
  lastUserId: number;
  lastChatSeq: number;
  starOrder: StarTransactionsOrder;
  bots: Array<{ token: string; queue: QueueSnapshot }>;
  /** setMyCommands lists by `botId|scope|language_code` (absent in files written before them). */
  botCommands?: Array<[string, BotCommand[]]>;
  /** setChatMenuButton buttons by `botId|chat id` or `botId|default`. */
  menuButtons?: Array<[string, MenuButton]>;
  callbackQueries?: CallbackQueryRecord[];
  /** Stars subscriptions (absent in files written before them). */
  subscriptions?: SubscriptionRecord[];
  /** Seconds the emulator's clock runs ahead of the machine's (POST /_control/clock/advance). */
  clockOffsetSeconds?: number;
}

/** Rights the bot holds in chats created without saying otherwise. */
export function fullAdminRights(): TgAdminRights {
  const rights = Object.fromEntries(ADMIN_RIGHT_KEYS.map((key) => [key, true])) as TgAdminRights;
  rights.is_anonymous = false;
  return rights;
}

/** Unix time in seconds, as in every Telegram `date`. */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * The whole emulated world: bots (one per accepted token), users, chats and members, messages,
 * invoices, pre-checkout queries and payments. Plain data plus lookups; the behaviour lives in
 * the method and control modules. `reset()` empties it but keeps update ids growing.
 */
export class World {
  readonly bots: BotRecord[];
  readonly users = new Map<number, UserRecord>();
  readonly chats = new Map<number, ChatRecord>();
  readonly messages: MessageRecord[] = [];
  readonly invoices = new Map<string, InvoiceRecord>();
  readonly preCheckouts = new Map<string, PreCheckoutRecord>();
  readonly payments: PaymentRecord[] = [];
  /** Each bot's command lists (setMyCommands), by `botId|scope|language_code`. */
  readonly botCommands = new Map<string, BotCommand[]>();
  /** Each bot's menu buttons (setChatMenuButton), by `botId|chat id` or `botId|default`. */
  readonly menuButtons = new Map<string, MenuButton>();
  readonly callbackQueries = new Map<string, CallbackQueryRecord>();
  /** Stars subscriptions by their first charge id. */
  readonly subscriptions = new Map<string, SubscriptionRecord>();
  /** How far the emulated clock runs ahead of the machine's, in seconds (never negative). */
  clockOffsetSeconds = 0;
  private readonly messageIds = new Map<number, number>();
  private lastUserId = 1_000_000;
  private lastChatSeq = 0;

  readonly primaryBot: BotRecord;
  /** The order getStarTransactions answers in; `reset()` restores the one the emulator started with. */
  starOrder: StarTransactionsOrder;
  private readonly defaultStarOrder: StarTransactionsOrder;

  /**
   * `tokens` must hold at least one token; the first is the default bot of the control API.
   * `starOrder` is getStarTransactions' order (default chronological, as the Bot API documents).
   */
  constructor(tokens: readonly string[], starOrder: StarTransactionsOrder = 'oldest_first') {
    this.defaultStarOrder = starOrder;
    this.starOrder = starOrder;
    this.bots = tokens.map((token, index) => makeBot(token, index));
    const first = this.bots[0];
    if (!first) throw new RangeError('at least one bot token is required');
    this.primaryBot = first;
  }

  /** Empties the world (bots and their update counters stay). */
  reset(): void {
    this.users.clear();
    this.chats.clear();
    this.messages.length = 0;
    this.invoices.clear();
    this.preCheckouts.clear();
    this.payments.length = 0;
    this.botCommands.clear();
    this.menuButtons.clear();
    this.callbackQueries.clear();
    this.subscriptions.clear();
    this.clockOffsetSeconds = 0;
    this.messageIds.clear();
    this.starOrder = this.defaultStarOrder;
    for (const bot of this.bots) bot.queue.clear();
  }

  /** The world's data as plain JSON (see WorldSnapshot). */
  toSnapshot(): WorldSnapshot {
    return {
      version: 1,
      users: [...this.users.values()],
      chats: [...this.chats.values()].map((c) => ({
        chat: c.chat,
        bot: c.bot,
        members: [...c.members.entries()],
        ...(c.joinByRequest === true ? { joinByRequest: true } : {}),
        ...(c.joinRequests && c.joinRequests.size > 0 ? { joinRequests: [...c.joinRequests.entries()] } : {}),
      })),
      messages: this.messages,
      invoices: [...this.invoices.values()],
      preCheckouts: [...this.preCheckouts.values()],
      payments: this.payments,
      messageIds: [...this.messageIds.entries()],
      lastUserId: this.lastUserId,
      lastChatSeq: this.lastChatSeq,
      starOrder: this.starOrder,
      bots: this.bots.map((b) => ({ token: b.token, queue: b.queue.toSnapshot() })),
      botCommands: [...this.botCommands.entries()],
      menuButtons: [...this.menuButtons.entries()],
      callbackQueries: [...this.callbackQueries.values()],
      subscriptions: [...this.subscriptions.values()],
      clockOffsetSeconds: this.clockOffsetSeconds,
    };
  }

  /**
   * Replaces the world's data with a snapshot's. A pre-checkout query still pending in it is
   * expired (its answer deadline passed while the emulator was down); queues of tokens no longer
   * accepted are dropped.
   */
  restore(snapshot: WorldSnapshot): void {
    this.reset();
    for (const u of snapshot.users) this.users.set(u.user.id, u);
    for (const c of snapshot.chats) {
      const record: ChatRecord = { chat: c.chat, bot: c.bot, members: new Map(c.members) };
      if (c.joinByRequest === true) record.joinByRequest = true;
      if (c.joinRequests) record.joinRequests = new Map(c.joinRequests);
      this.chats.set(c.chat.id, record);
    }
    this.messages.push(...snapshot.messages);
    for (const i of snapshot.invoices) this.invoices.set(i.link, i);
    for (const q of snapshot.preCheckouts) this.preCheckouts.set(q.id, q.status === 'pending' ? { ...q, status: 'expired' } : q);
    this.payments.push(...snapshot.payments);
    for (const [key, commands] of snapshot.botCommands ?? []) this.botCommands.set(key, commands);
    for (const [key, button] of snapshot.menuButtons ?? []) this.menuButtons.set(key, button);
    for (const q of snapshot.callbackQueries ?? []) this.callbackQueries.set(q.id, q);
    for (const sub of snapshot.subscriptions ?? []) this.subscriptions.set(sub.id, sub);
    this.clockOffsetSeconds = snapshot.clockOffsetSeconds ?? 0;
    for (const [chatId, last] of snapshot.messageIds) this.messageIds.set(chatId, last);
    this.lastUserId = snapshot.lastUserId;
    this.lastChatSeq = snapshot.lastChatSeq;
    this.starOrder = snapshot.starOrder;
    for (const saved of snapshot.bots) this.botByToken(saved.token)?.queue.restore(saved.queue);
  }

  /** The emulated clock in unix seconds: the machine's time plus the offset the control API advanced it by. */
  now(): number {
    return unixNow() + this.clockOffsetSeconds;
  }

  /** The emulated clock as an ISO timestamp (millisecond precision, as the records keep it). */
  nowIso(): string {
    return new Date(Date.now() + this.clockOffsetSeconds * 1000).toISOString();
  }

  botByToken(token: string): BotRecord | undefined {
    return this.bots.find((bot) => bot.token === token);
  }

  botById(id: number): BotRecord | undefined {
    return this.bots.find((bot) => bot.user.id === id);
  }

  /** A fresh user id above every id handed out or chosen so far. */
  newUserId(): number {
    for (const id of this.users.keys()) this.lastUserId = Math.max(this.lastUserId, id);
    return ++this.lastUserId;
  }

  /** A fresh chat id shaped like Telegram's: -100… for supergroups and channels, negative for groups. */
  newChatId(type: 'group' | 'supergroup' | 'channel'): number {
    this.lastChatSeq += 1;
    const id = type === 'group' ? -(4_000_000_000 + this.lastChatSeq) : -(1_002_000_000_000 + this.lastChatSeq);
    return this.chats.has(id) ? this.newChatId(type) : id;
  }

  /** The next message_id in a chat (ids are per chat, as in Telegram). */
  nextMessageId(chatId: number): number {
    const next = (this.messageIds.get(chatId) ?? 0) + 1;
    this.messageIds.set(chatId, next);
    return next;
  }

  /** The private chat object of a user (its id is the user's id). */
  privateChat(user: TgUser): TgChat {
    const chat: TgChat = { id: user.id, type: 'private', first_name: user.first_name };
    if (user.last_name !== undefined) chat.last_name = user.last_name;
    if (user.username !== undefined) chat.username = user.username;
    return chat;
  }

  /** Resolves a chat_id to a group/supergroup/channel record or a user's private chat. */
  findChat(ref: ChatRef): { kind: 'group'; record: ChatRecord } | { kind: 'private'; user: UserRecord } | undefined {
    if ('id' in ref) {
      const record = this.chats.get(ref.id);
      if (record) return { kind: 'group', record };
      const user = this.users.get(ref.id);
      return user ? { kind: 'private', user } : undefined;
    }
    for (const record of this.chats.values()) {
      if (record.chat.username?.toLowerCase() === ref.username) return { kind: 'group', record };
    }
    for (const user of this.users.values()) {
      if (user.user.username?.toLowerCase() === ref.username) return { kind: 'private', user };
    }
    return undefined;
  }

  /** A user's standing in a chat; `left` when never recorded. */
  member(chat: ChatRecord, userId: number): MemberRecord {
    return chat.members.get(userId) ?? { status: 'left', isMember: false, untilDate: 0 };
  }
}

function makeBot(token: string, index: number): BotRecord {
  const prefix = /^(\d+):/.exec(token)?.[1];
  const id = prefix !== undefined ? Number(prefix) : 7_000_000_000 + hashToInt(token);
  const username = index === 0 ? 'emulator_bot' : `emulator_${index + 1}_bot`;
  return {
    token,
    user: {
      id,
      is_bot: true,
      first_name: index === 0 ? 'Emulated Bot' : `Emulated Bot ${index + 1}`,
      username,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
      has_topics_enabled: false,
      allows_users_to_create_topics: false,
      can_manage_bots: false,
      supports_join_request_queries: false,
    },
    queue: new UpdateQueue(100_000_000 + (hashToInt(`${token}#updates`) % 800_000_000)),
  };
}

function hashToInt(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) % 1_000_000_000;
}
