import { invoiceSlug } from '../src/bridge/telegram.js';
import { vkAppearance } from '../src/bridge/vk.js';
import { telegramLaunchParams, themeColors } from '../src/launch/telegram-params.js';

describe('Telegram launch parameters', () => {
  it('reads the version, platform and theme from the launch hash as Telegram encodes them', () => {
    const theme = { bg_color: '#17212b', text_color: '#F5F5F5', button_color: '#5288c1' };
    const hash = `#${new URLSearchParams({ tgWebAppData: 'x', tgWebAppVersion: '7.10', tgWebAppPlatform: 'ios', tgWebAppThemeParams: JSON.stringify(theme) })}`;
    expect(telegramLaunchParams(hash)).toEqual({ version: '7.10', platform: 'ios', themeParams: theme });
  });

  it('leaves out what is malformed: a theme that is not JSON, colours that are not #rrggbb, a version that is not one', () => {
    const hash = `#${new URLSearchParams({ tgWebAppVersion: '8.0; drop', tgWebAppThemeParams: '{"bg_color":' })}`;
    expect(telegramLaunchParams(hash)).toEqual({ version: '6.0', platform: '', themeParams: {} });
    expect(themeColors({ bg_color: 'red', text_color: '#000', link_color: '#2481cc', button_color: 7, hint_color: '#12345g' })).toEqual({
      link_color: '#2481cc',
    });
    expect(themeColors(null)).toEqual({});
  });
});

describe('invoice links', () => {
  it("takes the slug of Telegram's invoice links: t.me/$slug and t.me/invoice/slug", () => {
    expect(invoiceSlug('https://t.me/$AbC-d_9')).toBe('AbC-d_9');
    expect(invoiceSlug('https://t.me/invoice/AbC-d_9')).toBe('AbC-d_9');
    expect(invoiceSlug('https://telegram.me/$abc')).toBe('abc');
  });

  it('takes nothing from any other link', () => {
    for (const link of [
      'http://t.me/$abc',
      'https://t.me.example/$abc',
      'https://t.me/abc',
      'https://t.me/$abc/x',
      'https://t.me/$',
      'not a url',
    ])
      expect([link, invoiceSlug(link)]).toEqual([link, null]);
  });
});

describe('VK appearance', () => {
  it('takes appearance, else what the scheme implies, else nothing', () => {
    expect(vkAppearance({ appearance: 'dark', scheme: 'bright_light' })).toBe('dark');
    expect(vkAppearance({ scheme: 'space_gray' })).toBe('dark');
    expect(vkAppearance({ scheme: 'vkcom_light' })).toBe('light');
    expect(vkAppearance({ scheme: 'unknown' })).toBeNull();
    expect(vkAppearance(undefined)).toBeNull();
  });
});
