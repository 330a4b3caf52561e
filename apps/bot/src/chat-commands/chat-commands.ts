import { randomBytes } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import { ConnectError } from '@connectrpc/connect';
import type { InlineKeyboardMarkup } from '@grammyjs/types';
import { botlink } from '@wordgame/contracts';
import type { Language } from '@wordgame/i18n';
import type { Logger } from '@wordgame/logging';
import { type PlatformClient, PlatformError, type TgCallbackQuery, type TgMessage, type TgUser } from '../platform/index.js';
import type { SupportDialogues } from '../store/index.js';
import type { ChatCommandCounters, ChatInput } from './counters.js';
import type { ChatPacer } from './pacing.js';
import { commandIn, type ParsedCommand } from './parse.js';
import type { UserRateLimit } from './rate-limit.js';
import { chargeList, MAX_LISTED_CHARGES, readButtonData, say } from './texts.js';

/** The longest case text, in characters (code points) after trimming, as OpenSupportCase takes it. */
export const MAX_CASE_TEXT = 1000;

/** How many charges /paysupport asks the backend for. */
const LISTED_CHARGES = 5;

/** The bot-link calls the commands make. */
export type SupportRpc = Pick<Client<typeof botlink.BotLink>, 'listStarCharges' | 'openSupportCase'>;

/** What the chat commands need. */
export interface ChatCommandsOptions {
  platform: PlatformClient;
  rpc: SupportRpc;
  /** Deadline of each bot-link call (BOTLINK_RPC_TIMEOUT_MS). */
  rpcTimeoutMs: number;
  /** This bot's username (from getMe), to tell `/cmd@ThisBot` from commands for other bots. */
  botUsername: () => string | undefined;
  /** The language to answer `user` in. */
  languageOf: (user: TgUser) => Language;
  dialogues: SupportDialogues;
  links: { privacy: string; terms: string; miniApp: string | undefined };
  pacer: ChatPacer;
  limit: UserRateLimit;
  counters: ChatCommandCounters;
  /** How long a /paysupport dialogue waits for its button and then for the case text (BOT_SUPPORT_TEXT_WINDOW_MS). */
  dialogueMs: number;
  logger: Logger;
  now?: () => number;
}

/**
 * The commands Telegram requires of a seller, answered in the sender's language: /start (welcome,
 * a button opening the Mini App when BOT_MINI_APP_URL is set), /privacy and /terms (the operator's
 * links), and /paysupport: the sender's recent stars charges (ListStarCharges for the message's
 * sender, never a typed id) with one button per charge and one for anything else; a press makes
 * the sender's next message (within the dialogue window, kept in the bot's SQLite file) the text of
 * a support case (OpenSupportCase, 1..1000 characters), answered with the case id.
 *
 * Every input is hostile until checked: button data that this bot did not make, or that belongs to
 * another or an older list, gets a clear answer and is counted `invalid`; each user's inputs pass a
 * per-user rate limit (one "slow down" per window, then silence); the answers to one chat are
 * spaced by the pacer; an unreachable gateway or backend gets a polite answer and is counted
 * `unavailable`. One user's inputs are handled one at a time, in the order they came.
 */
export class ChatCommands {
  private readonly chains = new Map<number, Promise<void>>();
  private readonly now: () => number;

