import type { Kysely } from 'kysely';
import type { Counter } from 'prom-client';
import type { DB } from '../db/index.js';
import { isSegment, type Segment } from '../gate/index.js';
import { postMakeGood } from '../ledger/index.js';
import { audit } from '../operator-audit/index.js';
import { codeOf, requireRole } from '../operators/index.js';
import { DomainError } from '../rpc/index.js';
import type { Clock } from '../support/index.js';
import {
  grantedBetween,
  insertMakeGood,
  lockOperatorGrants,
  makeGoodByToken,
  supportCaseAccount,
  targetAccount,
} from './makegoods.store.js';

/** BACKEND_MAKE_GOOD_DAILY_*_CAP: what one operator may grant per UTC day, all players together. */
export interface MakeGoodCaps {
  chips: bigint;
  hints: bigint;
  noAdsDays: bigint;
}

/** What the make-goods feature works with. */
export interface MakeGoodDeps {
  db: Kysely<DB>;
  now: Clock;
  caps: MakeGoodCaps;
  /** backend_make_goods_total{outcome}, from createMakeGoodOutcomes. */
  outcomes: Counter<'outcome'>;
}

/** A make-good as the console asks for it (unvalidated). */
export interface RawMakeGood {
  accountId: bigint;
  segment: string;
  chips: bigint;
  hints: bigint;
  noAdsDays: bigint;
  reason: string;
  supportCase: string;
  formToken: string;
}

interface ValidMakeGood {
  accountId: bigint;
  segment: Segment;
  chips: bigint;
  hints: bigint;
  noAdsDays: bigint;
  reason: string;
  supportCase: string;
  formToken: string;
}

/** Used and allowed per capped kind. */
export interface CapUse {
  kind: 'chips' | 'hints' | 'no_ads_days';
  cap: bigint;
  used: bigint;
}

/** What a grant did (or, replayed, what the same form granted before). */
export interface MakeGoodOutcome {
  id: bigint;
  replayed: boolean;
  accountId: bigint;
  segment: Segment;
  chips: bigint;
  hints: bigint;
  noAdsDays: bigint;
  balance: bigint;
  caps: CapUse[];
}

const FORM_TOKEN = /^[A-Za-z0-9_-]{16,64}$/;
const CASE_CODE = /^C-[0-9A-Z]{6}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;
const MAX_AMOUNT = 1_000_000_000n;
const DAY_MS = 86_400_000;

function invalid(message: string): DomainError {
  return new DomainError('invalid_make_good', message);
}

/** Checks a make-good's shape: a segment, whole non-negative amounts (at least one), a reason, a form token. */
export function validateMakeGood(raw: RawMakeGood): ValidMakeGood {
  if (raw.accountId <= 0n) throw invalid('name the account to grant to');
  if (!isSegment(raw.segment)) throw invalid('the segment is direct, telegram or vk');
  for (const v of [raw.chips, raw.hints, raw.noAdsDays]) if (v < 0n || v > MAX_AMOUNT) throw invalid('amounts are whole numbers from 0');
  if (raw.chips + raw.hints + raw.noAdsDays === 0n) throw invalid('grant chips, hints or no-ads days');
  const reason = raw.reason.trim();
  if (reason.length === 0 || reason.length > 500 || CONTROL.test(reason)) throw invalid('give the reason (1..500 characters, one line)');
  if (raw.supportCase !== '' && !CASE_CODE.test(raw.supportCase)) throw invalid('a support case is named like C-7K3Q9X');
  if (!FORM_TOKEN.test(raw.formToken)) throw invalid('the grant form is stale; open it again');
  return { ...raw, segment: raw.segment, reason };
}

function dayOf(now: Date): [Date, Date] {
  const from = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return [new Date(from), new Date(from + DAY_MS)];
}

function capUses(caps: MakeGoodCaps, used: { chips: bigint; hints: bigint; noAdsDays: bigint }): CapUse[] {
  return [
    { kind: 'chips', cap: caps.chips, used: used.chips },
    { kind: 'hints', cap: caps.hints, used: used.hints },
    { kind: 'no_ads_days', cap: caps.noAdsDays, used: used.noAdsDays },
  ];
}

/** The operator's caps and what today's (UTC, backend clock) grants used of them. */
export async function capsToday(deps: MakeGoodDeps, operatorId: bigint): Promise<CapUse[]> {
  const [from, to] = dayOf(deps.now());
  return capUses(deps.caps, await grantedBetween(deps.db, operatorId, from, to));
}

