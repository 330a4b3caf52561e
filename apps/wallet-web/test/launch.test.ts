import { signTelegramInitData, vkSign } from '@wordgame/testkit';
import { detectLaunch } from '../src/launch/context.js';
import { chooseLanguage, DEFAULT_LANGUAGE } from '../src/launch/language.js';

const initData = signTelegramInitData('123:dev', {
  auth_date: '1700000000',
  user: JSON.stringify({ id: 42, first_name: 'Ann', language_code: 'en' }),
});

function vkQuery(platform: string, language: string): string {
  const params = { vk_app_id: '1', vk_language: language, vk_platform: platform, vk_ts: '1700000000', vk_user_id: '7' };
  return `?${new URLSearchParams({ ...params, sign: vkSign('secret', params) }).toString()}`;
}

describe('launch context', () => {
  it('takes Telegram init data from the WebApp object when the host provides it', () => {
    expect(detectLaunch({ search: '', hash: '', telegramInitData: initData })).toEqual({ kind: 'telegram', initData, languageCode: 'en' });
  });

  it('else from tgWebAppData in the launch hash, decoded once as Telegram encodes it', () => {
    const hash = `#tgWebAppData=${encodeURIComponent(initData)}&tgWebAppVersion=8.0&tgWebAppPlatform=ios`;
    expect(detectLaunch({ search: '', hash, telegramInitData: '' })).toEqual({ kind: 'telegram', initData, languageCode: 'en' });
  });

  it('is a VK launch when signed vk_* parameters are in the query, passed on verbatim', () => {
    const search = vkQuery('mobile_iphone', 'ru');
    expect(detectLaunch({ search, hash: '' })).toEqual({ kind: 'vk', launchParams: search.slice(1), languageCode: 'ru' });
  });

  it('is the plain web otherwise: no launch data, vk_* without a sign, a sign alone, the return page query', () => {
    for (const search of ['', '?order=0b6d', '?vk_user_id=7&vk_platform=desktop_web', '?sign=abc']) {
      expect(detectLaunch({ search, hash: '' })).toEqual({ kind: 'web' });
    }
    expect(detectLaunch({ search: '', hash: '#tgWebAppVersion=8.0' })).toEqual({ kind: 'web' });
  });

  it('reads no language from init data whose user is not JSON', () => {
    const broken = new URLSearchParams({ user: '{not json', hash: 'x' }).toString();
    expect(detectLaunch({ search: '', hash: '', telegramInitData: broken })).toEqual({
      kind: 'telegram',
      initData: broken,
      languageCode: undefined,
    });
  });
});

describe('page language', () => {
  it('prefers the platform language over the browser', () => {
    expect(chooseLanguage(detectLaunch({ search: vkQuery('mobile_android', 'en'), hash: '' }), ['ru-RU'])).toBe('en');
    expect(chooseLanguage(detectLaunch({ search: '', hash: '', telegramInitData: initData }), ['ru'])).toBe('en');
  });

  it('falls back to the browser when the platform language is not in the catalogue, then to Russian', () => {
    expect(chooseLanguage(detectLaunch({ search: vkQuery('mobile_android', 'uk'), hash: '' }), ['de-DE', 'en-US'])).toBe('en');
    expect(chooseLanguage({ kind: 'web' }, ['en-GB', 'ru'])).toBe('en');
    expect(chooseLanguage({ kind: 'web' }, ['fr-FR'])).toBe(DEFAULT_LANGUAGE);
    expect(DEFAULT_LANGUAGE).toBe('ru');
  });
});
