import { createHash, randomBytes } from 'node:crypto';
import type { BotCommand, CallbackQuery, MenuButton } from '@grammyjs/types';
import type { CallLog, CallRecord } from './calls.js';
import { ControlError } from './errors.js';
import type { FaultRecord, FaultSpec, FaultTable } from './faults.js';
import { botIsAdmin, botMayInvite, changeMember, chatMemberJson, fill, findUser } from './members.js';
import type { PayResult, Payments } from './payments.js';
import {
  fullAdminRights,
  unixNow,
  type BotRecord,
  type CallbackQueryRecord,
  type ChatRecord,
  type InvoiceRecord,
  type MemberRecord,
  type MessageRecord,
  type PaymentRecord,
  type PreCheckoutRecord,
  type World,
} from './state.js';
import {
  alterCharge,
  forgetCharge,
  supportRefund,
  platformRefund,
  starTransactions,
  unforwardedCharge,
  type TgStarTransaction,
} from './star-transactions.js';
import type { StarTransactionsOrder } from './star-order.js';
import { advanceClock, failNextRenewal, subscriptionOfCharge, type ClockAdvance, type SubscriptionView } from './subscriptions.js';
import type { EnqueueResult } from './updates.js';
import {
  ADMIN_RIGHT_KEYS,
  PERMISSION_KEYS,
  type MemberStatus,
  type TgAdminRights,
  type TgChat,
  type TgChatMember,
  type TgChatPermissions,
  type TgMessage,
  type TgMessageEntity,
  type TgUpdate,
  type TgUser,
} from './types.js';

/** Creates a user, or updates the given fields of an existing one (same `id`). */
export interface CreateUserInput {
  id?: number;
  firstName?: string;
  lastName?: string;
  username?: string;
  languageCode?: string;
  /** The user pressed Start: the bot may message them first. Default false. */
  started?: boolean;
  /** The user blocked the bot: sendMessage gets 403. Default false. */
  blocked?: boolean;
}

/** A user as the control API shows it. */
export interface UserView {
  user: TgUser;
  started: boolean;
  blocked: boolean;
}

/** Creates (or replaces the metadata of) a group, supergroup or channel. */
export interface CreateChatInput {
  id?: number;
  type: 'group' | 'supergroup' | 'channel';
  title?: string;
  username?: string;
  /** The bot's own status in the chat. Default `administrator` with every right. */
  botStatus?: 'administrator' | 'member' | 'left' | 'kicked';
  /** Overrides of the bot's admin rights (e.g. `{ can_restrict_members: false }`). */
  botRights?: Partial<TgAdminRights>;
  /** Joining needs an administrator's approval (supergroups and channels; see setJoinByRequest). */
  joinByRequest?: boolean;
}

/** Sets a member's standing directly, without an update unless `notify` is true. */
export interface SetMemberInput {
  chatId: number;
  userId: number;
  status: MemberStatus;
  /** For `restricted`: permissions given (others false). */
  permissions?: Partial<TgChatPermissions>;
  /** For `restricted`: whether the user is in the chat. Default true. */
  isMember?: boolean;
  untilDate?: number;
  /** For `administrator`: rights given (others false). */
  rights?: Partial<TgAdminRights>;
  customTitle?: string;
  /** Also send every bot the `chat_member` update for the change. */
  notify?: boolean;
}

/** A user joining or leaving a chat. */
export interface MembershipInput {
  chatId: number;
  userId: number;
}

/**
 * The result of a join or leave: the new ChatMember and the per-bot update outcome. `joinRequested`:
 * the chat takes join requests, so the join became a pending request (a `chat_join_request` update)
 * and the user is not a member yet.
 */
export interface MembershipResult {
  member: TgChatMember;
  updates: EnqueueResult[];
  joinRequested?: boolean;
}

/** A user writing to the bot: privately (no `chatId`) or in a group. */
export interface UserMessageInput {
  userId: number;
  text: string;
  chatId?: number;
  /** Which bot a private message goes to (default: the first token). */
  token?: string;
}

/**
 * A user presses an inline button under one of the bot's messages: the bot gets a callback_query
 * carrying `data`. A real client sends the data of a button the message has; a hostile one can send
 * any bytes, so `data` is taken as given (1-64 bytes) and need not be on the message.
 */
export interface PressButtonInput {
  userId: number;
  /** The bot's message the button is under. */
  messageId: number;
  data: string;
  /** The chat of that message; default the user's private chat. */
  chatId?: number;
  /** Which bot sent it (default: the first token). */
  token?: string;
}

