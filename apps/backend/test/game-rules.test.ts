import fc from 'fast-check';
import { DomainError } from '@wordgame/contracts';
import { chooseWord, DICTIONARY, inDictionary } from '../src/game/dictionary.js';
import { AI_HINT_IDLE_MS, checkWord, hintUnlockLeftSeconds, normaliseWord, requiredLetter, type RuleState } from '../src/game/rules.js';
import { utcDay } from '../src/game/hint.js';

const codeOf = (fn: () => unknown): string | null => {
  try {
    fn();
  } catch (err: unknown) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
  return null;
};

describe('the built-in dictionary', () => {
  it('is lower-case a-z, without duplicates, and every last letter starts some word (the chain never dead-ends in classic)', () => {
    expect(new Set(DICTIONARY).size).toBe(DICTIONARY.length);
    for (const w of DICTIONARY) expect(w).toMatch(/^[a-z]{2,32}$/);
    const starts = new Set(DICTIONARY.map((w) => w[0]));
    for (const w of DICTIONARY) expect(starts.has(w.slice(-1))).toBe(true);
  });

  it('chooses deterministically: the first unplayed word with the letter, repeats only when allowed', () => {
    expect(chooseWord(null, new Set(), true)).toBe('acorn');
    expect(chooseWord('e', new Set(), true)).toBe('eagle');
    expect(chooseWord('e', new Set(['eagle']), true)).toBe('echo');
    const allQ = new Set(DICTIONARY.filter((w) => w.startsWith('q')));
    expect(chooseWord('q', allQ, true)).toBeNull();
    expect(chooseWord('q', allQ, false)).toBe('queen');
  });

  it('property: a chosen word is always in the dictionary, fits the letter, and is fresh when it can be', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...'abcdefghijklmnopqrstuvwyz'.split('')),
        fc.subarray([...DICTIONARY]),
        fc.boolean(),
        (letter, played, noRepeat) => {
          const used = new Set(played);
          const word = chooseWord(letter, used, noRepeat);
          const fresh = DICTIONARY.some((w) => w.startsWith(letter) && !used.has(w));
          if (word === null) return noRepeat && !fresh;
          return inDictionary(word) && word.startsWith(letter) && (!fresh || !used.has(word));
        },
      ),
    );
  });
});

describe('move rules', () => {
  it('normalises words and refuses non-words', () => {
    expect(normaliseWord('  Apple ')).toBe('apple');
    expect(codeOf(() => normaliseWord('a'))).toBe('invalid_word');
    expect(codeOf(() => normaliseWord('two words'))).toBe('invalid_word');
    expect(codeOf(() => normaliseWord(null))).toBe('invalid_word');
  });

  it('checks the dictionary, the chained letter and (no_repeat) repeats', () => {
    expect(codeOf(() => checkWord('apple', { lastWord: null, noRepeatWords: true }, new Set()))).toBeNull();
    expect(codeOf(() => checkWord('zzz', { lastWord: null, noRepeatWords: true }, new Set()))).toBe('unknown_word');
    expect(codeOf(() => checkWord('tiger', { lastWord: 'apple', noRepeatWords: false }, new Set()))).toBe('wrong_letter');
    expect(codeOf(() => checkWord('eagle', { lastWord: 'apple', noRepeatWords: true }, new Set(['eagle'])))).toBe('word_repeated');
    expect(codeOf(() => checkWord('eagle', { lastWord: 'apple', noRepeatWords: false }, new Set(['eagle'])))).toBeNull();
    expect(requiredLetter('apple')).toBe('e');
    expect(requiredLetter(null)).toBeNull();
  });
});

describe('hintUnlockLeftSeconds', () => {
  const robotMoved = new Date('2030-01-01T12:00:00Z');
  const vsAi: RuleState = { vsAi: true, noRepeatWords: false, status: 'active', turn: 0, lastWord: 'eagle', lastRobotMoveAt: robotMoved };
  const at = (ms: number) => new Date(robotMoved.getTime() + ms);

  it('counts whole seconds (rounded up) down to the robot move + 30 minutes, then 0', () => {
    expect(hintUnlockLeftSeconds(vsAi, 0, at(0))).toBe(1800);
    expect(hintUnlockLeftSeconds(vsAi, 0, at(1))).toBe(1800);
    expect(hintUnlockLeftSeconds(vsAi, 0, at(1000))).toBe(1799);
    expect(hintUnlockLeftSeconds(vsAi, 0, at(AI_HINT_IDLE_MS - 1))).toBe(1);
    expect(hintUnlockLeftSeconds(vsAi, 0, at(AI_HINT_IDLE_MS))).toBe(0);
    expect(hintUnlockLeftSeconds(vsAi, 0, at(AI_HINT_IDLE_MS + 60_000))).toBe(0);
  });

  it("is 0 in a human game, before the robot has moved, when finished, and when it is not the viewer's turn", () => {
    expect(hintUnlockLeftSeconds({ ...vsAi, vsAi: false }, 0, at(0))).toBe(0);
    expect(hintUnlockLeftSeconds({ ...vsAi, lastRobotMoveAt: null, lastWord: null }, 0, at(0))).toBe(0);
    expect(hintUnlockLeftSeconds({ ...vsAi, status: 'finished', turn: null }, 0, at(0))).toBe(0);
    expect(hintUnlockLeftSeconds({ ...vsAi, turn: 1 }, 0, at(0))).toBe(0);
  });

  it('property: locked (positive) exactly while now is before the unlock instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: -AI_HINT_IDLE_MS, max: 2 * AI_HINT_IDLE_MS }), (offset) => {
        const left = hintUnlockLeftSeconds(vsAi, 0, at(offset));
        return offset < AI_HINT_IDLE_MS
          ? left > 0 && left * 1000 >= AI_HINT_IDLE_MS - offset && (left - 1) * 1000 < AI_HINT_IDLE_MS - offset
          : left === 0;
      }),
    );
  });
});

describe('the allowance day', () => {
  it('is the UTC calendar day', () => {
    expect(utcDay(new Date('2030-01-15T23:59:59.999Z'))).toBe('2030-01-15');
    expect(utcDay(new Date('2030-01-16T00:00:00.000Z'))).toBe('2030-01-16');
    expect(utcDay(new Date('2030-01-16T01:30:00.000+03:00'))).toBe('2030-01-15');
  });
});
