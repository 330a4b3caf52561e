import { pickLanguage, type Language } from '@wordgame/i18n';
import type { Launch } from './context.js';

/** The page's language when neither the platform nor the browser names Russian or English: Russian first. */
export const DEFAULT_LANGUAGE: Language = 'ru';

/**
 * The page's language: the platform's (Telegram `language_code`, VK `vk_language`) when the
 * catalogue has it, else the browser's first known one, else Russian.
 */
export function chooseLanguage(launch: Launch, browserLanguages: readonly string[]): Language {
  const platform = launch.kind === 'web' ? undefined : launch.languageCode;
  return pickLanguage([platform, ...browserLanguages], DEFAULT_LANGUAGE);
}
