import i18next from 'i18next';
import { CATALOGUE, type MessageKey } from './catalogue.js';
import { LANGUAGES, type Language } from './language.js';

/** Values a message interpolates (`{{name}}`). */
export type MessageParams = Readonly<Record<string, string | number>>;

/** Renders catalogue messages in one language. */
export interface Translator {
  readonly language: Language;
  /** The message for `key` with `params` interpolated; a key missing in this language falls back to English. */
  t(key: MessageKey, params?: MessageParams): string;
  /** Whether `key` exists (used to map an API error code to its message, else a generic one). */
  has(key: string): boolean;
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
  return {
    language,
    t: (key, params) => String(instance.t(key, params ?? {})),
    has: (key) => instance.exists(key),
  };
}
