import type { FinishReason, GameVariant } from './game.table.js';
import { inDictionary } from './dictionary.js';
import { DomainError } from '../rpc/index.js';

/** A game ends after this many moves in all (ten per seat). */
export const MAX_MOVES = 20;

/** The vs_ai hint idle window: a hint unlocks this long after the robot's last move (spec limit). */
export const AI_HINT_IDLE_MS = 30 * 60 * 1000;

/** Variants and the rule flags each one fixes at creation. */
export const VARIANTS: Readonly<Record<GameVariant, { noRepeatWords: boolean }>> = {
  classic: { noRepeatWords: false },
  no_repeat: { noRepeatWords: true },
};

export function isVariant(v: string): v is GameVariant {
  return Object.hasOwn(VARIANTS, v);
}

/** The parts of a game the rules look at. */
export interface RuleState {
  vsAi: boolean;
  noRepeatWords: boolean;
  status: 'active' | 'finished';
  turn: number | null;
  lastWord: string | null;
  lastRobotMoveAt: Date | null;
}

/** The letter the next word must start with: the last word's last letter; null before the first move. */
export function requiredLetter(lastWord: string | null): string | null {
  return lastWord === null || lastWord === '' ? null : lastWord.slice(-1);
}

/** Points of a word: one per letter. */
export function pointsOf(word: string): number {
  return word.length;
}

/** Normalises a submitted word (trim, lower-case); a word is 2-32 letters a-z. */
export function normaliseWord(raw: string | null): string {
  const word = (raw ?? '').trim().toLowerCase();
  if (!/^[a-z]{2,32}$/.test(word)) throw new DomainError('invalid_word', 'a word is 2-32 letters a-z');
  return word;
}

/**
 * Checks a word against the rules for the position: in the dictionary, starting with the last
 * word's last letter, and (no_repeat variant) not played before in this game.
 */
export function checkWord(word: string, state: Pick<RuleState, 'lastWord' | 'noRepeatWords'>, played: ReadonlySet<string>): void {
  if (!inDictionary(word)) throw new DomainError('unknown_word', `"${word}" is not in the game's dictionary`);
  const letter = requiredLetter(state.lastWord);
  if (letter !== null && !word.startsWith(letter)) throw new DomainError('wrong_letter', `the word must start with "${letter}"`);
  if (state.noRepeatWords && played.has(word)) throw new DomainError('word_repeated', `"${word}" was already played in this game`);
}

/** The winner by score after the last move; null on a draw. */
export function winnerByScore(scores: readonly [number, number]): number | null {
  if (scores[0] === scores[1]) return null;
  return scores[0] > scores[1] ? 0 : 1;
}

/** How a finished game ended, for the view. */
export interface Finish {
  winner: number | null;
  reason: FinishReason;
}

/**
 * Whole seconds until a vs_ai hint unlocks for `viewerSeat` at `now` (rounded up, so a locked
 * hint never shows 0): the robot's last move + 30 minutes minus now. 0 in a human game, before
 * the robot's first move, when the game is finished, or when it is not the viewer's turn.
 */
export function hintUnlockLeftSeconds(state: RuleState, viewerSeat: number, now: Date): number {
  if (!state.vsAi || state.status !== 'active' || state.turn !== viewerSeat || state.lastRobotMoveAt === null) return 0;
  const leftMs = state.lastRobotMoveAt.getTime() + AI_HINT_IDLE_MS - now.getTime();
  return leftMs <= 0 ? 0 : Math.ceil(leftMs / 1000);
}
