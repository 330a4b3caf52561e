import type { Kysely } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import { lockAccountStatus, type ModerationUpdate, updateModeration } from '../accounts/index.js';
import { audit } from '../operator-audit/index.js';
import { DomainError } from '../rpc/index.js';
import type { CommandOutcome } from '../botcommands/index.js';
import { accountSummary, type AccountSummary } from './accounts.js';
import type { ChatGate } from '../botcommands/index.js';
import type { Clock } from '../support/index.js';

export type ModerationKind = 'block' | 'temp_block' | 'unblock' | 'mute' | 'unmute';
const KINDS: readonly ModerationKind[] = ['block', 'temp_block', 'unblock', 'mute', 'unmute'];
/** Longest temporary block. */
const MAX_TEMP_BLOCK_MS = 3_650 * 86_400_000;

/** One ChatGateCommand sent: to whom, what, and what became of it. */
export interface GateSent {
  externalId: string;
  allow: boolean;
  outcome: CommandOutcome['status'];
}

export interface ModerationDeps {
  db: Kysely<DB>;
  logger: Logger;
  chatGate: ChatGate;
  /** The backend clock (block terms). */
  now: Clock;
}

/**
 * Sends the account's current chat eligibility as a ChatGateCommand to each of its telegram
 * identities (the bot's platform), after the change is committed. Best-effort, at most once.
 */
export async function pushChatGate(deps: ModerationDeps, account: AccountSummary, reason: string): Promise<GateSent[]> {
  const sent: GateSent[] = [];
  for (const identity of account.identities.filter((i) => i.kind === 'telegram')) {
    const outcome = await deps.chatGate.send(identity.externalId, account.chatEligible);
    sent.push({ externalId: identity.externalId, allow: account.chatEligible, outcome: outcome.status });
    deps.logger.info(
      { accountId: String(account.id), allow: account.chatEligible, outcome: outcome.status, reason },
      'chat gate command sent',
    );
  }
  return sent;
}

/**
 * Applies one moderation action in a transaction (account row locked, audit row written with it),
 * then, because each of these may alter chat eligibility, pushes the new eligibility to the bot.
 * A deleted account cannot be moderated; a temporary block needs an end in the future.
 */
export async function moderate(
  deps: ModerationDeps,
  operatorId: bigint,
  input: { accountId: bigint; action: string | null; untilUnix: bigint; reason: string | null },
  now: Date = deps.now(),
): Promise<{ account: AccountSummary; sent: GateSent[] }> {
  const action = input.action as ModerationKind;
  if (!KINDS.includes(action)) throw new DomainError('invalid_action', 'unknown moderation action');
  let until: Date | null = null;
  if (action === 'temp_block') {
    const ms = Number(input.untilUnix) * 1000;
    if (input.untilUnix <= 0n || ms <= now.getTime() || ms > now.getTime() + MAX_TEMP_BLOCK_MS)
      throw new DomainError('invalid_until', 'a temporary block needs an end in the future (at most 10 years)');
    until = new Date(ms);
  }
  const reason = (input.reason ?? '').slice(0, 200);
  const account = await deps.db.transaction().execute(async (trx) => {
    const row = await lockAccountStatus(trx, input.accountId);
    if (!row) throw new DomainError('unknown_account', 'no such account');
    if (row.status === 'deleted') throw new DomainError('invalid_action', 'a deleted account cannot be moderated');
    const update: ModerationUpdate =
      action === 'block'
        ? { status: 'suspended' as const, suspended_until: null }
        : action === 'temp_block'
          ? { status: 'suspended' as const, suspended_until: until }
          : action === 'unblock'
            ? { status: 'active' as const, suspended_until: null }
            : { chat_muted: action === 'mute' };
    await updateModeration(trx, row.id, update);
    await audit(trx, {
      operatorId,
      action,
      target: `account:${row.id}`,
      outcome: 'ok',
      detail: [until ? `until ${until.toISOString()}` : '', reason].filter(Boolean).join('; '),
    });
    return accountSummary(trx, row.id, now);
  });
  return { account, sent: await pushChatGate(deps, account, action) };
}
