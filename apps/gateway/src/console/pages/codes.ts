import type { Request, Response } from 'express';
import { createClient, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { asOperator, consoleTransport, failureOf } from '../backend.js';
import { html, type SafeHtml } from '../../http/index.js';
import { csrfField, page, send, sendError } from '../layout.js';
import { paramId, type ConsoleOperator } from '../session.js';

/** The backend's PromoService (promo codes). */
export type PromoClient = Client<typeof backendApi.PromoService>;

/** A PromoService client over the console's backend connections. */
export function createPromoClient(urls: string | readonly string[], token: string): PromoClient {
  return createClient(backendApi.PromoService, consoleTransport(urls, token, 15_000));
}

const HOSTS = ['web', 'telegram', 'vk'] as const;
const WHOLE = /^\d{1,10}$/;
const ID = /^[1-9]\d{0,18}$/;

interface CodeSummary {
  id: bigint;
  prefix: string;
  label: string;
  chips: bigint;
  hints: bigint;
  noAdsDays: bigint;
  max: number;
  redeemed: number;
  reversed: number;
  fromUnix: bigint;
  untilUnix: bigint;
  hosts: string[];
  createdBy: string;
  createdUnix: bigint;
}

function readSummary(c: InstanceType<typeof fb.CodeSummary> | null): CodeSummary {
  return {
    id: c?.id() ?? 0n,
    prefix: c?.prefix() ?? '',
    label: c?.label() ?? '',
    chips: c?.chips() ?? 0n,
    hints: c?.hints() ?? 0n,
    noAdsDays: c?.noAdsDays() ?? 0n,
    max: c?.maxRedemptions() ?? 0,
    redeemed: c?.redeemed() ?? 0,
    reversed: c?.reversed() ?? 0,
    fromUnix: c?.validFromUnix() ?? 0n,
    untilUnix: c?.validUntilUnix() ?? 0n,
    hosts: Array.from({ length: c?.hostsLength() ?? 0 }, (_, i) => c?.hosts(i) ?? ''),
    createdBy: c?.createdByLogin() ?? '',
    createdUnix: c?.createdUnix() ?? 0n,
  };
}

const utc = (unix: bigint) => (unix === 0n ? '' : `${new Date(Number(unix) * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`);

/** What a code grants, in words. */
function grantText(c: { chips: bigint; hints: bigint; noAdsDays: bigint }): string {
  return [c.chips > 0n && `${c.chips} chips`, c.hints > 0n && `${c.hints} hints`, c.noAdsDays > 0n && `${c.noAdsDays} no-ads days`]
    .filter((s): s is string => typeof s === 'string')
    .join(', ');
}

/** GET /_gm/codes (viewer): every code with its usage, and redemptions per day over 30 days. */
export function codesList(client: PromoClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const answer = await client.listCodes(
      { body: encodeTable((b) => fb.CodeListQuery.createCodeListQuery(b, 30)) },
      asOperator(operator.token),
    );
    const { codes, days } = decodeTable(
      answer.body,
      (bb) => fb.CodeList.getRootAsCodeList(bb),
      (t) => ({
        codes: Array.from({ length: t.codesLength() }, (_, i) => readSummary(t.codes(i))),
        days: Array.from({ length: t.daysLength() }, (_, i) => {
          const d = t.days(i);
          return { day: d?.day() ?? '', redemptions: d?.redemptions() ?? 0n, reversals: d?.reversals() ?? 0n, chips: d?.chips() ?? 0n };
        }),
      }),
    );
    const create = operator.roles.includes('catalog_editor') ? html`<p><a id="new-code" href="/_gm/codes/new">New code</a></p>` : '';
    const list =
      codes.length === 0
        ? html`<p id="none">No codes yet.</p>`
        : html`<table id="codes" class="fit"><tr><th>Code</th><th>Label</th><th>Grants</th><th>Used</th><th>Reversed</th><th>Valid</th><th>Hosts</th><th>Created</th></tr>
${codes.map(
  (c) =>
    html`<tr data-code="${c.id.toString()}"><td><a href="/_gm/codes/${c.id.toString()}">${c.prefix}…</a></td><td>${c.label}</td><td>${grantText(c)}</td><td class="num used">${c.redeemed} / ${c.max}</td><td class="num">${c.reversed}</td><td>${utc(c.fromUnix)} – ${utc(c.untilUnix)}</td><td>${c.hosts.join(', ')}</td><td>${utc(c.createdUnix)} ${c.createdBy}</td></tr>`,
)}</table>`;
    const perDay =
      days.length === 0
        ? html`<p id="no-days">No redemptions in the last 30 days.</p>`
        : html`<table id="days"><tr><th>Day (UTC)</th><th>Redemptions</th><th>Reversals</th><th>Chips granted</th></tr>
${days.map((d) => html`<tr data-day="${d.day}"><td>${d.day}</td><td class="num">${d.redemptions}</td><td class="num">${d.reversals}</td><td class="num">${d.chips}</td></tr>`)}</table>`;
    send(res, 200, page('Promo codes', html`${create}${list}<h2>Redemptions per day (last 30 days)</h2>${perDay}`, operator));
  };
}

