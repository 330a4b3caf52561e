import i18next from 'i18next';
import { CATALOGUE, type MessageKey, type PluralKey } from './catalogue.js';
import { LANGUAGES, type Language } from './language.js';

/** Values a message interpolates (`{{name}}`). */
export type MessageParams = Readonly<Record<string, string | number>>;

/** Renders catalogue messages in one language. */
export interface Translator {
  readonly language: Language;
  /** The message for `key` with `params` interpolated; a key missing in this language falls back to English. */
  t(key: MessageKey, params?: MessageParams): string;
  /**
   * The form of `key` for the count `n` by the language's CLDR plural rules (`1 operation`,
   * `2 operations`; `1 операция`, `2 операции`, `5 операций`). `n` may be a decimal string or a
   * bigint beyond 2^53 (the rules only need its last digits). `{{count}}` is `n` unless `params`
   * gives a formatted one (grouped digits).
   */
  plural(key: PluralKey, n: bigint | number | string, params?: MessageParams): string;
  /** Whether `key` exists (used to map an API error code to its message, else a generic one). */
  has(key: string): boolean;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A number with the same plural category as the integer `n` under every CLDR integer rule the
 * catalogue's languages use: `n` itself when exact as a double, else its last three digits plus
 * 1000 (the rules look at n % 10, n % 100 and whether n is 1; a huge n is never 1).
 */
export function pluralOperand(n: bigint | number | string): number {
  const text = String(n).trim().replace(/^[-−]/, '');
  if (!/^\d+$/.test(text)) return Number.NaN;
  const value = BigInt(text);
  return value <= SAFE ? Number(value) : Number(value % 1000n) + 1000;
}

/**
 * A synchronous i18next instance over the shared catalogue. Values are interpolated unescaped:
 * the bot sends plain text and the page only ever writes text nodes, never HTML.
 */
export function createTranslator(language: Language): Translator {
  const instance = i18next.createInstance();
  void instance.init({
    lng: language,
    fallbackLng: 'en',
    supportedLngs: [...LANGUAGES],
    resources: Object.fromEntries(LANGUAGES.map((l) => [l, { translation: CATALOGUE[l] }])),
    initAsync: false,
    interpolation: { escapeValue: false },
  });
  const rules = new Intl.PluralRules(language);
  const t = (key: string, params?: MessageParams) => String(instance.t(key, params ?? {}));
  return {
    language,
    t,
    plural: (key, n, params) => {
      const category = rules.select(pluralOperand(n));
      const form = instance.exists(`${key}_${category}`) ? `${key}_${category}` : `${key}_other`;
      return t(form, { count: String(n), ...params });
    },
    has: (key) => instance.exists(key),
  };
}
