import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { createClient, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { html, type SafeHtml } from '../../http/index.js';
import { asOperator, consoleTransport, failureOf } from '../backend.js';
import { csrfField, page, send, sendError } from '../layout.js';
import type { ConsoleOperator } from '../session.js';

/** The backend's MakeGoodService (the make-good page). */
export type MakeGoodClient = Client<typeof backendApi.MakeGoodService>;

/** A MakeGoodService client over the console's backend connections. */
export function createMakeGoodClient(urls: string | readonly string[], token: string): MakeGoodClient {
  return createClient(backendApi.MakeGoodService, consoleTransport(urls, token, 15_000));
}

const ACCOUNT_ID = /^[1-9]\d{0,18}$/;
const CASE_ID = /^C-[0-9A-Z]{6}$/;
const SEGMENTS = ['direct', 'telegram', 'vk'] as const;
const CAP_LABEL: Record<string, string> = { chips: 'Chips', hints: 'Hints', no_ads_days: 'No-ads days' };

interface Cap {
  kind: string;
  cap: bigint;
  used: bigint;
}

interface Target {
  accountId: bigint;
  name: string;
  status: string;
  segments: Array<{ segment: string; chips: bigint; hints: bigint; noAdsUntilUnix: bigint }>;
  caps: Cap[];
}

/** What the form was filled with (kept when a grant is refused, so the operator corrects it). */
interface FormValues {
  segment: string;
  chips: string;
  hints: string;
  noAdsDays: string;
  reason: string;
  supportCase: string;
  formToken: string;
}

const readCaps = (n: number, at: (i: number) => InstanceType<typeof fb.MakeGoodCap> | null): Cap[] =>
  Array.from({ length: n }, (_, i) => ({ kind: at(i)?.kind() ?? '', cap: at(i)?.cap() ?? 0n, used: at(i)?.used() ?? 0n }));

async function fetchTarget(client: MakeGoodClient, operator: ConsoleOperator, accountId: bigint): Promise<Target> {
  const res = await client.getMakeGoodTarget(
    { body: encodeTable((b) => fb.MakeGoodTargetQuery.createMakeGoodTargetQuery(b, accountId)) },
    asOperator(operator.token),
  );
  return decodeTable(
    res.body,
    (bb) => fb.MakeGoodTarget.getRootAsMakeGoodTarget(bb),
    (t) => ({
      accountId: t.accountId(),
      name: t.displayName() ?? '',
      status: t.status() ?? '',
      segments: Array.from({ length: t.segmentsLength() }, (_, i) => ({
        segment: t.segments(i)?.segment() ?? '',
        chips: t.segments(i)?.chips() ?? 0n,
        hints: t.segments(i)?.hints() ?? 0n,
        noAdsUntilUnix: t.segments(i)?.noAdsUntilUnix() ?? 0n,
      })),
      caps: readCaps(t.capsLength(), (i) => t.caps(i)),
    }),
  );
}

const utc = (unix: bigint) => `${new Date(Number(unix) * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const cell = (v: bigint) => (v < 0n ? html`<td class="debt">${v} (debt)</td>` : html`<td>${v}</td>`);
const newToken = () => randomBytes(18).toString('base64url');

function capsTable(caps: readonly Cap[]): SafeHtml {
  return html`<table id="caps"><tr><th>Your daily cap (UTC day)</th><th>Used today</th><th>Left</th></tr>
${caps.map((c) => html`<tr data-cap="${c.kind}"><td>${CAP_LABEL[c.kind] ?? c.kind}: ${c.cap}</td><td>${c.used}</td><td class="left">${c.cap > c.used ? c.cap - c.used : 0n}</td></tr>`)}</table>`;
}

function formPage(operator: ConsoleOperator, t: Target, v: FormValues, notice: SafeHtml | string = ''): SafeHtml {
  const inDebt = t.segments.find((s) => s.chips < 0n || s.hints < 0n)?.segment;
  const chosen = v.segment || inDebt || 'direct';
  const wallet =
    t.segments.length === 0
      ? html`<p id="wallet-empty">No wallet yet.</p>`
      : html`<table id="wallet"><tr><th>Segment</th><th>Chips</th><th>Hints</th><th>No ads until</th></tr>
${t.segments.map((s) => html`<tr data-segment="${s.segment}"${s.chips < 0n || s.hints < 0n ? html` class="in-debt"` : ''}><td>${s.segment}</td>${cell(s.chips)}${cell(s.hints)}<td>${s.noAdsUntilUnix === 0n ? '' : utc(s.noAdsUntilUnix)}</td></tr>`)}</table>`;
  return page(
    `Make-good for account ${t.accountId.toString()}`,
    html`${notice}<table id="account"><tr><th>Name</th><td>${t.name}</td></tr><tr><th>Status</th><td>${t.status}</td></tr>${v.supportCase === '' ? '' : html`<tr><th>Support case</th><td id="case"><a href="/_gm/support/${v.supportCase}">${v.supportCase}</a></td></tr>`}</table>
<h2>Wallet</h2>${wallet}
<h2>Grant</h2>
<p>Chips go to the segment you pick, hints and no-ads days to the same origin. Pick the segment the make-good is for (the order's, or the one in debt): the store rules stay as they are, so chips in a host's segment are spent only inside that host or on the web. Chips granted into a segment in debt pay the debt off first. The player's history shows "Granted by support", not your reason; the reason stays in the audit and the ledger note.</p>
${capsTable(t.caps)}
<form method="post" action="/_gm/grant" id="grant-form">${csrfField(operator)}<input type="hidden" name="account" value="${t.accountId.toString()}"><input type="hidden" name="case" value="${v.supportCase}"><input type="hidden" name="form_token" value="${v.formToken}">
<label>Segment <select name="segment">${SEGMENTS.map((s) => html`<option value="${s}"${s === chosen ? ' selected' : ''}>${s}</option>`)}</select></label><br>
<label>Chips <input type="number" name="chips" min="0" step="1" value="${v.chips}"></label>
<label>Hints <input type="number" name="hints" min="0" step="1" value="${v.hints}"></label>
<label>No-ads days <input type="number" name="no_ads_days" min="0" step="1" value="${v.noAdsDays}"></label><br>
<label>Reason (required; kept in the audit) <input name="reason" required maxlength="500" size="60" value="${v.reason}"></label><br>
<button type="submit" id="grant">Grant</button></form>`,
    operator,
  );
}

function accountForm(operator: ConsoleOperator): SafeHtml {
  return page(
    'Make-good',
    html`<form method="get" action="/_gm/grant" id="grant-start"><label>Account id <input name="account" required size="20" pattern="[1-9][0-9]*"></label> <button type="submit">Open the grant form</button></form>`,
    operator,
  );
}

const one = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const blank = (supportCase: string): FormValues => ({
  segment: '',
  chips: '0',
  hints: '0',
  noAdsDays: '0',
  reason: '',
  supportCase,
  formToken: newToken(),
});

/**
 * GET /_gm/grant?account=&case= (granter): without an account, asks for one; with one, the grant
 * form — the account's wallet (debts shown), the operator's caps left today, segment, chips, hints,
 * no-ads days, a mandatory reason and a one-time form token (a second submit grants nothing more).
 * `case` links the grant to the support case it settles.
 */
export function grantForm(client: MakeGoodClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const account = one(req.query['account']);
    const supportCase = one(req.query['case']);
    if (account === '') {
      send(res, 200, accountForm(operator));
      return;
    }
    if (!ACCOUNT_ID.test(account) || (supportCase !== '' && !CASE_ID.test(supportCase))) {
      sendError(res, 400, 'Make-good', 'The account is a positive id and a support case is named like C-7K3Q9X.', operator);
      return;
    }
    try {
      send(res, 200, formPage(operator, await fetchTarget(client, operator, BigInt(account)), blank(supportCase)));
    } catch (err: unknown) {
      const f = failureOf(err);
      if (f.status === 502) req.log.error({ err }, 'console make-good form failed');
      sendError(res, f.status, 'Make-good', f.message, operator);
    }
  };
}

/** A whole non-negative amount as typed ('' is 0); null when it is not one. */
function amountOf(v: string): bigint | null {
  if (v === '') return 0n;
  return /^\d{1,10}$/.test(v) ? BigInt(v) : null;
}

/**
 * POST /_gm/grant (granter, CSRF): grants through the backend, which checks the role, the input,
 * the account, the case and the operator's daily caps in one transaction and grants once per form
 * token. Shows the outcome (granted, or already granted by this same form) or the refusal with
 * the form as filled.
 */
export function grantAction(client: MakeGoodClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const account = one(body['account']);
    const v: FormValues = {
      segment: one(body['segment']),
      chips: one(body['chips']),
      hints: one(body['hints']),
      noAdsDays: one(body['no_ads_days']),
      reason: typeof body['reason'] === 'string' ? body['reason'] : '',
      supportCase: one(body['case']),
      formToken: one(body['form_token']),
    };
    if (!ACCOUNT_ID.test(account)) {
      sendError(res, 400, 'Make-good', 'No such account.', operator);
      return;
    }
    const accountId = BigInt(account);
    const [chips, hints, noAdsDays] = [amountOf(v.chips), amountOf(v.hints), amountOf(v.noAdsDays)];
    const refusedPage = async (status: number, code: string, message: string) => {
      const notice = html`<p class="error" id="outcome" data-outcome="refused" data-code="${code}">Nothing was granted: ${message}.</p>`;
      try {
        send(res, status, formPage(operator, await fetchTarget(client, operator, accountId), v, notice));
      } catch {
        sendError(res, status, 'Make-good refused', `Nothing was granted: ${message}.`, operator);
      }
    };
    if (chips === null || hints === null || noAdsDays === null) {
      await refusedPage(400, 'invalid_make_good', 'amounts are whole numbers from 0');
      return;
    }
    try {
      const r = await client.grantMakeGood(
        {
          body: encodeTable((b) =>
            fb.MakeGoodRequest.createMakeGoodRequest(
              b,
              accountId,
              b.createString(v.segment),
              chips,
              hints,
              noAdsDays,
              b.createString(v.reason),
              b.createString(v.supportCase),
              b.createString(v.formToken),
            ),
          ),
        },
        asOperator(operator.token),
      );
      const g = decodeTable(
        r.body,
        (bb) => fb.MakeGoodResult.getRootAsMakeGoodResult(bb),
        (t) => ({
          id: t.makeGoodId(),
          replayed: t.replayed(),
          segment: t.segment() ?? '',
          chips: t.chips(),
          hints: t.hints(),
          noAdsDays: t.noAdsDays(),
          balance: t.balance(),
          caps: readCaps(t.capsLength(), (i) => t.caps(i)),
        }),
      );
      const what = [
        g.chips > 0n ? `${g.chips} chips` : '',
        g.hints > 0n ? `${g.hints} hints` : '',
        g.noAdsDays > 0n ? `${g.noAdsDays} no-ads days` : '',
      ]
        .filter((x) => x !== '')
        .join(', ');
      const links = html`<p><a id="again" href="/_gm/grant?${new URLSearchParams({ account, ...(v.supportCase ? { case: v.supportCase } : {}) }).toString()}">Back to the grant form</a>${v.supportCase ? html` · <a id="case" href="/_gm/support/${v.supportCase}">Support case ${v.supportCase}</a>` : ''}${operator.roles.includes('moderator') ? html` · <a href="/_gm/users/${account}">Account ${account}</a>` : ''}</p>`;
      const outcome = g.replayed
        ? html`<p class="notice" id="outcome" data-outcome="replayed" data-make-good="${g.id.toString()}">This form was submitted already: make-good ${g.id} granted ${what} to ${g.segment}. Nothing more was granted.</p>`
        : html`<p class="notice" id="outcome" data-outcome="granted" data-make-good="${g.id.toString()}">Granted ${what} to ${g.segment} of account ${account} (make-good ${g.id}).${g.chips > 0n ? html` The segment now holds <span id="balance">${g.balance}</span> chips${g.balance < 0n ? ' (still in debt)' : ''}.` : ''}</p>`;
      send(
        res,
        200,
        page(g.replayed ? 'Make-good already granted' : 'Make-good granted', html`${outcome}${capsTable(g.caps)}${links}`, operator),
      );
    } catch (err: unknown) {
      const f = failureOf(err);
      if (f.status === 502) {
        req.log.error({ err }, 'console make-good failed');
        sendError(res, 502, 'Make-good', f.message, operator);
        return;
      }
      if (f.errorCode === 'operator_forbidden' || f.errorCode === 'operator_session_invalid' || f.errorCode === 'unknown_account') {
        sendError(res, f.status, 'Make-good refused', f.message, operator);
        return;
      }
      await refusedPage(f.status, f.errorCode, f.message);
    }
  };
}
