import { createHmac, randomInt } from 'node:crypto';

/**
 * The alphabet of generated codes: 32 symbols without the look-alikes 0/O and 1/I, so a code read
 * aloud or off a card survives; 16 of them are 80 bits.
 */
export const CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
/** Characters of a generated code (16 × 5 bits = 80 bits). */
export const GENERATED_LENGTH = 16;
/** Shortest and longest typed code, after normalising. */
export const TYPED_MIN = 8;
export const TYPED_MAX = 32;
/** Characters of the code the database keeps in the clear, for operators to tell codes apart. */
export const PREFIX_LENGTH = 4;

const TYPED = /^[0-9A-Z]+$/;

/** A code as compared: upper case, spaces and dashes dropped (what players type varies in both). */
export function normaliseCode(raw: string): string {
  return raw.toUpperCase().replace(/[\s-]+/g, '');
}

/** The normalised code when it can be a code at all (length and characters), else null. */
export function readableCode(raw: string): string | null {
  if (raw.length > TYPED_MAX * 2) return null;
  const code = normaliseCode(raw);
  return code.length >= TYPED_MIN && code.length <= TYPED_MAX && TYPED.test(code) ? code : null;
}

/** A new code of GENERATED_LENGTH characters drawn uniformly from CODE_ALPHABET (crypto RNG). */
export function generateCode(): string {
  return Array.from({ length: GENERATED_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
}

/** A code as shown to people: groups of four joined by dashes. */
export function displayCode(code: string): string {
  return (code.match(/.{1,4}/g) ?? []).join('-');
}

/**
 * What the database keeps of a normalised code: HMAC-SHA256 keyed by the promo secret (so a copy
 * of the database cannot be turned into codes, not even by hashing guesses offline) and its prefix.
 */
export function codeHash(secret: string, code: string): Buffer {
  return createHmac('sha256', secret).update(code).digest();
}

/**
 * The promo key: PROMO_CODE_SECRET, or one derived from the service token (a secret the database
 * does not hold either) when it is unset.
 */
export function promoKey(promoSecret: string | undefined, serviceToken: string): string {
  return promoSecret ?? createHmac('sha256', serviceToken).update('promo-codes/v1').digest('base64url');
}
