import type { MessageKey, Translator } from '@wordgame/i18n';
import { ApiError } from '../api/client.js';

/** The player's words for an error: the catalogue's message for an API code, else a generic one naming the code. */
export function errorText(t: Translator, err: unknown): string {
  const code = err instanceof ApiError ? err.code : 'internal';
  const key = `wallet.errors.${code}`;
  return t.has(key) ? t.t(key as MessageKey) : t.t('wallet.error', { code });
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