/** A bot's command lists and menu buttons as setMyCommands / setChatMenuButton left them. */
export interface CommandMenuView {
  commands: Array<{ scope: string; languageCode: string; commands: BotCommand[] }>;
  menuButtons: Array<{ chat: string; button: MenuButton }>;
}

/** Filters for the message history. */
export interface MessageFilter {
  chatId?: number;
  direction?: 'from_bot' | 'to_bot';
}

/** A pre-checkout query and, if it was approved, the payment it produced. */
export interface PreCheckoutView extends PreCheckoutRecord {
  payment?: PaymentRecord;
}

/** A Stars payment returned to its payer by refundStarPayment (one per charge, ever). */
export interface StarRefundView {
  telegramPaymentChargeId: string;
  botId: number;
  userId: number;
  payload: string;
  currency: string;
  totalAmount: number;
  paidAt: string;
  refundedAt: string;
}

/** One bot as the control API shows it (never its token). */
export interface BotView {
  id: number;
  username: string | undefined;
  polling: boolean;
  allowedUpdates: string[] | null;
  pendingUpdates: TgUpdate[];
}

/** One chat with the bot's own membership, every recorded member and the users whose join request is pending. */
export interface ChatView {
  chat: TgChat;
  bot: TgChatMember;
  members: TgChatMember[];
  joinByRequest: boolean;
  joinRequests: number[];
}

/** Everything in the emulator, for debugging and broad assertions. */
export interface StateSnapshot {
  bots: BotView[];
  users: UserView[];
  chats: ChatView[];
  messages: MessageRecord[];
  invoices: InvoiceRecord[];
  preCheckouts: PreCheckoutRecord[];
  payments: PaymentRecord[];
  subscriptions: SubscriptionView[];
  faults: FaultRecord[];
}

/**
 * The test-facing control surface, used in-process (`emulator.control`) and over HTTP under
 * `/_control`. It arranges the world (users, chats, members), plays the users' side (messages,
 * joins, payments), injects faults and exposes what the bot did (calls, messages, state).
 * Mistakes in its input throw ControlError (404 for unknown entities, 400 for bad input).
 */
export class PlatformControl {
  constructor(
    private readonly world: World,
    private readonly payments: Payments,
    private readonly faultTable: FaultTable,
    private readonly callLog: CallLog,
  ) {}

  /** Empties users, chats, messages, invoices, payments, pending updates, faults and the call log. */
  reset(): void {
    this.payments.clearTimers();
    this.world.reset();
    this.faultTable.clear();
    this.callLog.clear();
  }

  /** Creates or updates a user (see CreateUserInput). */
  createUser(input: CreateUserInput = {}): UserView {
    const id = input.id ?? this.world.newUserId();
    const existing = this.world.users.get(id);
    if (this.world.botById(id)) throw new ControlError(400, `id ${id} belongs to a bot`);
    const user: TgUser = existing?.user ?? { id, is_bot: false, first_name: `User ${id}` };
    if (input.firstName !== undefined) user.first_name = input.firstName;
    if (input.lastName !== undefined) user.last_name = input.lastName;
    if (input.username !== undefined) user.username = input.username;
    if (input.languageCode !== undefined) user.language_code = input.languageCode;
    const record = {
      user,
      started: input.started ?? existing?.started ?? false,
      blocked: input.blocked ?? existing?.blocked ?? false,
    };
    this.world.users.set(id, record);
    return clone(record);
  }

  /** Creates a group, supergroup or channel (or replaces its metadata, keeping members). */
  createChat(input: CreateChatInput): TgChat {
    const id = input.id ?? this.world.newChatId(input.type);
    if (id >= 0) throw new ControlError(400, 'group and channel ids are negative');
    const chat: TgChat = { id, type: input.type, title: input.title ?? `Chat ${id}` };
    if (input.username !== undefined) chat.username = input.username;
    const status = input.botStatus ?? 'administrator';
    const bot: MemberRecord = { status, isMember: status === 'administrator' || status === 'member', untilDate: 0 };
    if (status === 'administrator') bot.rights = { ...fullAdminRights(), ...input.botRights };
    const existing = this.world.chats.get(id);
    const record: ChatRecord = { chat, bot, members: existing?.members ?? new Map<number, MemberRecord>() };
    if (existing?.joinRequests) record.joinRequests = existing.joinRequests;
    this.world.chats.set(id, record);
    if (input.joinByRequest !== undefined) this.setJoinByRequest(id, input.joinByRequest);
    return clone(chat);
  }

