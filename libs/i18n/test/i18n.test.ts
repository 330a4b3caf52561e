import { CATALOGUE, createTranslator, languageOf, pickLanguage } from '../src/index.js';

type Tree = { [key: string]: string | Tree };

function leaves(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out.set(`${prefix}${key}`, value);
    else for (const [k, v] of leaves(value, `${prefix}${key}.`)) out.set(k, v);
  }
  return out;
}

const variables = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

describe('language selection', () => {
  it.each([
    ['ru', 'ru'],
    ['RU', 'ru'],
    ['ru-RU', 'ru'],
    ['ru_RU', 'ru'],
    ['en', 'en'],
    ['en-GB', 'en'],
    ['de', undefined],
    ['', undefined],
    [undefined, undefined],
    [null, undefined],
  ])('maps the tag %p to %p', (tag, language) => {
    expect(languageOf(tag)).toBe(language);
  });

  it('takes the first known candidate (the platform before the browser), else the fallback', () => {
    expect(pickLanguage(['en', 'ru'], 'ru')).toBe('en');
    expect(pickLanguage([undefined, 'de-DE', 'ru-RU', 'en'], 'en')).toBe('ru');
    expect(pickLanguage(['uk', 'fr'], 'ru')).toBe('ru');
    expect(pickLanguage([], 'en')).toBe('en');
  });
});

describe('catalogue', () => {
  const en = leaves(CATALOGUE.en);
  const ru = leaves(CATALOGUE.ru);

  it('has the same keys in Russian and English, and each message the same variables', () => {
    expect([...ru.keys()].sort()).toEqual([...en.keys()].sort());
    for (const [key, text] of en) expect([key, variables(ru.get(key) ?? '')]).toEqual([key, variables(text)]);
    for (const text of ru.values()) expect(text.trim()).not.toBe('');
  });

  it('renders a message in the chosen language with its values unescaped', () => {
    const params = { product_title: 'Chips & <more>', chips: '500', order_id: 'o-1' };
    expect(createTranslator('en').t('bot.payment_credited', params)).toBe(
      'Payment received: Chips & <more>. 500 chips were added to your wallet. Order o-1.',
    );
    expect(createTranslator('ru').t('bot.payment_credited', params)).toBe(
      'Оплата получена: Chips & <more>. В кошелёк зачислено фишек: 500. Заказ o-1.',
    );
  });

  it('knows which keys exist (API error codes map to messages or the generic one)', () => {
    const t = createTranslator('ru');
    expect(t.has('wallet.errors.insufficient_chips')).toBe(true);
    expect(t.has('wallet.errors.no_such_code')).toBe(false);
  });
});
