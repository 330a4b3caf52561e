import { randomInt } from 'node:crypto';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Kysely } from 'kysely';
import {
  backendApi,
  decodeTable,
  encodeTable,
  fb,
  isChargeIdShape,
  isSupportLanguage,
  STAR_CHARGES_DEFAULT,
  STAR_CHARGES_MAX,
  supportTextProblem,
} from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import type { KeyQuota } from '../limits/index.js';
import { DomainError } from '../rpc/index.js';
import type { Clock } from '../support/index.js';
import { accountOfIdentity, chargeOwner, chargesOf, insertCase, lockUserCases, openCasesOf, type ChargeRow } from './helpdesk.store.js';

/** What the bot intake's support methods work with. */
export interface SupportIntakeDeps {
  db: Kysely<DB>;
  logger: Logger;
  now: Clock;
  /** ListStarCharges per platform user (limits/). */
  chargesLimit: KeyQuota;
  /** OpenSupportCase per platform user (limits/). */
  openLimit: KeyQuota;
  /** SUPPORT_CASE_OPEN_CAP: open cases one platform user may have at once. */
  openCap: number;
}

/** The only platform the bot-link serves today. */
const PLATFORM = 'telegram';
const CODE_ALPHABET = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';

function invalid(message: string): never {
  throw new DomainError('invalid_support_case', message);
}

function checkCaller(platform: string, platformUserId: bigint): void {
  if (platform !== PLATFORM) invalid('platform must be telegram');
  if (platformUserId <= 0n) invalid('platform_user_id must be positive');
}

/** A fresh short case id, C- and six characters a user can read back (no I or O). */
function newCode(): string {
  let code = 'C-';
  for (let i = 0; i < 6; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** The ListStarCharges query as read and checked: limit 1..10 (0 means 5); any language but ru reads en (the contract's rule). */
export function readChargesQuery(q: { platform: string; platformUserId: bigint; limit: number; language: string }) {
  checkCaller(q.platform, q.platformUserId);
  if (q.limit < 0 || q.limit > STAR_CHARGES_MAX) invalid(`limit must be 0-${STAR_CHARGES_MAX}`);
  return {
    platformUserId: q.platformUserId,
    limit: q.limit === 0 ? STAR_CHARGES_DEFAULT : q.limit,
    language: q.language === 'ru' ? 'ru' : 'en',
  };
}

/** A case to open as read and checked: the text trimmed, the charge id's shape, the language en or ru ('' reads en). */
export function readOpening(o: { platform: string; platformUserId: bigint; chargeId: string; text: string; language: string }) {
  checkCaller(o.platform, o.platformUserId);
  if (o.chargeId !== '' && !isChargeIdShape(o.chargeId))
    invalid('platform_payment_charge_id must be 1-256 printable characters without spaces');
  const problem = supportTextProblem(o.text);
  if (problem !== null) invalid(problem);
  const language = o.language === '' ? 'en' : o.language;
  if (!isSupportLanguage(language)) invalid('language must be en or ru');
  return { platformUserId: o.platformUserId, chargeId: o.chargeId === '' ? null : o.chargeId, text: o.text.trim(), language };
}

/**
 * ListStarCharges: the platform user's recent stars charges from our records, newest first, under
 * the per-user limit (a refused call still counts).
 */
export async function listStarCharges(deps: SupportIntakeDeps, q: ReturnType<typeof readChargesQuery>): Promise<ChargeRow[]> {
  await deps.chargesLimit.take(`${PLATFORM}:${q.platformUserId}`);
  return chargesOf(deps.db, q.platformUserId, q.language, q.limit);
}

/**
 * OpenSupportCase, under the per-user limit: a named charge must be one of this user's own
 * (`invalid_support_case` otherwise, whoever's it is); at most `openCap` open cases per user
 * (`support_case_limit`), counted under a per-user lock so two openings racing cannot both pass.
 * The text is stored as given (trimmed); the case belongs to the account the identity maps to.
 * Answers the case's short id.
 */
export async function openSupportCase(deps: SupportIntakeDeps, o: ReturnType<typeof readOpening>): Promise<string> {
  await deps.openLimit.take(`${PLATFORM}:${o.platformUserId}`);
  let orderId: string | null = null;
  if (o.chargeId !== null) {
    const owner = await chargeOwner(deps.db, o.chargeId);
    if (owner === undefined || owner.platform_user_id !== o.platformUserId) invalid('the charge is not one of this user’s charges');
    orderId = owner.order_id;
  }
  const at = deps.now();
  const code = await deps.db.transaction().execute(async (trx) => {
    await lockUserCases(trx, PLATFORM, o.platformUserId);
    if ((await openCasesOf(trx, PLATFORM, o.platformUserId)) >= deps.openCap)
      throw new DomainError('support_case_limit', `at most ${deps.openCap} open support cases per user; wait for an answer`);
    const accountId = await accountOfIdentity(trx, PLATFORM, o.platformUserId.toString());
    for (;;) {
      const candidate = newCode();
      const id = await insertCase(trx, {
        code: candidate,
        platform: PLATFORM,
        platformUserId: o.platformUserId,
        accountId,
        platformChargeId: o.chargeId,
        orderId,
        language: o.language,
        text: o.text,
        at,
      });
      if (id !== null) return candidate;
    }
  });
  deps.logger.info({ caseId: code, withCharge: o.chargeId !== null }, 'support case opened');
  return code;
}

/** The BotIntakeService methods of the support desk, merged with the others in app.ts. */
export function supportIntakeMethods(
  deps: SupportIntakeDeps,
): Pick<ServiceImpl<typeof backendApi.BotIntakeService>, 'listStarCharges' | 'openSupportCase'> {
  return {
    async listStarCharges(req) {
      const q = readChargesQuery(
        decodeTable(
          req.body,
          (bb) => fb.StarChargesQuery.getRootAsStarChargesQuery(bb),
          (t) => ({ platform: t.platform() ?? '', platformUserId: t.platformUserId(), limit: t.limit(), language: t.language() ?? '' }),
        ),
      );
      const rows = await listStarCharges(deps, q);
      return {
        body: encodeTable((b) => {
          const charges = rows.map((r) =>
            fb.StarChargeRow.createStarChargeRow(
              b,
              b.createString(r.order_id),
              b.createString(r.platform_charge_id),
              b.createString(r.title),
              r.amount,
              BigInt(Math.floor(r.at.getTime() / 1000)),
              b.createString(r.state),
            ),
          );
          return fb.StarChargeList.createStarChargeList(b, fb.StarChargeList.createChargesVector(b, charges));
        }),
      };
    },
    async openSupportCase(req) {
      const o = readOpening(
        decodeTable(
          req.body,
          (bb) => fb.SupportCaseOpening.getRootAsSupportCaseOpening(bb),
          (t) => ({
            platform: t.platform() ?? '',
            platformUserId: t.platformUserId(),
            chargeId: t.platformPaymentChargeId() ?? '',
            text: t.text() ?? '',
            language: t.language() ?? '',
          }),
        ),
      );
      const code = await openSupportCase(deps, o);
      return { body: encodeTable((b) => fb.SupportCaseOpened.createSupportCaseOpened(b, b.createString(code))) };
    },
  };
}