  /**
   * Makes joining the chat need an administrator's approval (or lifts that): a join through the
   * control API then sends `chat_join_request` instead of making the user a member. Supergroups
   * and channels only, as at Telegram. Lifting it drops the pending requests.
   */
  setJoinByRequest(chatId: number, enabled: boolean): { chatId: number; joinByRequest: boolean } {
    const chat = this.world.chats.get(chatId);
    if (!chat) throw new ControlError(404, `no chat ${chatId}`);
    if (enabled && chat.chat.type === 'group') throw new ControlError(400, 'join requests need a supergroup or a channel');
    chat.joinByRequest = enabled;
    if (!enabled) delete chat.joinRequests;
    return { chatId, joinByRequest: enabled };
  }

  /** The users whose join request to the chat is pending, oldest first. */
  joinRequests(chatId: number): number[] {
    const chat = this.world.chats.get(chatId);
    if (!chat) throw new ControlError(404, `no chat ${chatId}`);
    return [...(chat.joinRequests?.entries() ?? [])].sort((a, b) => a[1] - b[1]).map(([userId]) => userId);
  }

  /** Sets a member's standing directly (see SetMemberInput). */
  setMember(input: SetMemberInput): TgChatMember {
    const { chat, user } = this.chatAndUser(input.chatId, input.userId);
    const record: MemberRecord = {
      status: input.status,
      isMember: input.status === 'restricted' ? (input.isMember ?? true) : ['creator', 'administrator', 'member'].includes(input.status),
      untilDate: input.untilDate ?? 0,
    };
    if (input.status === 'restricted') record.permissions = fill(PERMISSION_KEYS, input.permissions ?? {});
    if (input.status === 'administrator') record.rights = fill(ADMIN_RIGHT_KEYS, input.rights ?? {});
    if (input.customTitle !== undefined) record.customTitle = input.customTitle;
    if (input.notify === true) changeMember(this.world, chat, user, record, user);
    else chat.members.set(user.id, record);
    return chatMemberJson(user, record);
  }

  /**
   * The user joins the chat: member (or a restricted user back in), plus `chat_member` updates. In a
   * chat that takes join requests, someone not in it sends a request instead: a `chat_join_request`
   * (ChatJoinRequest: chat, from, user_chat_id, date) to every bot that may answer it (an
   * administrator with can_invite_users), and stays outside until approveChatJoinRequest. A request
   * already pending sends nothing new.
   */
  join(input: MembershipInput): MembershipResult {
    const { chat, user } = this.chatAndUser(input.chatId, input.userId);
    const current = this.world.member(chat, user.id);
    const inChat = ['creator', 'administrator', 'member'].includes(current.status) || (current.status === 'restricted' && current.isMember);
    if (chat.joinByRequest === true && !inChat) {
      const member = chatMemberJson(user, current);
      const requests = (chat.joinRequests ??= new Map<number, number>());
      if (requests.has(user.id)) return { member, updates: [], joinRequested: true };
      const date = unixNow();
      requests.set(user.id, date);
      const payload = { chat_join_request: { chat: chat.chat, from: user, user_chat_id: user.id, date } };
      const updates = botMayInvite(chat)
        ? this.world.bots.map((bot) => bot.queue.enqueue(payload))
        : this.world.bots.map(() => ({
            queued: false as const,
            reason: 'chat_join_request goes only to administrators who may invite users',
          }));
      return { member, updates, joinRequested: true };
    }
    const next: MemberRecord =
      current.status === 'restricted' ? { ...current, isMember: true } : { status: 'member', isMember: true, untilDate: 0 };
    const updates = changeMember(this.world, chat, user, next, user);
    return { member: chatMemberJson(user, next), updates };
  }

  /** The user leaves the chat, plus `chat_member` updates. */
  leave(input: MembershipInput): MembershipResult {
    const { chat, user } = this.chatAndUser(input.chatId, input.userId);
    const current = this.world.member(chat, user.id);
    const next: MemberRecord =
      current.status === 'restricted' ? { ...current, isMember: false } : { status: 'left', isMember: false, untilDate: 0 };
    const updates = changeMember(this.world, chat, user, next, user);
    return { member: chatMemberJson(user, next), updates };
  }

  /** Queues a raw update payload (e.g. `{ message: {...} }`; update_id is assigned) for a bot. */
  injectUpdate(update: Record<string, unknown>, token?: string): EnqueueResult {
    const { update_id: _ignored, ...payload } = update;
    return this.bot(token).queue.enqueue(payload, true);
  }

