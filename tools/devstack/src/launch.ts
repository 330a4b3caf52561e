import { stringify } from 'node:querystring';
import { signTelegramInitData, vkSign } from '@wordgame/testkit';

/** Which mini-app platform a launch string is for. */
export type LaunchPlatform = 'telegram' | 'vk';

/** The dev secrets a launch string is signed with (the dev stack's, unless the environment names others). */
export interface LaunchSecrets {
  telegramBotToken: string;
  vkAppSecret: string;
}

/**
 * A launch string as the platform would hand it to the mini-app, signed for the dev stack:
 * Telegram init data (`user`, `auth_date`, `hash`) for POST /api/v1/session/telegram `{init_data}`,
 * or VK launch parameters (`vk_*`, `sign`; platform mobile_android) for POST /api/v1/session/vk
 * `{launch_params}`. `userId` is the platform's numeric user id.
 */
export function launchString(
  platform: LaunchPlatform,
  userId: string,
  secrets: LaunchSecrets,
  nowUnix = Math.floor(Date.now() / 1000),
): string {
  if (!/^[1-9]\d{0,15}$/.test(userId)) throw new RangeError(`user_id must be a positive whole number (got ${JSON.stringify(userId)})`);
  if (platform === 'telegram') {
    return signTelegramInitData(secrets.telegramBotToken, {
      auth_date: String(nowUnix),
      user: JSON.stringify({ id: Number(userId), first_name: `Dev ${userId}` }),
    });
  }
  const vk: Record<string, string> = {
    vk_app_id: '51234567',
    vk_is_app_user: '1',
    vk_language: 'ru',
    vk_platform: 'mobile_android',
    vk_ts: String(nowUnix),
    vk_user_id: userId,
  };
  return stringify({ ...vk, sign: vkSign(secrets.vkAppSecret, vk) });
}

/** The request that opens a session with a launch string: path and JSON body of the gateway's REST API. */
export function sessionRequest(platform: LaunchPlatform, launch: string): { path: string; body: Record<string, string> } {
  return platform === 'telegram'
    ? { path: '/api/v1/session/telegram', body: { init_data: launch } }
    : { path: '/api/v1/session/vk', body: { launch_params: launch } };
}