/**
 * A make-good on behalf of the operator named by the caller's x-operator-session token: refused
 * without a `granter` session; validated; once per (operator, form token) — a second submit of the
 * same form answers the first grant, `replayed`, and grants nothing. In one transaction under the
 * operator's lock: the daily caps (today's grants plus this one, per kind; `make_good_cap_reached`),
 * the make_goods row, the posting (chips to the segment, so a debt is paid off first; hints and
 * no-ads days to the origin; one `make_good` ledger row) and the audit row (target: the support
 * case it settles, else `account:<id>`). A refusal is audited after the rollback.
 */
export async function grantMakeGood(deps: MakeGoodDeps, headers: Headers, raw: RawMakeGood): Promise<MakeGoodOutcome> {
  const { db } = deps;
  const operator = await requireRole(db, headers, 'granter', 'make_good', deps.now()).catch((err: unknown) => {
    deps.outcomes.inc({ outcome: 'refused' });
    throw err;
  });
  const target = CASE_CODE.test(raw.supportCase) ? raw.supportCase : `account:${raw.accountId}`;
  try {
    const m = validateMakeGood(raw);
    const now = deps.now();
    const [from, to] = dayOf(now);
    const outcome = await db.transaction().execute(async (trx): Promise<MakeGoodOutcome> => {
      await lockOperatorGrants(trx, operator.id);
      const prior = await makeGoodByToken(trx, operator.id, m.formToken);
      if (prior) {
        await audit(trx, { operatorId: operator.id, action: 'make_good', target, outcome: 'replayed', detail: `make-good ${prior.id}` });
        return {
          id: prior.id,
          replayed: true,
          accountId: prior.account_id,
          segment: prior.segment,
          chips: prior.chips,
          hints: prior.hints,
          noAdsDays: prior.no_ads_days,
          balance: 0n,
          caps: capUses(deps.caps, await grantedBetween(trx, operator.id, from, to)),
        };
      }
      const account = await targetAccount(trx, m.accountId);
      if (!account || account.status === 'deleted') throw new DomainError('unknown_account', 'no such account (or it was deleted)');
      if (m.supportCase !== '') {
        const caseAccount = await supportCaseAccount(trx, m.supportCase);
        if (caseAccount === undefined) throw new DomainError('unknown_support_case', 'no such support case');
        if (caseAccount !== m.accountId) throw invalid('that support case is not this account’s');
      }
      const used = await grantedBetween(trx, operator.id, from, to);
      const over = capUses(deps.caps, used).find(
        (c) => c.used + (c.kind === 'chips' ? m.chips : c.kind === 'hints' ? m.hints : m.noAdsDays) > c.cap,
      );
      if (over)
        throw new DomainError(
          'make_good_cap_reached',
          `this grant would pass your daily ${over.kind} cap (${over.used} of ${over.cap} used today)`,
        );
      const id = await insertMakeGood(trx, { ...m, operatorId: operator.id, at: now });
      const posted = await postMakeGood(
        trx,
        {
          accountId: m.accountId,
          segment: m.segment,
          chips: m.chips,
          hints: m.hints,
          noAdsDays: m.noAdsDays,
          note: `make-good ${id}: ${m.reason}`,
        },
        now,
      );
      await audit(trx, {
        operatorId: operator.id,
        action: 'make_good',
        target,
        outcome: 'granted',
        detail: `make-good ${id} account ${m.accountId} ${m.segment}: ${m.chips} chips, ${m.hints} hints, ${m.noAdsDays} no-ads days; ${m.reason}`,
      });
      return {
        id,
        replayed: false,
        accountId: m.accountId,
        segment: m.segment,
        chips: m.chips,
        hints: m.hints,
        noAdsDays: m.noAdsDays,
        balance: posted.balance ?? 0n,
        caps: capUses(deps.caps, { chips: used.chips + m.chips, hints: used.hints + m.hints, noAdsDays: used.noAdsDays + m.noAdsDays }),
      };
    });
    deps.outcomes.inc({ outcome: outcome.replayed ? 'replayed' : 'granted' });
    return outcome;
  } catch (err: unknown) {
    deps.outcomes.inc({ outcome: 'refused' });
    await audit(db, { operatorId: operator.id, action: 'make_good', target, outcome: 'refused', detail: codeOf(err) });
    throw err;
  }
}
