/**
 * The game's fixed built-in dictionary: lower-case English nouns. Every letter a word ends with
 * also starts at least one word, so the chain can always continue in the classic variant.
 */
export const DICTIONARY: readonly string[] = [
  'acorn', 'amber', 'anchor', 'angel', 'apple', 'arrow', 'atlas',
  'banana', 'basket', 'beach', 'bottle', 'bridge', 'butter',
  'camel', 'candle', 'castle', 'cherry', 'circle', 'cloud',
  'desert', 'dinner', 'dolphin', 'dragon', 'drum',
  'eagle', 'echo', 'elbow', 'emerald', 'engine', 'envelope',
  'falcon', 'feather', 'flower', 'forest', 'fossil',
  'garden', 'giant', 'glove', 'grape', 'guitar',
  'hammer', 'harbor', 'helmet', 'honey', 'horizon',
  'igloo', 'ink', 'iron', 'island', 'ivory',
  'jacket', 'jelly', 'jewel', 'jungle',
  'kettle', 'kingdom', 'kitten', 'knot', 'koala',
  'ladder', 'lagoon', 'lantern', 'lemon', 'lizard',
  'magnet', 'mango', 'marble', 'meadow', 'mirror',
  'nectar', 'needle', 'nest', 'night', 'noodle',
  'ocean', 'olive', 'orange', 'orbit', 'oyster',
  'parrot', 'pepper', 'pillow', 'planet', 'puzzle',
  'queen', 'quill',
  'rabbit', 'radish', 'ribbon', 'river', 'rocket',
  'saddle', 'salmon', 'spider', 'sugar', 'summer',
  'thunder', 'tiger', 'tomato', 'tunnel', 'turtle',
  'umbrella', 'uncle', 'unicorn', 'urchin',
  'valley', 'velvet', 'vessel', 'violin', 'volcano',
  'wagon', 'walnut', 'whistle', 'window', 'wizard',
  'yacht', 'yarn', 'yellow', 'yogurt',
  'zebra', 'zipper',
];

const WORDS: ReadonlySet<string> = new Set(DICTIONARY);

/** Whether a word is in the dictionary. */
export function inDictionary(word: string): boolean {
  return WORDS.has(word);
}

/**
 * The deterministic choice of a next word (the robot's move and a hint): the alphabetically first
 * dictionary word starting with `letter` (any word when null) that was not played yet; when every
 * such word was played, the first one if repeats are allowed, else null.
 */
export function chooseWord(letter: string | null, played: ReadonlySet<string>, noRepeat: boolean): string | null {
  const candidates = [...DICTIONARY].filter((w) => letter === null || w.startsWith(letter)).sort();
  const fresh = candidates.find((w) => !played.has(w));
  if (fresh !== undefined) return fresh;
  return noRepeat ? null : (candidates[0] ?? null);
}
