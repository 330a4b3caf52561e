import type { Builder } from 'flatbuffers';
import { encodeTable, fb } from '@wordgame/contracts';
import { unixSeconds } from '../rpc/index.js';
import type { GameRecord, SeatRecord } from './game.store.js';
import { hintUnlockLeftSeconds, requiredLetter } from './rules.js';

/** A played move as events carry it. */
export interface MoveRecord {
  moveNo: number;
  seat: number;
  word: string;
  points: number;
  byRobot: boolean;
  at: Date;
}

/** What a hint answers besides the state. */
export interface HintResult {
  word: string;
  source: 'free' | 'allowance' | 'wallet';
  benefitOrigin: string;
  allowanceLeft: number;
}

function state(b: Builder, game: GameRecord, viewerSeat: number, now: Date): number {
  const active = game.status === 'active';
  return fb.StateView.createStateView(
    b,
    game.turn ?? -1,
    b.createString(game.lastWord ?? ''),
    game.moves,
    BigInt(hintUnlockLeftSeconds(game, viewerSeat, now)),
    b.createString(game.status),
    b.createString(active ? (requiredLetter(game.lastWord) ?? '') : ''),
    game.winner ?? -1,
    b.createString(game.finishReason ?? ''),
  );
}

function seat(b: Builder, s: SeatRecord): number {
  const name = s.deleted ? 'Deleted player' : s.displayName;
  return fb.SeatView.createSeatView(
    b,
    s.seat,
    s.accountId ?? 0n,
    b.createString(name),
    s.deleted,
    s.accountId === null,
    s.score,
    s.hintsUsed,
  );
}

function seats(b: Builder, game: GameRecord, create: (b: Builder, data: number[]) => number): number {
  return create(
    b,
    game.seats.map((s) => seat(b, s)),
  );
}

function view(b: Builder, game: GameRecord, viewerSeat: number, now: Date): number {
  const variant = b.createString(game.variant);
  const seatsVec = seats(b, game, (bb, d) => fb.GameView.createSeatsVector(bb, d));
  const stateOff = state(b, game, viewerSeat, now);
  const words = fb.GameView.createWordsVector(
    b,
    game.words.map((w) => b.createString(w)),
  );
  fb.GameView.startGameView(b);
  fb.GameView.addGameId(b, game.id);
  fb.GameView.addVariant(b, variant);
  fb.GameView.addVsAi(b, game.vsAi);
  fb.GameView.addNoRepeatWords(b, game.noRepeatWords);
  fb.GameView.addSeats(b, seatsVec);
  fb.GameView.addState(b, stateOff);
  fb.GameView.addYourSeat(b, viewerSeat);
  fb.GameView.addCreatedAtUnix(b, unixSeconds(game.createdAt));
  fb.GameView.addWords(b, words);
  return fb.GameView.endGameView(b);
}

/** GameView for the seated viewer at `now` (hint unlock seconds depend on both). */
export function encodeGameView(game: GameRecord, viewerSeat: number, now: Date): Uint8Array {
  return encodeTable((b) => view(b, game, viewerSeat, now));
}

/** HintGrant: the word, where it came from, and the viewer's state after it. */
export function encodeHintGrant(game: GameRecord, viewerSeat: number, hint: HintResult, now: Date): Uint8Array {
  return encodeTable((b) => {
    const word = b.createString(hint.word);
    const source = b.createString(hint.source);
    const origin = b.createString(hint.benefitOrigin);
    const stateOff = state(b, game, viewerSeat, now);
    fb.HintGrant.startHintGrant(b);
    fb.HintGrant.addGameId(b, game.id);
    fb.HintGrant.addWord(b, word);
    fb.HintGrant.addSource(b, source);
    fb.HintGrant.addBenefitOrigin(b, origin);
    fb.HintGrant.addAllowanceLeft(b, hint.allowanceLeft);
    fb.HintGrant.addState(b, stateOff);
    return fb.HintGrant.endHintGrant(b);
  });
}

/** Event kinds a watcher receives. */
export type GameEventKind = 'snapshot' | 'opponent_moved' | 'opponent_resigned' | 'opponent_deleted';

/**
 * GameEvent for one viewer: a `snapshot` carries the whole view; the other kinds carry the state
 * (with the viewer's hint unlock seconds at `now`) and seats, plus the move for `opponent_moved`.
 */
export function encodeGameEvent(kind: GameEventKind, game: GameRecord, viewerSeat: number, now: Date, move?: MoveRecord): Uint8Array {
  return encodeTable((b) => {
    const kindOff = b.createString(kind);
    if (kind === 'snapshot') {
      const viewOff = view(b, game, viewerSeat, now);
      fb.GameEvent.startGameEvent(b);
      fb.GameEvent.addKind(b, kindOff);
      fb.GameEvent.addGameId(b, game.id);
      fb.GameEvent.addView(b, viewOff);
      return fb.GameEvent.endGameEvent(b);
    }
    const moveOff =
      move === undefined
        ? 0
        : fb.MoveView.createMoveView(b, move.moveNo, move.seat, b.createString(move.word), move.points, move.byRobot, unixSeconds(move.at));
    const seatsVec = seats(b, game, (bb, d) => fb.GameEvent.createSeatsVector(bb, d));
    const stateOff = state(b, game, viewerSeat, now);
    fb.GameEvent.startGameEvent(b);
    fb.GameEvent.addKind(b, kindOff);
    fb.GameEvent.addGameId(b, game.id);
    if (moveOff !== 0) fb.GameEvent.addMove(b, moveOff);
    fb.GameEvent.addState(b, stateOff);
    fb.GameEvent.addSeats(b, seatsVec);
    return fb.GameEvent.endGameEvent(b);
  });
}
