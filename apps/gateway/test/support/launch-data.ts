import { stringify } from 'node:querystring';
import { signTelegramInitData, vkSign } from '@wordgame/testkit';

/**
 * Telegram Mini App init data as Telegram.WebApp.initData carries it, signed the way Telegram
 * documents: secret = HMAC_SHA256("WebAppData", bot token), hash = hex HMAC_SHA256(secret, the
 * sorted `key=value` lines of every other field).
 */
export function telegramInitData(botToken: string, user: { id: number; first_name: string }, authDate: number): string {
  const fields: Record<string, string> = {
    query_id: 'AAHdF6IQAAAAAN0XohDhrOrc',
    user: JSON.stringify(user),
    auth_date: String(authDate),
  };
  return signTelegramInitData(botToken, fields);
}

/**
 * VK Mini App launch parameters (the launch URL's query string), signed the way VK documents:
 * sign = base64url(HMAC_SHA256(app secret, the vk_* params sorted by key as a query string)).
 */
export function vkLaunchParams(appSecret: string, userId: string, platform: string, ts: number): string {
  const vk: Record<string, string> = {
    vk_app_id: '51234567',
    vk_is_app_user: '1',
    vk_language: 'ru',
    vk_platform: platform,
    vk_ts: String(ts),
    vk_user_id: userId,
  };
  const sorted = Object.fromEntries(Object.entries(vk).sort(([a], [b]) => (a < b ? -1 : 1)));
  return stringify({ ...sorted, sign: vkSign(appSecret, vk) });
}

/** Unix seconds now. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
