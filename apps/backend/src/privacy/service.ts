import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { clientAddressOf, type Quota } from '../limits/index.js';
import { audit } from '../operator-audit/index.js';
import { requireRole } from '../operators/index.js';
import { callerFrom, DomainError } from '../rpc/index.js';
import { deleteAccount, type DeletionDeps } from './delete-account.js';
import { exportAccount } from './export.js';

/** Longest reason an operator gives for a deletion (kept in the audit). */
const REASON_MAX = 500;

function exportBody(accountId: bigint, document: string): Uint8Array {
  return encodeTable((b) => fb.AccountExport.createAccountExport(b, accountId, b.createString(document)));
}

/**
 * backend.v1.PrivacyService: the player's own export (any session of the account; the
 * `dataExport` quota per account and client address) and, for a moderator acting on a player's
 * request, the export and the deletion of one account, each written to the operator audit (the
 * deletion in its own transaction).
 */
export function privacyService(deps: DeletionDeps, exportQuota: Quota): ServiceImpl<typeof backendApi.PrivacyService> {
  return {
    async exportAccount(req, ctx) {
      const caller = callerFrom(ctx.requestHeader);
      decodeTable(
        req.body,
        (bb) => fb.AccountExportQuery.getRootAsAccountExportQuery(bb),
        () => undefined,
      );
      await exportQuota.take(caller.accountId, clientAddressOf(ctx.requestHeader));
      const document = await exportAccount(deps.db, caller.accountId, deps.now());
      deps.logger.info({ accountId: String(caller.accountId), bytes: document.length }, 'data export');
      return { body: exportBody(caller.accountId, document) };
    },
    async exportAccountFor(req, ctx) {
      const operator = await requireRole(deps.db, ctx.requestHeader, 'moderator', 'account_export', deps.now());
      const accountId = decodeTable(
        req.body,
        (bb) => fb.AccountExportFor.getRootAsAccountExportFor(bb),
        (t) => t.accountId(),
      );
      const target = `account:${accountId}`;
      try {
        const document = await exportAccount(deps.db, accountId, deps.now());
        await audit(deps.db, { operatorId: operator.id, action: 'account_export', target, outcome: 'ok' });
        return { body: exportBody(accountId, document) };
      } catch (err) {
        if (err instanceof DomainError)
          await audit(deps.db, { operatorId: operator.id, action: 'account_export', target, outcome: err.code });
        throw err;
      }
    },
    async deleteAccountFor(req, ctx) {
      const operator = await requireRole(deps.db, ctx.requestHeader, 'moderator', 'account_delete', deps.now());
      const input = decodeTable(
        req.body,
        (bb) => fb.AccountDeletionFor.getRootAsAccountDeletionFor(bb),
        (t) => ({ accountId: t.accountId(), reason: (t.reason() ?? '').trim() }),
      );
      if (input.reason.length === 0 || input.reason.length > REASON_MAX)
        throw new DomainError('invalid_reason', `give the player's request as the reason (1..${REASON_MAX} characters)`);
      const target = `account:${input.accountId}`;
      try {
        const done = await deleteAccount(deps, input.accountId, { kind: 'operator', operatorId: operator.id, reason: input.reason });
        return {
          body: encodeTable((b) =>
            fb.AccountDeletedFor.createAccountDeletedFor(b, input.accountId, done.sessionsRevoked, done.identities.length),
          ),
        };
      } catch (err) {
        if (err instanceof DomainError)
          await audit(deps.db, { operatorId: operator.id, action: 'account_delete', target, outcome: err.code, detail: input.reason });
        throw err;
      }
    },
  };
}
