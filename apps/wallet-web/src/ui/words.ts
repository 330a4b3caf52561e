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
