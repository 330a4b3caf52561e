import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import { postReversal } from '../ledger/index.js';
import { audit } from '../operator-audit/index.js';
import { DomainError } from '../rpc/index.js';
import type { Clock } from '../support/index.js';
import { codeHash, generateCode, PREFIX_LENGTH, readableCode } from './code.js';
import type { PromoHost } from './promos.table.js';
import { HOSTS, insertCode, lockRedemption, markReversed } from './promos.store.js';

/** What the console's code actions need. */
export interface PromoConsoleDeps {
  db: Kysely<DB>;
  logger: Logger;
  now: Clock;
  key: string;
}

/** A code as an operator asks for it (CodeCreate). */
export interface CodeDraft {
  code: string;
  label: string;
  chips: bigint;
  hints: bigint;
  noAdsDays: bigint;
  maxRedemptions: number;
  validFrom: Date;
  validUntil: Date;
  hosts: string[];
}

const LIMITS = { chips: 1_000_000_000n, hints: 1_000_000n, noAdsDays: 3_650n, redemptions: 1_000_000 } as const;
const LABEL_MAX = 64;
const REASON_MAX = 500;
const CONTROL = /\p{Cc}/u;

const invalid = (detail: string) => new DomainError('invalid_promo_code', detail);

function isHost(v: string): v is PromoHost {
  return (HOSTS as readonly string[]).includes(v);
}

/** Checks a draft; answers the hosts in their fixed order, or throws `invalid_promo_code` naming the first problem. */
function checkDraft(d: CodeDraft, now: Date): PromoHost[] {
  if ([...d.label].length > LABEL_MAX || CONTROL.test(d.label))
    throw invalid(`the label is at most ${LABEL_MAX} characters without control characters`);
  if (d.chips < 0n || d.chips > LIMITS.chips) throw invalid(`chips are 0..${LIMITS.chips}`);
  if (d.hints < 0n || d.hints > LIMITS.hints) throw invalid(`hints are 0..${LIMITS.hints}`);
  if (d.noAdsDays < 0n || d.noAdsDays > LIMITS.noAdsDays) throw invalid(`no-ads days are 0..${LIMITS.noAdsDays}`);
  if (d.chips === 0n && d.hints === 0n && d.noAdsDays === 0n) throw invalid('a code grants chips, hints or no-ads days');
  if (!Number.isInteger(d.maxRedemptions) || d.maxRedemptions < 1 || d.maxRedemptions > LIMITS.redemptions)
    throw invalid(`total redemptions are 1..${LIMITS.redemptions}`);
  if (Number.isNaN(d.validFrom.getTime()) || Number.isNaN(d.validUntil.getTime()) || d.validFrom >= d.validUntil)
    throw invalid('the window needs a start before its end');
  if (d.validUntil <= now) throw invalid('the window must end in the future');
  const unknown = d.hosts.find((h) => !isHost(h));
  if (unknown !== undefined) throw invalid('hosts are web, telegram and vk');
  const hosts = HOSTS.filter((h) => d.hosts.includes(h));
  if (hosts.length === 0) throw invalid('pick at least one host');
  return hosts;
}

/**
 * Creates a code (the operator's role checked by the caller), audited as `code_create`. A typed
 * code is normalised and must be 8..32 of A-Z and 0-9; an empty one is generated (16 characters,
 * 80 bits). Only the keyed hash and the prefix are stored; the code is answered once, here.
 * A typed code whose hash exists is `promo_code_taken` (a generated one is drawn again).
 */
export async function createCode(
  deps: PromoConsoleDeps,
  operatorId: bigint,
  draft: CodeDraft,
): Promise<{ id: bigint; code: string; prefix: string }> {
  const now = deps.now();
  const hosts = checkDraft(draft, now);
  const typed = draft.code.trim() !== '';
  const given = typed ? readableCode(draft.code) : null;
  if (typed && given === null) throw invalid('a typed code is 8..32 letters A-Z and digits (spaces and dashes are ignored)');
  for (let attempt = 0; attempt < 3; attempt++) {
    const code = given ?? generateCode();
    const prefix = code.slice(0, PREFIX_LENGTH);
    const id = await deps.db.transaction().execute(async (trx) => {
      const inserted = await insertCode(trx, {
        code_hash: codeHash(deps.key, code),
        prefix,
        label: draft.label,
        chips: draft.chips,
        hints: draft.hints,
        no_ads_days: draft.noAdsDays,
        max_redemptions: draft.maxRedemptions,
        hosts,
        valid_from: draft.validFrom,
        valid_until: draft.validUntil,
        created_by: operatorId,
        created_at: now,
      });
      if (inserted !== null)
        await audit(trx, {
          operatorId,
          action: 'code_create',
          target: `code ${inserted}`,
          outcome: 'created',
          detail: `${prefix}… chips ${draft.chips} hints ${draft.hints} no-ads days ${draft.noAdsDays} × ${draft.maxRedemptions} ${hosts.join(',')}`,
        });
      return inserted;
    });
    if (id !== null) return { id, code, prefix };
    if (given !== null) throw new DomainError('promo_code_taken');
  }
  throw new Error('three generated codes collided; the random source is broken');
}

/**
 * Reverses a redemption (the operator's role checked by the caller): under the redemption's lock,
 * once (a second is `redemption_reversed`), its grant taken back in full by a `reversal` ledger
 * row (a spent grant leaves a debt, as a refund does), the redemption marked, the action audited.
 */
export async function reverseRedemption(
  deps: PromoConsoleDeps,
  operatorId: bigint,
  redemptionId: bigint,
  reason: string,
): Promise<{ balance: bigint; debts: string[] }> {
  const why = reason.trim();
  if (why.length === 0 || [...why].length > REASON_MAX || CONTROL.test(why))
    throw new DomainError('invalid_reason', `give the reason (1..${REASON_MAX} characters without control characters)`);
  const now = deps.now();
  return deps.db.transaction().execute(async (trx) => {
    const r = await lockRedemption(trx, redemptionId);
    if (r === undefined) throw new DomainError('unknown_redemption');
    if (r.reversed_at !== null) throw new DomainError('redemption_reversed');
    const posted = await postReversal(
      trx,
      r.account_id,
      r.segment,
      { chips: r.chips, hints: r.hints, noAdsDays: r.no_ads_days },
      `code ${r.prefix} redemption ${r.id} reversed: ${why}`,
      now,
    );
    await markReversed(trx, r.id, operatorId, now);
    await audit(trx, {
      operatorId,
      action: 'code_reverse',
      target: `redemption ${r.id}`,
      outcome: posted.debts.length > 0 ? 'reversed_with_debt' : 'reversed',
      detail: `account ${r.account_id} code ${r.code_id}: ${why}`,
    });
    if (posted.debts.length > 0) deps.logger.info({ redemptionId: String(r.id), debts: posted.debts }, 'code reversal left a debt');
    return { balance: posted.balance, debts: posted.debts };
  });
}