  /**
   * A user writes to the bot. Privately this opens the conversation (the user counts as started,
   * as after pressing Start); in a group the message goes to every bot. A leading /command gets
   * its bot_command entity.
   */
  sendUserMessage(input: UserMessageInput): { message: TgMessage; updates: EnqueueResult[] } {
    const userRecord = this.world.users.get(input.userId);
    if (!userRecord) throw new ControlError(404, `no user ${input.userId}`);
    const group = input.chatId === undefined ? undefined : this.world.chats.get(input.chatId);
    if (input.chatId !== undefined && !group) throw new ControlError(404, `no chat ${input.chatId}`);
    const chat = group?.chat ?? this.world.privateChat(userRecord.user);
    const message: TgMessage = {
      message_id: this.world.nextMessageId(chat.id),
      from: userRecord.user,
      date: unixNow(),
      chat,
      text: input.text,
    };
    const entities = commandEntities(input.text);
    if (entities.length > 0) message.entities = entities;
    const command = entities[0]?.offset === 0 ? entities[0] : null;
    const bots = group ? this.world.bots : [this.bot(input.token)];
    if (!group) {
      userRecord.started = true;
      userRecord.blocked = false;
    }
    const refused = group ? groupRefusal(group, command !== null) : undefined;
    if (refused !== undefined) return { message: clone(message), updates: bots.map(() => ({ queued: false, reason: refused })) };
    for (const bot of bots) this.world.messages.push({ chatId: chat.id, direction: 'to_bot', botId: bot.user.id, message });
    return { message: clone(message), updates: bots.map((bot) => bot.queue.enqueue({ message })) };
  }

  /** A user presses a button under a bot's message (see PressButtonInput); answers the query's id and the update outcome. */
  pressButton(input: PressButtonInput): { callbackQueryId: string; update: EnqueueResult } {
    const userRecord = this.world.users.get(input.userId);
    if (!userRecord) throw new ControlError(404, `no user ${input.userId}`);
    const bot = this.bot(input.token);
    const chatId = input.chatId ?? input.userId;
    const sent = this.world.messages.find(
      (m) => m.direction === 'from_bot' && m.botId === bot.user.id && m.chatId === chatId && m.message.message_id === input.messageId,
    );
    if (!sent) throw new ControlError(404, `no message ${input.messageId} of the bot in chat ${chatId}`);
    const bytes = Buffer.byteLength(input.data);
    if (bytes < 1 || bytes > 64) throw new ControlError(400, 'data must be 1-64 bytes, as callback_data is');
    const id = randomBytes(8).toString('hex');
    const record: CallbackQueryRecord = {
      id,
      botId: bot.user.id,
      userId: input.userId,
      chatId,
      messageId: input.messageId,
      data: input.data,
      at: new Date().toISOString(),
    };
    this.world.callbackQueries.set(id, record);
    const query: CallbackQuery = {
      id,
      from: userRecord.user,
      message: sent.message,
      chat_instance: createHash('sha256').update(`${bot.user.id}:${chatId}`).digest('hex').slice(0, 19),
      data: input.data,
    };
    return { callbackQueryId: id, update: bot.queue.enqueue({ callback_query: query }) };
  }

  /** A callback query and the bot's answer to it, if any. */
  callbackQuery(id: string): CallbackQueryRecord | undefined {
    const record = this.world.callbackQueries.get(id);
    return record === undefined ? undefined : clone(record);
  }

  /** The first (or `token`'s) bot's command lists and menu buttons. */
  commandMenu(token?: string): CommandMenuView {
    const prefix = `${this.bot(token).user.id}|`;
    const commands: CommandMenuView['commands'] = [];
    for (const [key, list] of this.world.botCommands) {
      if (!key.startsWith(prefix)) continue;
      const [, scope = '', languageCode = ''] = key.split('|');
      commands.push({ scope, languageCode, commands: clone(list) });
    }
    const menuButtons: CommandMenuView['menuButtons'] = [];
    for (const [key, button] of this.world.menuButtons) {
      if (key.startsWith(prefix)) menuButtons.push({ chat: key.slice(prefix.length), button: clone(button) });
    }
    return { commands, menuButtons };
  }

  /** Registers a fault for the next calls (see FaultSpec); throws ControlError for a useless spec. */
  addFault(spec: FaultSpec): FaultRecord {
    try {
      return this.faultTable.add(spec);
    } catch (err: unknown) {
      if (err instanceof RangeError) throw new ControlError(400, err.message);
      throw err;
    }
  }

