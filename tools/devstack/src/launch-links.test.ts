import { createHmac } from 'node:crypto';
import { walletLaunchLinks } from './launch-links.js';
import { DEV_BOT_TOKEN } from './stack.js';

/** Telegram's published check of Mini App init data: HMAC-SHA256 keyed by HMAC("WebAppData", bot token). */
function signedBy(initData: string, botToken: string): boolean {
  const params = new URLSearchParams(initData);
  const hash = params.get('hash');
  params.delete('hash');
  const check = [...params.entries()]
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(botToken).digest();
  return createHmac('sha256', secret).update(check).digest('hex') === hash;
}

const initDataOf = (telegramLink: string) => new URLSearchParams(new URL(telegramLink).hash.slice(1)).get('tgWebAppData') ?? '';

describe('wallet launch links', () => {
  it("are signed with the dev stack's bot token by default, and with a compose stack's when given", () => {
    const dev = walletLaunchLinks('http://127.0.0.1:8080', 1_700_000_000);
    expect(signedBy(initDataOf(dev.telegram), DEV_BOT_TOKEN)).toBe(true);
    const token = '12345:compose-stack-token';
    const compose = walletLaunchLinks('http://127.0.0.1:8080', 1_700_000_000, { telegramBotToken: token, vkAppSecret: 'vk-secret' });
    expect(signedBy(initDataOf(compose.telegram), token)).toBe(true);
    expect(signedBy(initDataOf(compose.telegram), DEV_BOT_TOKEN)).toBe(false);
    expect(compose.vk).not.toBe(dev.vk);
  });
});
