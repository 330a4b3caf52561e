/** The languages the catalogue has, Russian first: the hosts and providers served are Russian-speaking first. */
export const LANGUAGES = ['ru', 'en'] as const;

/** A language of the catalogue. */
export type Language = (typeof LANGUAGES)[number];

/**
 * The catalogue language of one language tag (`ru`, `en-GB`, `ru_RU`, Telegram's `language_code`,
 * VK's `vk_language`, a browser's `navigator.languages` entry); undefined for any other language,
 * so the caller can try its next source.
 */
export function languageOf(tag: string | null | undefined): Language | undefined {
  const primary = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return LANGUAGES.find((l) => l === primary);
}

/**
 * The first candidate tag the catalogue has, else `fallback`. Callers list their sources most
 * specific first (the platform's language, then the browser's), so a known platform language wins.
 */
export function pickLanguage(candidates: Iterable<string | null | undefined>, fallback: Language): Language {
  for (const tag of candidates) {
    const language = languageOf(tag);
    if (language) return language;
  }
  return fallback;
}
