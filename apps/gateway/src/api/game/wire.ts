import { z } from 'zod';
import { bigintString, isoTime, type Wire } from '../wire.js';
import type { GameEventJson, GameJson, readHint } from './codec.js';

const seatWire = z
  .object({
    seat: z.int(),
    account_id: bigintString.nullable(),
    display_name: z.string(),
    deleted: z.boolean(),
    robot: z.boolean(),
    score: z.int(),
    hints_used: z.int(),
  })
  .strict();

const stateWire = z
  .object({
    turn: z.int().nullable(),
    last_word: z.string().nullable(),
    moves: z.int(),
    hint_unlock_left_seconds: z.int(),
    status: z.enum(['active', 'finished']),
    required_letter: z.string().nullable(),
    winner: z.int().nullable(),
    finish_reason: z.string().nullable(),
  })
  .strict()
  .nullable();

/** A game as the caller sees it (its seat, the state, the words played). */
export const gameWire = z
  .object({
    game_id: bigintString,
    variant: z.enum(['classic', 'no_repeat']),
    vs_ai: z.boolean(),
    no_repeat_words: z.boolean(),
    your_seat: z.int(),
    created_at: isoTime,
    seats: z.array(seatWire),
    state: stateWire,
    words: z.array(z.string()),
  })
  .strict()
  .meta({ title: 'Game' }) satisfies z.ZodType<Wire<GameJson>>;

/** A hint: a valid next word, where it came from, and the daily allowance left. */
export const hintWire = z
  .object({
    game_id: bigintString,
    word: z.string(),
    source: z.enum(['free', 'allowance', 'wallet']),
    benefit_origin: z.string().nullable(),
    allowance_left: z.int(),
    state: stateWire,
  })
  .strict()
  .meta({ title: 'Hint' }) satisfies z.ZodType<Wire<ReturnType<typeof readHint>>>;

/** The `data` of one server-sent event of the game's live stream (its `event:` is `kind`). */
export const gameEventWire = z
  .object({
    kind: z.enum(['snapshot', 'opponent_moved', 'opponent_resigned', 'opponent_deleted']),
    game_id: bigintString,
    game: gameWire.optional(),
    move: z
      .object({ move_no: z.int(), seat: z.int(), word: z.string(), points: z.int(), by_robot: z.boolean(), at: isoTime })
      .strict()
      .optional(),
    state: stateWire.optional(),
    seats: z.array(seatWire).optional(),
  })
  .strict()
  .meta({ title: 'GameEvent' }) satisfies z.ZodType<Wire<GameEventJson>>;
