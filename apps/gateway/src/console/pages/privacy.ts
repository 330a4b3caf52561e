import type { Request, Response } from 'express';
import { createClient, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { exportAccountBody, readAccountExport } from '../../api/index.js';
import { html } from '../../http/index.js';
import { asOperator, consoleTransport, failureOf, type ConsoleClient } from '../backend.js';
import { confirmationPage, confirmToken, confirmValid } from '../confirm.js';
import { consoleHeaders, page, send, sendError } from '../layout.js';
import { paramId, type ConsoleOperator } from '../session.js';
import { findAccount, type Account } from './users.js';

/** The backend's PrivacyService as the console calls it (the operator's session on each call). */
export type PrivacyClient = Client<typeof backendApi.PrivacyService>;

/** A PrivacyService client over the console's backend connections. */
export function createPrivacyClient(urls: string | readonly string[], token: string): PrivacyClient {
  return createClient(backendApi.PrivacyService, consoleTransport(urls, token, 30_000));
}

const ACCOUNT_ID = /^[1-9]\d{0,18}$/;
const REASON_MAX = 500;

/** The reason an operator gave (the player's request, e.g. its ticket), trimmed; null when empty or too long. */
function reasonOf(value: unknown): string | null {
  const reason = typeof value === 'string' ? value.trim() : '';
  return reason.length === 0 || reason.length > REASON_MAX ? null : reason;
}

/** What the deletion's confirmation page shows and its token binds: the account as it is now and the reason. */
function shownOf(a: Account, reason: string): string[] {
  return ['account-delete', String(a.id), a.status, a.displayName, a.email, a.identities.join(','), reason];
}

/** The account the route names, or a 404 page (an unknown or malformed id). */
async function accountOf(client: ConsoleClient, req: Request, res: Response, operator: ConsoleOperator): Promise<Account | undefined> {
  const id = paramId(req);
  const account = ACCOUNT_ID.test(id) ? await findAccount(client, operator, BigInt(id)) : undefined;
  if (account === undefined) sendError(res, 404, 'Users', 'No such account.', operator);
  return account;
}

function sendConfirmation(res: Response, operator: ConsoleOperator, a: Account, reason: string, again: boolean): void {
  send(
    res,
    200,
    confirmationPage(operator, {
      title: 'Confirm account deletion',
      question: html`Delete account <strong id="account">${a.id}</strong> and erase its personal data? Its name, e-mail, password, sessions and platform identities are erased at once (a returning player is a new account), the bot is told to forget the user; its orders and ledger stay under the account id for accounting. This cannot be undone.`,
      ...(again
        ? {
            notice: html`<p class="error" id="again">The account changed or the form did not come from this page: check and confirm again.</p>`,
          }
        : {}),
      facts: [
        { name: 'action', label: 'Action', value: 'Delete account' },
        { name: 'name', label: 'Name', value: a.displayName },
        { name: 'email', label: 'E-mail', value: a.email },
        { name: 'identities', label: 'Identities', value: a.identities.join(', ') },
        { name: 'status', label: 'Status', value: a.status },
        { name: 'reason', label: 'Reason (kept in the audit)', value: reason },
      ],
      action: `/_gm/users/${a.id.toString()}/delete`,
      fields: { reason, confirm: confirmToken(operator.token, shownOf(a, reason)) },
      button: 'Delete account',
      back: { href: `/_gm/users/${a.id.toString()}`, label: 'Cancel and return to the account' },
      formId: 'delete-form',
    }),
  );
}

/**
 * GET /_gm/users/:id/delete?reason= (moderator): the confirmation page of a deletion on the
 * player's request; nothing is erased on the GET. A deleted account offers nothing (409).
 */
export function userDeleteConfirm(client: ConsoleClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const account = await accountOf(client, req, res, operator);
    if (account === undefined) return;
    if (account.status === 'deleted') {
      sendError(res, 409, 'Nothing to confirm', `Account ${account.id} is deleted already.`, operator);
      return;
    }
    const reason = reasonOf(req.query['reason']);
    if (reason === null) {
      sendError(res, 400, 'Delete account', `Give the player's request as the reason (1..${REASON_MAX} characters).`, operator);
      return;
    }
    sendConfirmation(res, operator, account, reason, false);
  };
}

/**
 * POST /_gm/users/:id/delete (moderator, CSRF): acts only with the `confirm` token of the
 * confirmation page for the account as it is now and the same reason; otherwise the page is shown
 * again and nothing is erased. The backend deletes the account and writes the audit row (the
 * operator, the account, the reason) in the deletion's transaction.
 */
export function userDeleteAction(client: ConsoleClient, privacy: PrivacyClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const account = await accountOf(client, req, res, operator);
    if (account === undefined) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const reason = reasonOf(body['reason']);
    if (reason === null) {
      sendError(res, 400, 'Delete account', `Give the player's request as the reason (1..${REASON_MAX} characters).`, operator);
      return;
    }
    if (account.status === 'deleted' || !confirmValid(operator.token, shownOf(account, reason), body['confirm'])) {
      if (account.status === 'deleted') sendError(res, 409, 'Nothing to confirm', `Account ${account.id} is deleted already.`, operator);
      else sendConfirmation(res, operator, account, reason, true);
      return;
    }
    try {
      const done = decodeTable(
        (
          await privacy.deleteAccountFor(
            { body: encodeTable((b) => fb.AccountDeletionFor.createAccountDeletionFor(b, account.id, b.createString(reason))) },
            asOperator(operator.token),
          )
        ).body,
        (bb) => fb.AccountDeletedFor.getRootAsAccountDeletedFor(bb),
        (t) => ({ sessions: t.sessionsRevoked(), identities: t.identitiesUnlinked() }),
      );
      send(
        res,
        200,
        page(
          'Account deleted',
          html`<p class="notice" id="outcome" data-outcome="deleted">Account <span id="account">${account.id}</span> is deleted: ${done.sessions} session(s) revoked, ${done.identities} platform identity(ies) unlinked, its personal data erased; the bot forgets the user when it next answers.</p>
<p><a href="/_gm/users/${account.id.toString()}">Return to the account</a></p>`,
          operator,
        ),
      );
    } catch (err: unknown) {
      const f = failureOf(err);
      if (f.status === 502) req.log.error({ err }, 'console account deletion failed');
      sendError(res, f.status, 'Deletion refused', f.message, operator);
    }
  };
}

/**
 * POST /_gm/users/:id/export (moderator, CSRF): downloads the player's data export, the same JSON
 * document as GET /api/v1/user/export, for a player who asked for it; the backend audits it.
 */
export function userExport(privacy: PrivacyClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const id = paramId(req);
    if (!ACCOUNT_ID.test(id)) {
      sendError(res, 404, 'Users', 'No such account.', operator);
      return;
    }
    try {
      const document = readAccountExport(
        (await privacy.exportAccountFor({ body: exportAccountBody(BigInt(id)) }, asOperator(operator.token))).body,
      );
      consoleHeaders(res);
      res.setHeader('content-disposition', `attachment; filename="account-${id}-export.json"`);
      res
        .status(200)
        .type('application/json')
        .send(JSON.stringify(document, null, 2));
    } catch (err: unknown) {
      const f = failureOf(err);
      if (f.status === 502) req.log.error({ err }, 'console account export failed');
      sendError(res, f.status, 'Export refused', f.message, operator);
    }
  };
}
