import en from './locales/en.json' with { type: 'json' };
import ru from './locales/ru.json' with { type: 'json' };
import type { Language } from './language.js';

/** The message tree of one language (English is the reference shape; a test keeps Russian equal to it). */
export type Messages = typeof en;

type Leaves<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${K}` : Leaves<T[K], `${P}${K}.`>;
}[keyof T & string];

/** Every message key, dot-separated (`bot.payment_credited`, `wallet.errors.network`). */
export type MessageKey = Leaves<Messages>;

/**
 * A message worded by count: the catalogue holds one key per CLDR plural category of each language
 * (`wallet.debt_one`, `wallet.debt_other`; Russian adds `_few` and `_many`), i18next's convention.
 */
export type PluralKey = MessageKey extends infer K ? (K extends `${infer Base}_other` ? Base : never) : never;

/** The plural suffixes a key may carry (CLDR categories). */
export const PLURAL_CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'] as const;

/** The shared catalogue: one JSON file per language under `locales/`, read by the bot and the wallet page. */
export const CATALOGUE: Readonly<Record<Language, Messages>> = { en, ru };
