import type { InlineKeyboardButton, InlineKeyboardMarkup } from '@grammyjs/types';
import type { botlink } from '@wordgame/contracts';
import { createTranslator, LANGUAGES, type Language, type MessageKey, type MessageParams, type Translator } from '@wordgame/i18n';
import { CHAT_COMMANDS, type ChatCommandName } from './parse.js';

const TRANSLATORS: ReadonlyMap<Language, Translator> = new Map(LANGUAGES.map((l) => [l, createTranslator(l)]));

/** A chat message of the bot's own (`bot.chat.*` in the shared catalogue) in `language`. */
export function say(language: Language, key: ChatKey, params?: MessageParams): string {
  return (TRANSLATORS.get(language) ?? createTranslator(language)).t(`bot.chat.${key}`, params);
}

/** The keys of the bot's chat messages. */
export type ChatKey = MessageKey extends infer K ? (K extends `bot.chat.${infer Rest}` ? Rest : never) : never;

/** The command menu of one language, as setMyCommands takes it. */
export function menuOf(language: Language): { command: ChatCommandName; description: string }[] {
  return CHAT_COMMANDS.map((command) => ({ command, description: say(language, `menu_${command}`) }));
}

/** The largest number of charges /paysupport lists (and offers a button for). */
export const MAX_LISTED_CHARGES = 10;

/** A button press's data for one listed charge (`index`) or for "something else" (`general`): at most 16 bytes. */
export function buttonData(nonce: string, choice: number | 'general'): string {
  return `ps:${nonce}:${choice === 'general' ? 'g' : choice}`;
}

const BUTTON = /^ps:([0-9a-f]{8}):(g|[0-9])$/;

/** The nonce and choice a press's data names, or undefined when it is not data this bot makes. */
export function readButtonData(data: string | undefined): { nonce: string; choice: number | 'general' } | undefined {
  const match = BUTTON.exec(data ?? '');
  if (!match?.[1] || !match[2]) return undefined;
  return { nonce: match[1], choice: match[2] === 'g' ? 'general' : Number(match[2]) };
}

/** `state` of a StarCharge as the user reads it; an unknown state reads as "being checked". */
function stateText(language: Language, state: string): string {
  if (state === 'credited') return say(language, 'state_credited');
  if (state === 'refunded') return say(language, 'state_refunded');
  return say(language, 'state_checking');
}

/** The day of a unix time, YYYY-MM-DD (UTC). */
function dayOf(unixSeconds: bigint): string {
  const ms = Number(unixSeconds) * 1000;
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString().slice(0, 10) : '-';
}

/** /paysupport's answer: the charges (newest first, numbered) and a keyboard with one button per charge and "something else". */
export function chargeList(
  language: Language,
  charges: readonly botlink.StarCharge[],
  nonce: string,
): { text: string; markup: InlineKeyboardMarkup } {
  const lines = charges.map((c, i) =>
    say(language, 'charge_line', {
      n: i + 1,
      product: c.productTitle || c.orderId,
      stars: c.amount.toString(),
      date: dayOf(c.paidUnix),
      state: stateText(language, c.state),
      charge_id: c.platformPaymentChargeId,
    }),
  );
  const text =
    charges.length === 0
      ? say(language, 'charges_none')
      : [say(language, 'charges_intro'), ...lines, '', say(language, 'charges_ask')].join('\n');
  const rows: InlineKeyboardButton[][] = charges.map((_c, i) => [
    { text: say(language, 'charge_button', { n: i + 1 }), callback_data: buttonData(nonce, i) },
  ]);
  rows.push([{ text: say(language, 'general_button'), callback_data: buttonData(nonce, 'general') }]);
  return { text, markup: { inline_keyboard: rows } };
}