  constructor(private readonly options: ChatCommandsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A message from the updates: a command for this bot, or a case text awaited from its sender; anything else is left alone. */
  onMessage(message: TgMessage): Promise<void> {
    const from = message.from;
    if (from === undefined || from.is_bot) return Promise.resolve();
    const command = commandIn(message, this.options.botUsername());
    if (command !== undefined) return this.serial(from.id, () => this.command(message, from, command));
    if (message.chat.type !== 'private' || message.text === undefined) return Promise.resolve();
    return this.serial(from.id, () => this.caseText(message, from));
  }

  /** A button press (callback_query): always answered with answerCallbackQuery. */
  onCallback(query: TgCallbackQuery): Promise<void> {
    return this.serial(query.from.id, () => this.press(query));
  }

  private async command(message: TgMessage, from: TgUser, command: ParsedCommand): Promise<void> {
    const language = this.options.languageOf(from);
    const chatId = message.chat.id;
    if (!(await this.admitted(command.name, chatId, from, language))) return;
    const { links } = this.options;
    const privateChat = message.chat.type === 'private';
    switch (command.name) {
      case 'start': {
        const url = links.miniApp;
        // Telegram allows web_app buttons only in private chats; a group gets a plain link button.
        const button = url === undefined ? undefined : privateChat ? { web_app: { url } } : { url };
        const markup = button === undefined ? undefined : { inline_keyboard: [[{ text: say(language, 'open_app'), ...button }]] };
        return this.answer('start', chatId, say(language, 'welcome'), markup);
      }
      case 'privacy':
        return this.answer('privacy', chatId, say(language, 'privacy', { url: links.privacy }));
      case 'terms':
        return this.answer('terms', chatId, say(language, 'terms', { url: links.terms }));
      case 'unknown':
        return this.answer('unknown', chatId, say(language, 'unknown'));
      case 'paysupport':
        if (!privateChat) return this.answer('paysupport', chatId, say(language, 'private_only'));
        return this.paysupport(from, language);
    }
  }

  private async paysupport(from: TgUser, language: Language): Promise<void> {
    const { rpc, rpcTimeoutMs, dialogues, dialogueMs, logger } = this.options;
    let charges: botlink.StarCharge[];
    try {
      const request = create(botlink.StarChargesRequestSchema, { platformUserId: BigInt(from.id), limit: LISTED_CHARGES, language });
      ({ charges } = await rpc.listStarCharges(request, { timeoutMs: rpcTimeoutMs }));
    } catch (err: unknown) {
      logger.warn({ command: 'paysupport', err: rpcError(err) }, 'ListStarCharges failed; the user was told support is unreachable');
      return this.answer('paysupport', from.id, say(language, 'unavailable'), undefined, 'unavailable');
    }
    const listed = charges.slice(0, MAX_LISTED_CHARGES);
    const nonce = randomBytes(4).toString('hex');
    dialogues.put({
      userId: from.id,
      stage: 'choosing',
      nonce,
      chargeIds: listed.map((c) => c.platformPaymentChargeId),
      chargeId: '',
      expiresAt: this.now() + dialogueMs,
    });
    const { text, markup } = chargeList(language, listed, nonce);
    return this.answer('paysupport', from.id, text, markup);
  }

  private async press(query: TgCallbackQuery): Promise<void> {
    const { dialogues, dialogueMs, limit, counters } = this.options;
    const from = query.from;
    const language = this.options.languageOf(from);
    const verdict = limit.take(from.id);
    if (verdict !== 'pass') {
      counters.record('support_button', 'rate_limited');
      return this.answerPress(query, verdict === 'warn' ? say(language, 'slow_down') : undefined);
    }
    const data = readButtonData(query.data);
    const dialogue = data === undefined ? undefined : dialogues.get(from.id);
    if (data === undefined || dialogue === undefined || dialogue.nonce !== data.nonce) {
      counters.record('support_button', 'invalid');
      this.options.logger.info(
        { input: 'support_button', known: data !== undefined, dataBytes: Buffer.byteLength(query.data ?? '') },
        'button press with data this bot did not make, or for a list that is gone; answered',
      );
      return this.answerPress(query, say(language, data === undefined ? 'bad_button' : 'expired'), true);
    }
    const chargeId = data.choice === 'general' ? '' : dialogue.chargeIds[data.choice];
    if (chargeId === undefined) {
      counters.record('support_button', 'invalid');
      return this.answerPress(query, say(language, 'bad_button'), true);
    }
    dialogues.put({ ...dialogue, stage: 'writing', chargeId, expiresAt: this.now() + dialogueMs });
    await this.answerPress(query);
    const text =
      data.choice === 'general'
        ? say(language, 'ask_text_general')
        : say(language, 'ask_text_charge', { n: data.choice + 1, charge_id: chargeId });
    return this.answer('support_button', from.id, text);
  }

  private async caseText(message: TgMessage, from: TgUser): Promise<void> {
    const { dialogues, rpc, rpcTimeoutMs, logger } = this.options;
    const dialogue = dialogues.get(from.id);
    if (dialogue?.stage !== 'writing') return;
    const language = this.options.languageOf(from);
    if (!(await this.admitted('support_text', from.id, from, language))) return;
    const text = (message.text ?? '').trim();
    const length = [...text].length;
    if (length === 0) return this.answer('support_text', from.id, say(language, 'text_needed'), undefined, 'invalid');
    if (length > MAX_CASE_TEXT) {
      return this.answer('support_text', from.id, say(language, 'text_too_long', { length }), undefined, 'invalid');
    }
    let caseId: string;
    try {
      const request = create(botlink.OpenSupportCaseRequestSchema, {
        platformUserId: BigInt(from.id),
        platformPaymentChargeId: dialogue.chargeId,
        text,
        language,
      });
      ({ caseId } = await rpc.openSupportCase(request, { timeoutMs: rpcTimeoutMs }));
      if (caseId === '') throw new Error('OpenSupportCase answered without a case id');
    } catch (err: unknown) {
      logger.warn({ input: 'support_text', err: rpcError(err) }, 'OpenSupportCase failed; the user was told support is unreachable');
      return this.answer('support_text', from.id, say(language, 'unavailable'), undefined, 'unavailable');
    }
    dialogues.remove(from.id);
    logger.info({ caseId, aboutCharge: dialogue.chargeId !== '' }, 'support case opened from the chat');
    return this.answer('support_text', from.id, say(language, 'case_opened', { case_id: caseId }));
  }

  /** Applies the sender's rate limit to an input; false when it is held back ("slow down" once per window). */
  private async admitted(input: ChatInput, chatId: number, from: TgUser, language: Language): Promise<boolean> {
    const verdict = this.options.limit.take(from.id);
    if (verdict === 'pass') return true;
    this.options.counters.record(input, 'rate_limited');
    if (verdict === 'warn') await this.send(chatId, say(language, 'slow_down')).catch((err: unknown) => this.sendFailed(input, err));
    return false;
  }

  /** Sends an answer and counts the input with `outcome` (or `failed` when it could not be sent). */
  private async answer(
    input: ChatInput,
    chatId: number,
    text: string,
    markup?: InlineKeyboardMarkup,
    outcome: 'answered' | 'invalid' | 'unavailable' = 'answered',
  ): Promise<void> {
    try {
      await this.send(chatId, text, markup);
      this.options.counters.record(input, outcome);
    } catch (err: unknown) {
      this.options.counters.record(input, 'failed');
      this.sendFailed(input, err);
    }
  }

  /** sendMessage in the chat's next paced slot; a 429 is waited out by the client's shared pause and tried again (3 tries). */
  private async send(chatId: number, text: string, markup?: InlineKeyboardMarkup): Promise<void> {
    const { platform, pacer } = this.options;
    const params = markup === undefined ? { chat_id: chatId, text } : { chat_id: chatId, text, reply_markup: markup };
    for (let attempt = 1; ; attempt += 1) {
      await pacer.turn(chatId);
      try {
        await platform.call('sendMessage', params);
        return;
      } catch (err: unknown) {
        if (!(err instanceof PlatformError && err.kind === 'rate_limited') || attempt >= 3) throw err;
      }
    }
  }

  /** answerCallbackQuery (stops the client's spinner), with a short notice when given; a failure is logged only. */
  private async answerPress(query: TgCallbackQuery, text?: string, showAlert = false): Promise<void> {
    const params = text === undefined ? { callback_query_id: query.id } : { callback_query_id: query.id, text, show_alert: showAlert };
    try {
      await this.options.platform.call('answerCallbackQuery', params);
    } catch (err: unknown) {
      this.options.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'answerCallbackQuery failed');
    }
  }

  private sendFailed(input: ChatInput, err: unknown): void {
    this.options.logger.warn({ input, err: err instanceof Error ? err.message : String(err) }, 'chat command answer not sent');
  }

  /** Runs `work` after every earlier input of `userId` has been handled. */
  private serial(userId: number, work: () => Promise<void>): Promise<void> {
    const run = (this.chains.get(userId) ?? Promise.resolve()).then(work, work);
    this.chains.set(userId, run);
    const forget = (): void => {
      if (this.chains.get(userId) === run) this.chains.delete(userId);
    };
    void run.then(forget, forget);
    return run;
  }
}

/** A bot-link failure as logged: its gRPC code name and message, never a payload. */
function rpcError(err: unknown): string {
  if (err instanceof ConnectError) return `${err.code}: ${err.rawMessage}`;
  return err instanceof Error ? err.message : String(err);
}
