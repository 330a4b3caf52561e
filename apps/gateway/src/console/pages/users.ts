import type { Request, Response } from 'express';
import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { asOperator, failureOf, type ConsoleClient } from '../backend.js';
import { html, type SafeHtml } from '../../http/index.js';
import { csrfField, page, send, sendError } from '../layout.js';
import { paramId, type ConsoleOperator } from '../session.js';

/** An account as the console shows it (ConsoleService.FindAccounts). */
export interface Account {
  id: bigint;
  displayName: string;
  email: string;
  status: string;
  suspendedUntilUnix: bigint;
  chatMuted: boolean;
  chatEligible: boolean;
  identities: string[];
  balances: Balance[];
}

/** One wallet segment: chips and its origin's hints; below zero is a debt left by a full refund. */
interface Balance {
  segment: string;
  chips: bigint;
  hints: bigint;
}

function readAccount(a: InstanceType<typeof fb.AccountSummary> | null): Account {
  return {
    id: a?.accountId() ?? 0n,
    displayName: a?.displayName() ?? '',
    email: a?.email() ?? '',
    status: a?.status() ?? '',
    suspendedUntilUnix: a?.suspendedUntilUnix() ?? 0n,
    chatMuted: a?.chatMuted() ?? false,
    chatEligible: a?.chatEligible() ?? false,
    identities: Array.from(
      { length: a?.identitiesLength() ?? 0 },
      (_, i) => `${a?.identities(i)?.kind() ?? ''}:${a?.identities(i)?.externalId() ?? ''}`,
    ),
    balances: Array.from({ length: a?.balancesLength() ?? 0 }, (_, i) => {
      const b = a?.balances(i);
      return { segment: b?.segment() ?? '', chips: b?.chips() ?? 0n, hints: b?.hints() ?? 0n };
    }),
  };
}

/** "direct: -700 chips, -3 hints" per segment in debt; empty when none is. */
function debtText(a: Account): string {
  return a.balances
    .filter((b) => b.chips < 0n || b.hints < 0n)
    .map(
      (b) =>
        `${b.segment}: ${[b.chips < 0n ? `${b.chips} chips` : '', b.hints < 0n ? `${b.hints} hints` : ''].filter((x) => x !== '').join(', ')}`,
    )
    .join('; ');
}

function debtCell(a: Account, id = ''): SafeHtml {
  const text = debtText(a);
  return html`<td${id === '' ? '' : html` id="${id}"`}${text === '' ? '' : html` class="debt"`}>${text || 'none'}</td>`;
}

const amountCell = (value: bigint) => (value < 0n ? html`<td class="debt">${value} (debt)</td>` : html`<td>${value}</td>`);

function walletTable(a: Account): SafeHtml {
  if (a.balances.length === 0) return html`<p id="wallet-empty">No wallet yet.</p>`;
  return html`<table id="wallet"><tr><th>Segment</th><th>Chips</th><th>Hints</th></tr>
${a.balances.map((b) => html`<tr data-segment="${b.segment}"${b.chips < 0n || b.hints < 0n ? html` class="in-debt"` : ''}><td>${b.segment}</td>${amountCell(b.chips)}${amountCell(b.hints)}</tr>`)}</table>`;
}

async function find(client: ConsoleClient, operator: ConsoleOperator, query: string): Promise<Account[]> {
  const res = await client.findAccounts(
    { body: encodeTable((b) => fb.AccountSearch.createAccountSearch(b, b.createString(query))) },
    asOperator(operator.token),
  );
  return decodeTable(
    res.body,
    (bb) => fb.AccountList.getRootAsAccountList(bb),
    (t) => Array.from({ length: t.accountsLength() }, (_, i) => readAccount(t.accounts(i))),
  );
}

/** The account with this id (deleted or not), or undefined. */
export async function findAccount(client: ConsoleClient, operator: ConsoleOperator, id: bigint): Promise<Account | undefined> {
  return (await find(client, operator, id.toString())).find((a) => a.id === id);
}

const utc = (unix: bigint) => `${new Date(Number(unix) * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function statusText(a: Account): string {
  if (a.status === 'suspended') return a.suspendedUntilUnix > 0n ? `blocked until ${utc(a.suspendedUntilUnix)}` : 'blocked';
  return a.status;
}

function searchForm(q: string): SafeHtml {
  return html`<form method="get" action="/_gm/users" id="search"><label>Account id, e-mail or platform identity (e.g. telegram:123)
<input name="q" value="${q}" size="30"></label> <button type="submit">Find</button></form>`;
}

/** GET /_gm/users?q= (moderator): search by id, e-mail or platform identity. */
export function usersSearch(client: ConsoleClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const q = typeof req.query['q'] === 'string' ? req.query['q'].trim() : '';
    let results: SafeHtml = html``;
    if (q !== '') {
      try {
        const accounts = await find(client, operator, q);
        results =
          accounts.length === 0
            ? html`<p id="none">No account matches.</p>`
            : html`<table id="accounts"><tr><th>Id</th><th>Name</th><th>E-mail</th><th>Status</th><th>Chat</th><th>Identities</th><th>Debt</th></tr>