  faults(): FaultRecord[] {
    return this.faultTable.list();
  }

  clearFaults(): void {
    this.faultTable.clear();
  }

  /** The user pays invoice `link`: the bot gets a pre_checkout_query; returns its id. */
  pay(input: { link: string; userId: number }): PayResult {
    return this.payments.pay(input.link, input.userId);
  }

  /** A pre-checkout query's outcome (pending, approved, rejected, expired) and its payment. */
  preCheckout(id: string): PreCheckoutView | undefined {
    const record = this.world.preCheckouts.get(id);
    if (!record) return undefined;
    const payment = this.world.payments.find((p) => p.preCheckoutQueryId === id);
    return clone(payment ? { ...record, payment } : record);
  }

  /** The first bot's Stars transactions as getStarTransactions reports them (in its current order). */
  starTransactions(): TgStarTransaction[] {
    return starTransactions(this.world, this.firstBotId());
  }

  /** The order getStarTransactions answers in now. */
  starTransactionsOrder(): { order: StarTransactionsOrder } {
    return { order: this.world.starOrder };
  }

  /**
   * Switches getStarTransactions' order: `oldest_first` (the Bot API's documented chronological
   * order, the default) or `newest_first`. `reset()` restores the order the emulator started with.
   */
  setStarTransactionsOrder(order: StarTransactionsOrder): { order: StarTransactionsOrder } {
    this.world.starOrder = order;
    return { order };
  }

  /**
   * Discrepancy: a charge the platform took whose successful_payment never reached the bot; answers
   * its id. `date` (unix seconds, default now) backdates it.
   */
  unforwardedCharge(input: { userId: number; amount: number; payload: string; date?: number }): { telegramPaymentChargeId: string } {
    return { telegramPaymentChargeId: unforwardedCharge(this.world, { ...input, botId: this.firstBotId() }) };
  }

  /** Discrepancy: the platform refunds a charge the bot never asked to refund. */
  platformRefund(chargeId: string): void {
    platformRefund(this.world, chargeId);
  }

  /**
   * A refund made outside the bot (Telegram support): the charge is refunded and the bot gets the
   * `refunded_payment` message in the payer's private chat (see supportRefund).
   */
  supportRefund(chargeId: string): { message: TgMessage; update: EnqueueResult } {
    return supportRefund(this.world, chargeId);
  }

  /** Discrepancy: the platform reports another amount for a charge. */
  alterCharge(chargeId: string, amount: number): void {
    alterCharge(this.world, chargeId, amount);
  }

  /** Discrepancy: the platform forgets a charge (credited, never taken). */
  forgetCharge(chargeId: string): void {
    forgetCharge(this.world, chargeId);
  }

  /** The emulated clock: unix seconds now, and how far it runs ahead of the machine's. */
  clock(): { now: number; offsetSeconds: number } {
    return { now: this.world.now(), offsetSeconds: this.world.clockOffsetSeconds };
  }

  /**
   * Moves the emulated clock `seconds` on (never back): every subscription whose paid period ended
   * renews (a successful_payment update per renewal) or, cancelled or set to fail, expires.
   */
  advanceClock(seconds: number): ClockAdvance {
    return advanceClock(this.world, seconds);
  }

  /** Every Stars subscription (of one user with `userId`), oldest first. */
  subscriptions(filter: { userId?: number } = {}): SubscriptionView[] {
    return clone(
      [...this.world.subscriptions.values()]
        .filter((s) => filter.userId === undefined || s.userId === filter.userId)
        .sort((a, b) => a.startedAt - b.startedAt),
    );
  }

  /** The subscription one of whose charges is `chargeId` (its first or any renewal), if any. */
  subscription(chargeId: string): SubscriptionView | undefined {
    const found = subscriptionOfCharge(this.world, chargeId);
    return found === undefined ? undefined : clone(found);
  }

  /** The next renewal of that subscription fails (`reason`, default insufficient stars): it expires at its end. */
  failNextRenewal(chargeId: string, reason?: string): SubscriptionView {
    return failNextRenewal(this.world, chargeId, reason);
  }

  private firstBotId(): number {
    const bot = this.world.bots[0];
    if (!bot) throw new ControlError(404, 'no bot');
    return bot.user.id;
  }

