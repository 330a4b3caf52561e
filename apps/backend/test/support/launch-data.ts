import { stringify } from 'node:querystring';
import { signTelegramInitData, vkSign } from '@wordgame/testkit';

export { signTelegramInitData };

/** Telegram init data for a user, signed, with auth_date `ageSeconds` in the past. */
export function telegramInitData(botToken: string, userId: number, ageSeconds = 0, extra: Record<string, string> = {}): string {
  return signTelegramInitData(botToken, {
    auth_date: String(Math.floor(Date.now() / 1000) - ageSeconds),
    query_id: 'AAHdF6IQAAAAAN0XohDhrOrc',
    user: JSON.stringify({ id: userId, first_name: 'Ada', last_name: 'L', username: 'ada' }),
    ...extra,
  });
}

/**
 * VK launch params signed as VK does: base64url HMAC-SHA256 of the sorted vk_* query string.
 * A null platform leaves vk_platform out altogether.
 */
export function vkLaunchParams(secret: string, userId: number, platform: string | null, ageSeconds = 0): string {
  const params: Record<string, string> = {
    vk_app_id: '51234567',
    vk_are_notifications_enabled: '0',
    vk_is_app_user: '1',
    vk_language: 'ru',
    ...(platform === null ? {} : { vk_platform: platform }),
    vk_ref: 'other',
    vk_ts: String(Math.floor(Date.now() / 1000) - ageSeconds),
    vk_user_id: String(userId),
  };
  return `${stringify(params)}&sign=${vkSign(secret, params)}`;
}
