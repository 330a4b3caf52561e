import type { Kysely } from 'kysely';
import { identitiesSection, profileSection, sessionsSection } from '../accounts/index.js';
import type { DB } from '../db/index.js';
import { supportCasesSection } from '../helpdesk/index.js';
import { ledgerSection, walletSection } from '../ledger/index.js';
import { ordersSection } from '../payments/index.js';
import { DomainError } from '../rpc/index.js';
import type { JsonValue } from '../support/index.js';
import { subscriptionsSection } from '../subscriptions/index.js';
import { accountRowExists } from './privacy.store.js';

/** One section of the export: one function of the module that owns the data, reading one account. */
export type ExportSection = (db: Kysely<DB>, accountId: bigint) => Promise<JsonValue>;

/**
 * The sections of a player's data export, in document order (docs/operating/privacy.md). A module
 * that starts keeping personal data adds its section here.
 */
export const EXPORT_SECTIONS: Readonly<Record<string, ExportSection>> = {
  profile: profileSection,
  identities: identitiesSection,
  sessions: sessionsSection,
  wallet: walletSection,
  orders: ordersSection,
  ledger: ledgerSection,
  support_cases: supportCasesSection,
  subscriptions: subscriptionsSection,
};

/** Version of the export document's shape; it grows only by new sections and fields. */
export const EXPORT_FORMAT = 1;

/**
 * A player's data export as one JSON document: `format`, `exported_at`, then each section of
 * EXPORT_SECTIONS read in one repeatable-read transaction (every section sees the same moment). An
 * unknown account is `unknown_account`.
 */
export async function exportAccount(db: Kysely<DB>, accountId: bigint, now: Date): Promise<string> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      if (!(await accountRowExists(trx, accountId))) throw new DomainError('unknown_account', 'no such account');
      const document: Record<string, JsonValue> = { format: EXPORT_FORMAT, exported_at: now.toISOString() };
      for (const [name, section] of Object.entries(EXPORT_SECTIONS)) document[name] = await section(trx, accountId);
      return JSON.stringify(document);
    });
}
