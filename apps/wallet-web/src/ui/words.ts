import type { MessageKey, Translator } from '@wordgame/i18n';
import { ApiError } from '../api/client.js';

/** The player's words for an error: the catalogue's message for an API code, else a generic one naming the code. */
export function errorText(t: Translator, err: unknown): string {
  const code = err instanceof ApiError ? err.code : 'internal';
  const key = `wallet.errors.${code}`;
  return t.has(key) ? t.t(key as MessageKey) : t.t('wallet.error', { code });
}

/**
 * How long a time-limited offer still runs, from `seconds` left by the server's clock (so a wrong
 * client clock does not matter): `Ends in 2 h 15 min`, `Ends in 3 days 4 h`, `Закончится через 5 дней 1 ч`;
 * the two largest units, each counted in the page's plural rules; under a minute, its own words.
 */
export function offerEndsText(t: Translator, seconds: number): string {
  const total = Math.max(0, Math.floor(seconds / 60));
  if (total === 0) return t.t('wallet.offer_ends_soon');
  const days = Math.floor(total / 1440);
  const hours = Math.floor((total % 1440) / 60);
  const minutes = total % 60;
  const parts =
    days > 0
      ? [t.plural('wallet.left_days', days), hours > 0 && t.plural('wallet.left_hours', hours)]
      : [hours > 0 && t.plural('wallet.left_hours', hours), minutes > 0 && t.plural('wallet.left_minutes', minutes)];
  return t.t('wallet.offer_ends', { left: parts.filter((p) => p !== false).join(' ') });
}

/** The name of a wallet segment or benefit origin (`direct`, `telegram`, `vk`). */
export function segmentName(t: Translator, segment: string): string {
  const key = `wallet.segment_${segment}`;
  return t.has(key) ? t.t(key as MessageKey) : segment;
}

/** The name of a context from the session's platform kind (`null` is an unverified session). */
export function contextName(t: Translator, kind: string | null): string {
  if (kind === 'telegram') return t.t('wallet.context_telegram');
  if (kind === 'vk') return t.t('wallet.context_vk');
  if (kind === 'direct') return t.t('wallet.context_web');
  return t.t('wallet.context_none');
}

/** A whole amount with a sign-aware group separator of the page's language (the digits stay exact: no floats). */
export function amount(value: string, language: string): string {
  const negative = value.startsWith('-');
  const digits = negative ? value.slice(1) : value;
  const sep = language === 'ru' ? '\u00a0' : ',';
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  return negative ? `−${grouped}` : grouped;
}

/** A money amount in minor units as major units with two decimals (`49900` RUB → `499.00 RUB`), exactly. */
export function money(minor: string, currency: string, language: string): string {
  const padded = minor.padStart(3, '0');
  const major = amount(padded.slice(0, -2), language);
  const mark = language === 'ru' ? ',' : '.';
  return `${major}${mark}${padded.slice(-2)} ${currency === 'RUB' ? '₽' : currency}`;
}

/** A signed chip count in words (`−80 chips`, `500 фишек`), the plural chosen by its size. */
export function chipsText(t: Translator, signed: string): string {
  const size = signed.replace(/^-/, '');
  return t.plural('wallet.grants_chips', size, { count: amount(signed, t.language) });
}

/** A price paid or returned: stars as a counted word, money in major units with its currency; the sign dropped. */
export function paidText(t: Translator, minor: string, currency: string): string {
  const size = minor.replace(/^-/, '');
  return currency === 'XTR'
    ? t.plural('wallet.history_stars', size, { count: amount(size, t.language) })
    : money(size, currency, t.language);
}

/**
 * Shows the page in `t`'s language: the document's `lang` (what screen readers and translators
 * read) and its title follow the words on the screen, at start and whenever the language changes.
 */
export function showLanguage(t: Translator): void {
  document.documentElement.lang = t.language;
  document.title = t.t('wallet.title');
}