${accounts.map((a) => html`<tr><td><a href="/_gm/users/${a.id.toString()}">${a.id}</a></td><td>${a.displayName}</td><td>${a.email}</td><td>${statusText(a)}</td><td>${a.chatEligible ? 'may write' : 'cannot write'}</td><td>${a.identities.join(', ')}</td>${debtCell(a)}</tr>`)}</table>`;
      } catch (err: unknown) {
        const f = failureOf(err);
        if (f.errorCode !== 'invalid_query') throw err;
        results = html`<p class="error" id="error">${f.message}</p>`;
      }
    }
    send(res, 200, page('Users', html`${searchForm(q)}${results}`, operator));
  };
}

function detail(operator: ConsoleOperator, a: Account, notice: SafeHtml | string = ''): SafeHtml {
  const action = (name: string, label: string, extra: SafeHtml | string = '') =>
    html`<form method="post" action="/_gm/users/${a.id.toString()}/moderate" class="action">${csrfField(operator)}<input type="hidden" name="action" value="${name}">${extra}<button type="submit" id="${name}">${label}</button></form>`;
  return page(
    `Account ${a.id.toString()}`,
    html`${notice}${searchForm('')}
<table id="account"><tr><th>Name</th><td>${a.displayName}</td></tr><tr><th>E-mail</th><td>${a.email}</td></tr>
<tr><th>Status</th><td id="status">${statusText(a)}</td></tr><tr><th>Chat muted</th><td id="muted">${a.chatMuted ? 'yes' : 'no'}</td></tr>
<tr><th>Chat</th><td id="eligible">${a.chatEligible ? 'may write' : 'cannot write'}</td></tr><tr><th>Identities</th><td>${a.identities.join(', ')}</td></tr>
<tr><th>Debt</th>${debtCell(a, 'debt')}</tr></table>
<h2>Wallet</h2>
<p>A negative amount is a debt: a full refund revoked chips or hints already spent. Nothing is spent from it; credits pay it off.</p>
${walletTable(a)}
${operator.roles.includes('granter') ? html`<p><a id="make-good" href="/_gm/grant?account=${a.id.toString()}">Grant a make-good</a> (chips, hints or no-ads days with a reason; chips into a segment in debt pay it off)</p>` : ''}
<h2>Moderation</h2>
${action('block', 'Block')}${action('temp_block', 'Block until', html`<label>End (UTC) <input type="datetime-local" name="until" required></label> `)}${action('unblock', 'Unblock')}
${action('mute', 'Mute in chat')}${action('unmute', 'Unmute in chat')}
<h2>Player's data</h2>
<p>On the player's request: download everything kept about the account, or delete it (its personal data is erased; orders and ledger stay under the account id). Both are audited.</p>
<form method="post" action="/_gm/users/${a.id.toString()}/export" class="action">${csrfField(operator)}<button type="submit" id="export">Export data</button></form>
${
  a.status === 'deleted'
    ? html`<p id="deleted">This account is deleted.</p>`
    : html`<form method="get" action="/_gm/users/${a.id.toString()}/delete" class="action" id="delete-start"><label>Reason (the player's request) <input name="reason" required maxlength="500" size="40"></label> <button type="submit" id="delete">Delete account</button></form>`
}`,
    operator,
  );
}

/** GET /_gm/users/:id (moderator): one account with its moderation actions. */
export function userDetail(client: ConsoleClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const id = paramId(req);
    const account = /^[1-9]\d{0,18}$/.test(id) ? await findAccount(client, operator, BigInt(id)) : undefined;
    if (!account) {
      sendError(res, 404, 'Users', 'No such account.', operator);
      return;
    }
    send(res, 200, detail(operator, account));
  };
}

/** A datetime-local value (YYYY-MM-DDTHH:MM, read as UTC) in unix seconds; 0n when absent or malformed. */
function untilUnix(value: unknown): bigint {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return 0n;
  const ms = Date.parse(`${value}Z`);
  return Number.isNaN(ms) ? 0n : BigInt(Math.floor(ms / 1000));
}

/**
 * POST /_gm/users/:id/moderate (moderator, CSRF): block, temporary block (end in UTC), unblock,
 * mute or unmute through the backend, which pushes the new chat eligibility to the bot; the page
 * shows the account and what the chat gate commands became.
 */
export function userModerate(client: ConsoleClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const id = paramId(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const action = typeof body['action'] === 'string' ? body['action'] : '';
    if (!/^[1-9]\d{0,18}$/.test(id)) {
      sendError(res, 404, 'Users', 'No such account.', operator);
      return;
    }
    try {
      const r = await client.moderate(
        {
          body: encodeTable((b) =>
            fb.ModerationAction.createModerationAction(b, BigInt(id), b.createString(action), untilUnix(body['until']), b.createString('')),
          ),
        },
        asOperator(operator.token),
      );
      const { account, gate } = decodeTable(
        r.body,
        (bb) => fb.ModerationResult.getRootAsModerationResult(bb),
        (t) => ({
          account: readAccount(t.account()),
          gate: Array.from({ length: t.chatGateLength() }, (_, i) => t.chatGate(i) ?? ''),
        }),
      );
      const notice = html`<p class="notice" id="done" data-action="${action}">Done: ${action}. Chat gate: ${gate.length === 0 ? 'no telegram identity' : gate.join(', ')}.</p>`;
      send(res, 200, detail(operator, account, notice));
    } catch (err: unknown) {
      const f = failureOf(err);
      if (f.status === 502) req.log.error({ err }, 'console moderation failed');
      sendError(res, f.status, 'Moderation refused', f.message, operator);
    }
  };
}
