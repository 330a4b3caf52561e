import { createHmac } from 'node:crypto';
import { stringify } from 'node:querystring';

/**
 * Telegram Mini App init data signed the way Telegram documents (test and load clients only):
 * secret = HMAC_SHA256("WebAppData", bot token), hash = hex HMAC_SHA256(secret, the sorted
 * `key=value` lines of every field); returns the query string with `hash` added.
 */
export function signTelegramInitData(botToken: string, fields: Record<string, string>): string {
  const dataCheckString = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k] ?? ''}`)
    .join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(botToken).digest();
  const hash = createHmac('sha256', secret).update(dataCheckString).digest('hex');
  return new URLSearchParams({ ...fields, hash }).toString();
}

/** The `sign` of VK launch parameters as VK documents: base64url HMAC_SHA256(app secret, the vk_* params sorted by key as a query string). */
export function vkSign(appSecret: string, params: Record<string, string>): string {
  const sorted = Object.fromEntries(Object.entries(params).sort(([a], [b]) => (a < b ? -1 : 1)));
  return createHmac('sha256', appSecret).update(stringify(sorted)).digest('base64url');
}
