import type { Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import { type Segment, gate } from '../gate/index.js';
import { lockHintBenefits, requireSpender, spendWalletHint } from '../ledger/index.js';
import { type Caller, DomainError, HINT_UNLOCK_HEADER } from '../rpc/index.js';
import type { HintResult } from './codec.js';
import type { GameDeps } from './deps.js';
import { chooseWord } from './dictionary.js';
import { lockSeatedGame, requireTurn } from './play.js';
import { countHint, takeHintAllowance, type GameRecord } from './game.store.js';
import { hintUnlockLeftSeconds, requiredLetter } from './rules.js';

/**
 * A hint: a valid next word for the caller, who must be to move.
 *
 * - vs_ai: free (no allowance, no wallet, no statistic) but idle-gated on the server clock:
 *   until the robot's last move + 30 minutes it fails with `hint_locked` (the seconds left in
 *   `x-hint-unlock-left-seconds`). Before the robot's first move nothing is locked.
 * - human game: the daily allowance (GAME_DAILY_HINTS per UTC day) first, else one hint from the
 *   wallet's hint benefit of the first origin in the context's gate order that holds one (a
 *   ledger `spend` row with hints_delta -1), else `no_hints_left`; then the seat's and the
 *   player's hint counts go up.
 *
 * A position with no word left (no_repeat variant) is `no_word_available`, and nothing is spent.
 * A blocked account takes no hint (`account_suspended`), decided under its locked row.
 */
export async function useHint(
  deps: GameDeps,
  caller: Caller,
  gameId: bigint,
): Promise<{ game: GameRecord; seat: number; hint: HintResult }> {
  const now = deps.now();
  return deps.db.transaction().execute(async (trx) => {
    // A hint may spend a wallet hint: the account row is locked first (the money writers' order).
    await requireSpender(trx, caller.accountId, now);
    const { game, seat } = await lockSeatedGame(trx, caller, gameId);
    requireTurn(game, seat);
    if (game.vsAi) {
      const left = hintUnlockLeftSeconds(game, seat, now);
      if (left > 0)
        throw new DomainError('hint_locked', `hints unlock ${left} s after the robot's last move plus 30 minutes`, {
          [HINT_UNLOCK_HEADER]: String(left),
        });
    }
    const word = chooseWord(requiredLetter(game.lastWord), new Set(game.words), game.noRepeatWords);
    if (word === null) throw new DomainError('no_word_available', 'no dictionary word fits this position');
    if (game.vsAi) return { game, seat, hint: { word, source: 'free', benefitOrigin: '', allowanceLeft: 0 } };

    const allowance = await takeAllowance(trx, caller.accountId, now, deps.dailyHints);
    let hint: HintResult;
    if (allowance !== null) {
      hint = { word, source: 'allowance', benefitOrigin: '', allowanceLeft: allowance };
    } else {
      const origin = await takeWalletHint(trx, caller, game.id, now);
      hint = { word, source: 'wallet', benefitOrigin: origin, allowanceLeft: 0 };
    }
    await countHint(trx, caller.accountId, game.id, seat);
    const mine = game.seats[seat];
    if (mine) mine.hintsUsed += 1;
    deps.logger.info(
      { gameId: String(game.id), accountId: String(caller.accountId), source: hint.source, origin: hint.benefitOrigin || undefined },
      'hint used',
    );
    return { game, seat, hint };
  });
}

/** The UTC calendar day of an instant, as `YYYY-MM-DD`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Takes one free hint of the caller's UTC day; answers how many are left, or null when none was. */
async function takeAllowance(trx: Transaction<DB>, accountId: bigint, now: Date, perDay: number): Promise<number | null> {
  if (perDay <= 0) return null;
  const used = await takeHintAllowance(trx, accountId, utcDay(now), perDay);
  return used === undefined ? null : perDay - used;
}

/** Takes one hint benefit from the first origin, in the context's gate order, that holds one. */
async function takeWalletHint(trx: Transaction<DB>, caller: Caller, gameId: bigint, now: Date): Promise<Segment> {
  const decision = gate({ ...caller.platform, emailConfirmed: false });
  if (!decision.canSpend || decision.spendOrder.length === 0) {
    throw new DomainError('no_hints_left', 'no free hints left today, and wallet hints cannot be used in this app context');
  }
  const rows = await lockHintBenefits(trx, caller.accountId, decision.spendOrder);
  const held = new Map(rows.map((r) => [r.origin, r.hints]));
  const origin = decision.spendOrder.find((o) => (held.get(o) ?? 0n) > 0n);
  if (origin === undefined) throw new DomainError('no_hints_left', 'no free hints left today and no hints in the wallet');
  await spendWalletHint(trx, caller.accountId, origin, `hint in game ${gameId}`, now);
  return origin;
}
