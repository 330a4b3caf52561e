import { createHmac } from 'node:crypto';
import { stringify } from 'node:querystring';

/** Signs Telegram Mini App init data the way Telegram does (for tests only). */
export function signTelegramInitData(botToken: string, fields: Record<string, string>): string {
  const dataCheckString = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(botToken).digest();
  const hash = createHmac('sha256', secret).update(dataCheckString).digest('hex');
  return new URLSearchParams({ ...fields, hash }).toString();
}

/** Telegram init data for a user, signed, with auth_date `ageSeconds` in the past. */
export function telegramInitData(botToken: string, userId: number, ageSeconds = 0, extra: Record<string, string> = {}): string {
  return signTelegramInitData(botToken, {
    auth_date: String(Math.floor(Date.now() / 1000) - ageSeconds),
    query_id: 'AAHdF6IQAAAAAN0XohDhrOrc',
    user: JSON.stringify({ id: userId, first_name: 'Ada', last_name: 'L', username: 'ada' }),
    ...extra,
  });
}

/** VK launch params signed as VK does: base64url HMAC-SHA256 of the sorted vk_* query string. */
export function vkLaunchParams(secret: string, userId: number, platform: string, ageSeconds = 0): string {
  const params: Record<string, string> = {
    vk_app_id: '51234567',
    vk_are_notifications_enabled: '0',
    vk_is_app_user: '1',
    vk_language: 'ru',
    vk_platform: platform,
    vk_ref: 'other',
    vk_ts: String(Math.floor(Date.now() / 1000) - ageSeconds),
    vk_user_id: String(userId),
  };
  const sorted = Object.fromEntries(Object.entries(params).sort(([a], [b]) => (a < b ? -1 : 1)));
  const sign = createHmac('sha256', secret).update(stringify(sorted)).digest('base64url');
  return `${stringify(params)}&sign=${sign}`;
}