  /**
   * Every refunded Stars payment, oldest refund first; a user's refunded stars are the sum of
   * their rows. A charge appears at most once, however often a refund was asked for.
   */
  starRefunds(filter: { userId?: number } = {}): StarRefundView[] {
    const refunds: StarRefundView[] = [];
    for (const p of this.world.payments) {
      if (p.refundedAt === undefined || (filter.userId !== undefined && p.userId !== filter.userId)) continue;
      refunds.push({
        telegramPaymentChargeId: p.telegramPaymentChargeId,
        botId: p.botId,
        userId: p.userId,
        payload: p.payload,
        currency: p.currency,
        totalAmount: p.totalAmount,
        paidAt: p.at,
        refundedAt: p.refundedAt,
      });
    }
    return refunds.sort((a, b) => a.refundedAt.localeCompare(b.refundedAt));
  }

  /** The Bot API call log, optionally of one method. */
  calls(method?: string): CallRecord[] {
    return clone(this.callLog.list(method));
  }

  clearCalls(): void {
    this.callLog.clear();
  }

  /** Messages sent by the bot and by users, oldest first. */
  messages(filter: MessageFilter = {}): MessageRecord[] {
    return clone(
      this.world.messages.filter(
        (m) =>
          (filter.chatId === undefined || m.chatId === filter.chatId) &&
          (filter.direction === undefined || m.direction === filter.direction),
      ),
    );
  }

  /** A copy of everything (see StateSnapshot). */
  state(): StateSnapshot {
    const w = this.world;
    return clone({
      bots: w.bots.map((b) => ({
        id: b.user.id,
        username: b.user.username,
        polling: b.queue.polling,
        allowedUpdates: b.queue.allowedUpdates,
        pendingUpdates: [...b.queue.pendingUpdates],
      })),
      users: [...w.users.values()],
      chats: [...w.chats.values()].map((c) => this.chatView(c)),
      messages: w.messages,
      invoices: [...w.invoices.values()],
      preCheckouts: [...w.preCheckouts.values()],
      payments: w.payments,
      subscriptions: [...w.subscriptions.values()],
      faults: this.faultTable.list(),
    });
  }

  private chatView(record: ChatRecord): ChatView {
    const members: TgChatMember[] = [];
    for (const [userId, member] of record.members) {
      const user = findUser(this.world, userId);
      if (user) members.push(chatMemberJson(user, member));
    }
    const botUser = findUser(this.world, this.world.primaryBot.user.id) ?? this.world.primaryBot.user;
    return {
      chat: record.chat,
      bot: chatMemberJson(botUser, record.bot),
      members,
      joinByRequest: record.joinByRequest === true,
      joinRequests: [...(record.joinRequests?.keys() ?? [])],
    };
  }

  private bot(token: string | undefined): BotRecord {
    const bot = token === undefined ? this.world.primaryBot : this.world.botByToken(token);
    if (!bot) throw new ControlError(404, 'no such bot token');
    return bot;
  }

  private chatAndUser(chatId: number, userId: number): { chat: ChatRecord; user: TgUser } {
    const chat = this.world.chats.get(chatId);
    if (!chat) throw new ControlError(404, `no chat ${chatId}`);
    const user = this.world.users.get(userId)?.user;
    if (!user) throw new ControlError(404, `no user ${userId}`);
    return { chat, user };
  }
}

/**
 * Why a group message does not reach the bot, or undefined when it does: a bot not in the chat gets
 * nothing, and a bot in privacy mode (getMe's can_read_all_group_messages false, as here) that is
 * no administrator gets only commands (https://core.telegram.org/bots/features#privacy-mode).
 */
function groupRefusal(chat: ChatRecord, isCommand: boolean): string | undefined {
  if (chat.bot.status === 'left' || chat.bot.status === 'kicked') return 'the bot is not in the chat';
  if (!botIsAdmin(chat) && !isCommand) return 'privacy mode: a bot that is no administrator gets only commands';
  return undefined;
}

/**
 * A bot command as Telegram's clients mark one (https://core.telegram.org/bots/features#commands): a
 * slash and 1-32 Latin letters, digits or underscores, optionally `@` and a bot's username, at the
 * start of the text or after whitespace, and not run on into more of those characters.
 */
const BOT_COMMAND = /(?<=^|\s)\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?![A-Za-z0-9_@])/g;

/** The `bot_command` entities of a user's text, offsets and lengths in UTF-16 code units as the Bot API counts them. */
function commandEntities(text: string): TgMessageEntity[] {
  return [...text.matchAll(BOT_COMMAND)].map((m) => ({ type: 'bot_command', offset: m.index, length: m[0].length }));
}

function clone<T>(value: T): T {
  return structuredClone(value);
}