interface Draft {
  code: string;
  label: string;
  chips: string;
  hints: string;
  noAdsDays: string;
  max: string;
  from: string;
  until: string;
  hosts: string[];
}

function form(operator: ConsoleOperator, d: Draft, error = ''): SafeHtml {
  const checked = (h: string) => (d.hosts.includes(h) ? html` checked` : '');
  return html`${error ? html`<p class="error" id="error">${error}</p>` : ''}
<form method="post" action="/_gm/codes" id="code-form">${csrfField(operator)}
<fieldset><legend>Code</legend><label>Code (leave empty to generate 16 characters; typed: 8–32 letters and digits)<br><input name="code" value="${d.code}" maxlength="64" autocomplete="off"></label>
<label>Label (console only)<br><input name="label" value="${d.label}" maxlength="64"></label></fieldset>
<fieldset><legend>Grants</legend><label>Chips <input name="chips" value="${d.chips}" inputmode="numeric"></label>
<label>Hints <input name="hints" value="${d.hints}" inputmode="numeric"></label>
<label>No-ads days <input name="no_ads_days" value="${d.noAdsDays}" inputmode="numeric"></label></fieldset>
<fieldset><legend>Limits</legend><label>Redemptions in total <input name="max_redemptions" value="${d.max}" inputmode="numeric" required></label> (at most one per player)
<br><label>Valid from (UTC) <input type="datetime-local" name="valid_from" value="${d.from}" required></label>
<label>until (UTC) <input type="datetime-local" name="valid_until" value="${d.until}" required></label></fieldset>
<fieldset><legend>Hosts it may be redeemed in</legend>${HOSTS.map((h) => html`<label><input type="checkbox" name="hosts" value="${h}"${checked(h)}> ${h}</label>`)}</fieldset>
<button type="submit" id="create">Create code</button></form>`;
}

const localMinute = (d: Date) => d.toISOString().slice(0, 16);

/** GET /_gm/codes/new (catalog_editor): the create form, open now for 30 days in every host. */
export function codeNew() {
  return (req: Request, res: Response): void => {
    const operator = req.operator;
    if (!operator) return;
    const now = new Date();
    const draft: Draft = {
      code: '',
      label: '',
      chips: '',
      hints: '',
      noAdsDays: '',
      max: '100',
      from: localMinute(now),
      until: localMinute(new Date(now.getTime() + 30 * 86_400_000)),
      hosts: [...HOSTS],
    };
    send(res, 200, page('New promo code', form(operator, draft), operator));
  };
}

const field = (body: Record<string, unknown>, name: string) => (typeof body[name] === 'string' ? body[name].trim() : '');

