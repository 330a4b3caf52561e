import { CATALOGUE, createTranslator, LANGUAGES, languageOf, pickLanguage, PLURAL_CATEGORIES } from '../src/index.js';

type Tree = { [key: string]: string | Tree };

function leaves(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out.set(`${prefix}${key}`, value);
    else for (const [k, v] of leaves(value, `${prefix}${key}.`)) out.set(k, v);
  }
  return out;
}

const variables = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1] ?? '').sort();

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

  const SUFFIX = new RegExp(`_(${PLURAL_CATEGORIES.join('|')})$`);
  /** Keys with plural forms folded to one (`wallet.debt_one`, `wallet.debt_few` -> `wallet.debt`), each with its variables. */
  const folded = (messages: Map<string, string>) => {
    const out = new Map<string, string[]>();
    for (const [key, text] of messages) out.set(key.replace(SUFFIX, ''), variables(text));
    return out;
  };

  it('has the same keys in Russian and English (plural forms aside), and each message the same variables', () => {
    const [enKeys, ruKeys] = [folded(en), folded(ru)];
    expect([...ruKeys.keys()].sort()).toEqual([...enKeys.keys()].sort());
    for (const [key, text] of en)
      expect([key, variables(ru.get(key) ?? ru.get(key.replace(SUFFIX, '_other')) ?? '')]).toEqual([key, variables(text)]);
    for (const text of ru.values()) expect(text.trim()).not.toBe('');
  });

  it('has every plural form each language has (CLDR categories), and no form it lacks', () => {
    for (const language of LANGUAGES) {
      const messages = leaves(CATALOGUE[language]);
      const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
      const bases = new Set([...messages.keys()].filter((k) => k.endsWith('_other')).map((k) => k.replace(SUFFIX, '')));
      expect(bases.size).toBeGreaterThan(0);
      for (const base of bases) {
        const forms = [...messages.keys()].filter((k) => k.replace(SUFFIX, '') === base && SUFFIX.test(k)).map((k) => SUFFIX.exec(k)?.[1]);
        expect([language, base, forms.sort()]).toEqual([language, base, [...categories].sort()]);
      }
    }
  });

  it.each([
    ['en', '1', '1 operation matches.'],
    ['en', '0', '0 operations match.'],
    ['en', '21', '21 operations match.'],
    ['ru', '1', 'Подходит 1 операция.'],
    ['ru', '21', 'Подходит 21 операция.'],
    ['ru', '3', 'Подходят 3 операции.'],
    ['ru', '11', 'Подходят 11 операций.'],
    ['ru', '25', 'Подходят 25 операций.'],
    ['ru', '100000000000000000001', 'Подходит 100000000000000000001 операция.'],
    ['ru', '100000000000000000011', 'Подходят 100000000000000000011 операций.'],
    ['en', '100000000000000000001', '100000000000000000001 operations match.'],
  ] as const)('words a count by the plural rules of %s: %s', (language, n, text) => {
    expect(createTranslator(language).plural('console.operations_match', n)).toBe(text);
  });

  it('lets the caller format the count it shows', () => {
    expect(createTranslator('ru').plural('wallet.grants_chips', '2000', { count: '2\u00a0000' })).toBe('2\u00a0000 фишек');
    expect(createTranslator('en').plural('wallet.price_stars', 1n)).toBe('Pay 1 star');
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
