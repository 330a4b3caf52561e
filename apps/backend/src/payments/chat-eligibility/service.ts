import type { Kysely } from 'kysely';
import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import type { DB } from '../../db/index.js';
import { isChatEligible } from '../../accounts/index.js';
import { DomainError } from '../../rpc/index.js';
import type { Clock } from '../../support/index.js';
import { identityChatStanding } from './chat-eligibility.store.js';

/** Chat eligibility of a platform identity: registered = maps to an account; eligible = may write. */
export async function chatEligibility(
  db: Kysely<DB>,
  platform: string | null,
  externalId: string | null,
  now: Date,
): Promise<{ registered: boolean; eligible: boolean }> {
  if (platform !== 'telegram' && platform !== 'vk') throw new DomainError('invalid_platform', 'platform must be telegram or vk');
  if (externalId === null || externalId.length === 0 || externalId.length > 64)
    throw new DomainError('invalid_external_id', 'external_id must be 1-64 characters');
  const account = await identityChatStanding(db, platform, externalId);
  if (!account) return { registered: false, eligible: false };
  return { registered: true, eligible: isChatEligible(account, now) };
}

/**
 * backend.v1.BotIntakeService's ResolveChatEligibility. The service's other two methods,
 * ValidatePreCheckout and ForwardPayment, belong to the stars rail (payments/stars/intake.ts); app.ts
 * registers this method and those two as one service.
 */
export function chatEligibilityMethods(
  db: Kysely<DB>,
  clock: Clock,
): Pick<ServiceImpl<typeof backendApi.BotIntakeService>, 'resolveChatEligibility'> {
  return {
    async resolveChatEligibility(req) {
      const query = decodeTable(
        req.body,
        (bb) => fb.ChatEligibilityQuery.getRootAsChatEligibilityQuery(bb),
        (t) => ({
          platform: t.platform(),
          externalId: t.externalId(),
        }),
      );
      const verdict = await chatEligibility(db, query.platform, query.externalId, clock());
      return { body: encodeTable((b) => fb.ChatEligibility.createChatEligibility(b, verdict.registered, verdict.eligible)) };
    },
  };
}
