import { signTelegramInitData, vkSign } from '@wordgame/testkit';
import { DEV_BOT_TOKEN, DEV_VK_APP_SECRET } from './stack.js';

/** The dev players the launch links sign in as (a Telegram user and a VK user, both Russian-speaking). */
export const DEV_TELEGRAM_USER = { id: 100_001, first_name: 'Dev', language_code: 'ru' };
export const DEV_VK_USER_ID = '200001';

/** One link per context the wallet page opens in. */
export interface WalletLinks {
  web: string;
  telegram: string;
  vk: string;
}

/**
 * The wallet page's three dev links, signed for the dev stack's bot token and VK app secret (or the
 * given ones: a compose stack's PLATFORM_BOT_TOKEN and BACKEND_VK_APP_SECRET) and
 * stamped `now` (valid for the backend's LAUNCH_DATA_MAX_AGE_SECONDS, a day by default): the plain
 * web page, a Telegram mini-app launch (init data in the hash as `tgWebAppData`, as Telegram passes
 * it) and a VK mini-app launch on Android (signed `vk_*` parameters in the query).
 */
export function walletLaunchLinks(
  gateway: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  secrets: { telegramBotToken: string; vkAppSecret: string } = { telegramBotToken: DEV_BOT_TOKEN, vkAppSecret: DEV_VK_APP_SECRET },
): WalletLinks {
  const initData = signTelegramInitData(secrets.telegramBotToken, {
    query_id: 'AAHdevstack',
    user: JSON.stringify(DEV_TELEGRAM_USER),
    auth_date: String(nowSeconds),
  });
  const vk: Record<string, string> = {
    vk_app_id: '51000001',
    vk_is_app_user: '1',
    vk_language: 'ru',
    vk_platform: 'mobile_android',
    vk_ts: String(nowSeconds),
    vk_user_id: DEV_VK_USER_ID,
  };
  const vkQuery = new URLSearchParams({ ...vk, sign: vkSign(secrets.vkAppSecret, vk) }).toString();
  return {
    web: `${gateway}/wallet`,
    telegram: `${gateway}/wallet#${new URLSearchParams({ tgWebAppData: initData, tgWebAppVersion: '8.0', tgWebAppPlatform: 'android' }).toString()}`,
    vk: `${gateway}/wallet?${vkQuery}`,
  };
}
