import { createTranslator } from '@wordgame/i18n';
import { offerEndsText } from '../src/ui/words.js';

/** The time left on a time-limited offer, worded from the server's seconds with each language's plural rules. */
describe('offerEndsText', () => {
  const en = createTranslator('en');
  const ru = createTranslator('ru');
  const h = 3600;
  const d = 86_400;

  it.each([
    [2 * h + 15 * 60, 'Ends in 2 h 15 min'],
    [2 * h, 'Ends in 2 h'],
    [59 * 60 + 59, 'Ends in 59 min'],
    [d, 'Ends in 1 day'],
    [3 * d + 4 * h + 59 * 60, 'Ends in 3 days 4 h'],
    [59, 'Ends in less than a minute'],
    [-5, 'Ends in less than a minute'],
  ])('English: %p seconds read %p', (seconds, text) => {
    expect(offerEndsText(en, seconds)).toBe(text);
  });

  it.each([
    [2 * h + 15 * 60, 'Закончится через 2 ч 15 мин'],
    [d, 'Закончится через 1 день'],
    [2 * d, 'Закончится через 2 дня'],
    [5 * d + h, 'Закончится через 5 дней 1 ч'],
    [21 * d, 'Закончится через 21 день'],
    [30, 'Закончится меньше чем через минуту'],
  ])('Russian: %p seconds read %p', (seconds, text) => {
    expect(offerEndsText(ru, seconds)).toBe(text);
  });
});
