import { createTranslator } from '@wordgame/i18n';
import { redeemedText } from '../src/views/redeem-code.js';

describe('the redeem-a-code words', () => {
  it('say what a code granted in the page language, leaving out what it did not grant', () => {
    const en = createTranslator('en');
    expect(redeemedText(en, { segment: 'direct', chips: '1500', hints: '2', no_ads_days: '0', balance: '1500' })).toBe(
      'Code redeemed: 1,500 chips, 2 hints.',
    );
    expect(redeemedText(en, { segment: 'vk', chips: '0', hints: '0', no_ads_days: '7', balance: '0' })).toBe(
      'Code redeemed: 7 days without ads.',
    );
    const ru = createTranslator('ru');
    expect(redeemedText(ru, { segment: 'telegram', chips: '100', hints: '3', no_ads_days: '0', balance: '100' })).toBe(
      'Код активирован: фишки: 100, подсказки: 3.',
    );
  });

  it('word both refusals and the attempt limit in each language', () => {
    for (const language of ['en', 'ru'] as const) {
      const t = createTranslator(language);
      for (const code of ['code_not_redeemable', 'code_already_redeemed', 'rate_limited'])
        expect(t.has(`wallet.errors.${code}`)).toBe(true);
    }
  });
});
