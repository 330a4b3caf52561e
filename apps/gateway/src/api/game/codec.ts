import { decodeTable, fb } from '@wordgame/contracts';
import { isoFromUnix, readStrings } from '../fbs-read.js';

/** One seat as JSON; the robot's account_id is null. */
export interface SeatJson {
  seat: number;
  account_id: bigint | null;
  display_name: string;
  deleted: boolean;
  robot: boolean;
  score: number;
  hints_used: number;
}

/** The game state as the caller sees it; `hint_unlock_left_seconds` is whole seconds. */
export interface StateJson {
  turn: number | null;
  last_word: string | null;
  moves: number;
  hint_unlock_left_seconds: number;
  status: string;
  required_letter: string | null;
  winner: number | null;
  finish_reason: string | null;
}

export interface GameJson {
  game_id: bigint;
  variant: string;
  vs_ai: boolean;
  no_repeat_words: boolean;
  your_seat: number;
  created_at: string | null;
  seats: SeatJson[];
  state: StateJson | null;
  words: string[];
}

export interface MoveJson {
  move_no: number;
  seat: number;
  word: string;
  points: number;
  by_robot: boolean;
  at: string | null;
}

/** A live event: `snapshot` carries `game`; the others carry `state` and `seats`, `opponent_moved` also `move`. */
export interface GameEventJson {
  kind: string;
  game_id: bigint;
  game?: GameJson;
  move?: MoveJson;
  state?: StateJson | null;
  seats?: SeatJson[];
}

const orNull = (v: string | null): string | null => (v === null || v === '' ? null : v);
const seatOrNull = (n: number): number | null => (n < 0 ? null : n);

function readState(t: InstanceType<typeof fb.StateView> | null): StateJson | null {
  if (t === null) return null;
  return {
    turn: seatOrNull(t.turn()),
    last_word: orNull(t.lastWord()),
    moves: t.moves(),
    hint_unlock_left_seconds: Number(t.hintUnlockLeftSeconds()),
    status: t.status() ?? '',
    required_letter: orNull(t.requiredLetter()),
    winner: seatOrNull(t.winner()),
    finish_reason: orNull(t.finishReason()),
  };
}

function readSeats(length: number, at: (i: number) => InstanceType<typeof fb.SeatView> | null): SeatJson[] {
  const out: SeatJson[] = [];
  for (let i = 0; i < length; i++) {
    const s = at(i);
    if (s === null) continue;
    out.push({
      seat: s.seat(),
      account_id: s.robot() ? null : s.accountId(),
      display_name: s.displayName() ?? '',
      deleted: s.deleted(),
      robot: s.robot(),
      score: s.score(),
      hints_used: s.hintsUsed(),
    });
  }
  return out;
}

function readGameTable(t: InstanceType<typeof fb.GameView>): GameJson {
  return {
    game_id: t.gameId(),
    variant: t.variant() ?? '',
    vs_ai: t.vsAi(),
    no_repeat_words: t.noRepeatWords(),
    your_seat: t.yourSeat(),
    created_at: isoFromUnix(t.createdAtUnix()),
    seats: readSeats(t.seatsLength(), (i) => t.seats(i)),
    state: readState(t.state()),
    words: readStrings(t.wordsLength(), (i) => t.words(i)),
  };
}

/** GameView body to JSON. */
export function readGame(body: Uint8Array): GameJson {
  return decodeTable(body, (bb) => fb.GameView.getRootAsGameView(bb), readGameTable);
}

/** HintGrant body to JSON. */
export function readHint(body: Uint8Array) {
  return decodeTable(
    body,
    (bb) => fb.HintGrant.getRootAsHintGrant(bb),
    (t) => ({
      game_id: t.gameId(),
      word: t.word() ?? '',
      source: t.source() ?? '',
      benefit_origin: orNull(t.benefitOrigin()),
      allowance_left: t.allowanceLeft(),
      state: readState(t.state()),
    }),
  );
}

/** GameEvent body to JSON. */
export function readGameEvent(body: Uint8Array): GameEventJson {
  return decodeTable(
    body,
    (bb) => fb.GameEvent.getRootAsGameEvent(bb),
    (t) => {
      const event: GameEventJson = { kind: t.kind() ?? '', game_id: t.gameId() };
      const view = t.view();
      if (view !== null) {
        event.game = readGameTable(view);
        return event;
      }
      const move = t.move();
      if (move !== null) {
        event.move = {
          move_no: move.moveNo(),
          seat: move.seat(),
          word: move.word() ?? '',
          points: move.points(),
          by_robot: move.byRobot(),
          at: isoFromUnix(move.atUnix()),
        };
      }
      event.state = readState(t.state());
      event.seats = readSeats(t.seatsLength(), (i) => t.seats(i));
      return event;
    },
  );
}