/** A datetime-local value read as UTC; null when malformed. */
function utcOf(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return null;
  const d = new Date(`${value}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/**
 * POST /_gm/codes (catalog_editor, CSRF): creates the code through the backend (which checks and
 * audits it); the answer shows the full code this one time. A refusal re-renders the form with why.
 */
export function codeCreate(client: PromoClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const hosts = body['hosts'];
    const d: Draft = {
      code: field(body, 'code'),
      label: field(body, 'label'),
      chips: field(body, 'chips'),
      hints: field(body, 'hints'),
      noAdsDays: field(body, 'no_ads_days'),
      max: field(body, 'max_redemptions'),
      from: field(body, 'valid_from'),
      until: field(body, 'valid_until'),
      hosts: (Array.isArray(hosts) ? hosts : [hosts]).filter((h): h is string => typeof h === 'string'),
    };
    const from = utcOf(d.from);
    const until = utcOf(d.until);
    const amounts = [d.chips, d.hints, d.noAdsDays];
    const problem = !amounts.every((v) => v === '' || WHOLE.test(v))
      ? 'Chips, hints and no-ads days are whole numbers.'
      : !WHOLE.test(d.max)
        ? 'Redemptions in total is a whole number.'
        : from === null || until === null
          ? 'Give the window as dates and times (UTC).'
          : null;
    if (problem !== null || from === null || until === null) {
      send(res, 400, page('New promo code', form(operator, d, problem ?? ''), operator));
      return;
    }
    const big = (v: string) => (v === '' ? 0n : BigInt(v));
    const request = encodeTable((b) =>
      fb.CodeCreate.createCodeCreate(
        b,
        b.createString(d.code),
        b.createString(d.label),
        big(d.chips),
        big(d.hints),
        big(d.noAdsDays),
        Number(d.max),
        BigInt(Math.floor(from.getTime() / 1000)),
        BigInt(Math.floor(until.getTime() / 1000)),
        fb.CodeCreate.createHostsVector(
          b,
          d.hosts.map((h) => b.createString(h)),
        ),
      ),
    );
    try {
      const made = decodeTable(
        (await client.createCode({ body: request }, asOperator(operator.token))).body,
        (bb) => fb.CodeCreated.getRootAsCodeCreated(bb),
        (t) => ({ id: t.id(), code: t.code() ?? '' }),
      );
      const shown = (made.code.match(/.{1,4}/g) ?? []).join('-');
      send(
        res,
        201,
        page(
          'Promo code created',
          html`<p class="notice">Code ${made.id.toString()} is created. Copy it now: it is shown this once (the database keeps only a keyed hash and its first characters).</p>
<p><code id="created-code" data-code="${made.code}">${shown}</code></p><p><a href="/_gm/codes/${made.id.toString()}">Its page</a> · <a href="/_gm/codes">All codes</a></p>`,
          operator,
        ),
      );
    } catch (err: unknown) {
      const f = failureOf(err);
      if (f.status === 502) throw err;
      send(res, f.status, page('New promo code', form(operator, d, f.message), operator));
    }
  };
}

interface Detail {
  code: CodeSummary;
  redemptions: Array<{
    id: bigint;
    accountId: bigint;
    segment: string;
    chips: bigint;
    hints: bigint;
    noAdsDays: bigint;
    redeemedUnix: bigint;
    reversedUnix: bigint;
    reversedBy: string;
  }>;
}

async function fetchCode(client: PromoClient, operator: ConsoleOperator, id: bigint): Promise<Detail> {
  const answer = await client.getCode({ body: encodeTable((b) => fb.CodeLookup.createCodeLookup(b, id)) }, asOperator(operator.token));
  return decodeTable(
    answer.body,
    (bb) => fb.CodeDetail.getRootAsCodeDetail(bb),
    (t) => ({
      code: readSummary(t.code()),
      redemptions: Array.from({ length: t.redemptionsLength() }, (_, i) => {
        const r = t.redemptions(i);
        return {
          id: r?.id() ?? 0n,
          accountId: r?.accountId() ?? 0n,
          segment: r?.segment() ?? '',
          chips: r?.chips() ?? 0n,
          hints: r?.hints() ?? 0n,
          noAdsDays: r?.noAdsDays() ?? 0n,
          redeemedUnix: r?.redeemedUnix() ?? 0n,
          reversedUnix: r?.reversedUnix() ?? 0n,
          reversedBy: r?.reversedByLogin() ?? '',
        };
      }),
    }),
  );
}

function codePage(operator: ConsoleOperator, d: Detail, notice: SafeHtml | string = ''): SafeHtml {
  const c = d.code;
  const refunder = operator.roles.includes('refunder');
  const action = (r: Detail['redemptions'][number]) =>
    r.reversedUnix !== 0n
      ? html`reversed ${utc(r.reversedUnix)} by ${r.reversedBy}`
      : refunder
        ? html`<form method="post" class="act" action="/_gm/codes/${c.id.toString()}/reverse">${csrfField(operator)}<input type="hidden" name="redemption" value="${r.id.toString()}"><input name="reason" placeholder="reason" maxlength="500" required> <button type="submit" class="reverse">Reverse</button></form>`
        : '';
  return page(
    `Promo code ${c.prefix}…`,
    html`${notice}<p><a href="/_gm/codes">All codes</a></p>
<table id="code"><tr><th>Label</th><td>${c.label}</td></tr><tr><th>Grants</th><td>${grantText(c)}</td></tr>
<tr><th>Used</th><td id="used">${c.redeemed} / ${c.max} (${c.reversed} reversed)</td></tr><tr><th>Valid</th><td>${utc(c.fromUnix)} – ${utc(c.untilUnix)}</td></tr>
<tr><th>Hosts</th><td>${c.hosts.join(', ')}</td></tr><tr><th>Created</th><td>${utc(c.createdUnix)} by ${c.createdBy}</td></tr></table>
<h2>Redemptions</h2>
${
  d.redemptions.length === 0
    ? html`<p id="no-redemptions">Not redeemed yet.</p>`
    : html`<table id="redemptions" class="fit"><tr><th>When</th><th>Account</th><th>Segment</th><th>Granted</th><th>Reversal</th></tr>
${d.redemptions.map((r) => html`<tr data-redemption="${r.id.toString()}"><td>${utc(r.redeemedUnix)}</td><td>${r.accountId}</td><td>${r.segment}</td><td>${grantText(r)}</td><td>${action(r)}</td></tr>`)}</table>`
}`,
    operator,
  );
}

function codeId(req: Request): bigint | null {
  const id = paramId(req);
  return ID.test(id) ? BigInt(id) : null;
}

/** GET /_gm/codes/:id (viewer): one code, its usage and its redemptions, with (refunder) a reverse action each. */
export function codeDetail(client: PromoClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const id = codeId(req);
    if (id === null) {
      sendError(res, 404, 'Promo codes', 'No such code.', operator);
      return;
    }
    try {
      send(res, 200, codePage(operator, await fetchCode(client, operator, id)));
    } catch (err: unknown) {
      if (failureOf(err).errorCode !== 'unknown_promo_code') throw err;
      sendError(res, 404, 'Promo codes', 'No such code.', operator);
    }
  };
}

/**
 * POST /_gm/codes/:id/reverse (refunder, CSRF): takes a redemption's grant back through the
 * backend (a `reversal` ledger row; a spent grant leaves a debt), audited with the reason.
 */
export function codeReverse(client: PromoClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const id = codeId(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const redemption = field(body, 'redemption');
    if (id === null || !ID.test(redemption)) {
      sendError(res, 404, 'Reverse refused', 'No such redemption.', operator);
      return;
    }
    try {
      const done = decodeTable(
        (
          await client.reverseRedemption(
            {
              body: encodeTable((b) =>
                fb.RedemptionReverse.createRedemptionReverse(b, BigInt(redemption), b.createString(field(body, 'reason'))),
              ),
            },
            asOperator(operator.token),
          )
        ).body,
        (bb) => fb.RedemptionReversed.getRootAsRedemptionReversed(bb),
        (t) => ({ balance: t.balance(), debts: Array.from({ length: t.debtsLength() }, (_, i) => t.debts(i)) }),
      );
      const notice =
        done.debts.length > 0
          ? html`<p class="debt" id="done" data-redemption="${redemption}">Reversed. The grant was spent: it left a debt (${done.debts.join(', ')}).</p>`
          : html`<p class="notice" id="done" data-redemption="${redemption}">Reversed in full.</p>`;
      send(res, 200, codePage(operator, await fetchCode(client, operator, id), notice));
    } catch (err: unknown) {
      const f = failureOf(err);
      if (f.status === 502) throw err;
      sendError(res, f.status, 'Reverse refused', f.message, operator);
    }
  };
}
