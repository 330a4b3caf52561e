import type { Request, Response } from 'express';
import { createClient, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { asOperator, consoleTransport, failureOf } from '../backend.js';
import { html, type SafeHtml } from '../../http/index.js';
import { csrfField, page, send, sendError } from '../layout.js';
import { paramId, type ConsoleOperator } from '../session.js';

/** The backend's HelpdeskService (the support desk). */
export type HelpdeskClient = Client<typeof backendApi.HelpdeskService>;

/** A HelpdeskService client over the console's backend connections. */
export function createHelpdeskClient(urls: string | readonly string[], token: string): HelpdeskClient {
  return createClient(backendApi.HelpdeskService, consoleTransport(urls, token, 15_000));
}

const CASE_ID = /^C-[0-9A-Z]{6}$/;
/** How much of a case's text the list shows. */
const PREVIEW = 120;

interface CaseSummary {
  code: string;
  state: string;
  platform: string;
  userId: bigint;
  accountId: bigint;
  chargeId: string;
  orderId: string;
  openedUnix: bigint;
  ageSeconds: bigint;
  text: string;
  language: string;
  erased: boolean;
}

function readSummary(s: InstanceType<typeof fb.SupportCaseSummary> | null): CaseSummary {
  return {
    code: s?.caseId() ?? '',
    state: s?.state() ?? '',
    platform: s?.platform() ?? '',
    userId: s?.platformUserId() ?? 0n,
    accountId: s?.accountId() ?? 0n,
    chargeId: s?.platformPaymentChargeId() ?? '',
    orderId: s?.orderId() ?? '',
    openedUnix: s?.openedUnix() ?? 0n,
    ageSeconds: s?.ageSeconds() ?? 0n,
    text: s?.text() ?? '',
    language: s?.language() ?? '',
    erased: s?.erased() ?? false,
  };
}

const utc = (unix: bigint) => (unix === 0n ? '' : `${new Date(Number(unix) * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`);

/** An age as an operator reads it: "45 s", "12 min", "5 h 3 min", "2 d 4 h". */
export function ageText(seconds: bigint): string {
  const s = Number(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3_600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3_600)} h ${Math.floor((s % 3_600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3_600)} h`;
}

function userText(c: CaseSummary, preview: boolean): SafeHtml {
  if (c.erased) return html`<em class="erased">erased with the account</em>`;
  const text = preview && [...c.text].length > PREVIEW ? `${[...c.text].slice(0, PREVIEW).join('')}…` : c.text;
  return preview ? html`${text}` : html`<pre class="case-text" id="case-text">${text}</pre>`;
}

/** GET /_gm/support (viewer): the open cases, oldest first, with their age. */
export function supportList(client: HelpdeskClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const answer = await client.listSupportCases(
      { body: encodeTable((b) => fb.SupportCaseQuery.createSupportCaseQuery(b, 0)) },
      asOperator(operator.token),
    );
    const { cases, total } = decodeTable(
      answer.body,
      (bb) => fb.SupportCaseList.getRootAsSupportCaseList(bb),
      (t) => ({ cases: Array.from({ length: t.casesLength() }, (_, i) => readSummary(t.cases(i))), total: t.openTotal() }),
    );
    const body =
      cases.length === 0
        ? html`<p id="none">No open support cases.</p>`
        : html`<p id="total">${total} open, oldest first${BigInt(cases.length) < total ? html` (the oldest ${cases.length} shown)` : ''}.</p>
<table id="cases" class="fit"><tr><th>Case</th><th>Waiting</th><th>Opened</th><th>User</th><th>Charge</th><th>Language</th><th>Text</th></tr>
${cases.map(
  (c) =>
    html`<tr data-case="${c.code}"><td><a href="/_gm/support/${c.code}">${c.code}</a></td><td class="age">${ageText(c.ageSeconds)}</td><td>${utc(c.openedUnix)}</td><td>${c.platform}:${c.userId}</td><td>${c.chargeId || 'in general'}</td><td>${c.language}</td><td class="text">${userText(c, true)}</td></tr>`,
)}</table>`;
    send(res, 200, page('Support cases', body, operator));
  };
}

interface CaseDetail {
  summary: CaseSummary;
  evidence: Array<{ kind: string; atUnix: bigint; summary: string }>;
  history: Array<{ kind: string; login: string; text: string; outcome: string; atUnix: bigint }>;
  refundOrderId: string;
  audit: Array<{ action: string; login: string; target: string; outcome: string; atUnix: bigint }>;
}

async function fetchCase(client: HelpdeskClient, operator: ConsoleOperator, code: string): Promise<CaseDetail> {
  const answer = await client.getSupportCase(
    { body: encodeTable((b) => fb.SupportCaseLookup.createSupportCaseLookup(b, b.createString(code))) },
    asOperator(operator.token),
  );
  return decodeTable(
    answer.body,
    (bb) => fb.SupportCaseDetail.getRootAsSupportCaseDetail(bb),
    (t) => ({
      summary: readSummary(t.summary()),
      evidence: Array.from({ length: t.evidenceLength() }, (_, i) => {
        const e = t.evidence(i);
        return { kind: e?.kind() ?? '', atUnix: e?.atUnix() ?? 0n, summary: e?.summary() ?? '' };
      }),
      history: Array.from({ length: t.historyLength() }, (_, i) => {
        const h = t.history(i);
        return {
          kind: h?.kind() ?? '',
          login: h?.operatorLogin() ?? '',
          text: h?.text() ?? '',
          outcome: h?.outcome() ?? '',
          atUnix: h?.atUnix() ?? 0n,
        };
      }),
      refundOrderId: t.refundOrderId() ?? '',
      audit: Array.from({ length: t.auditLength() }, (_, i) => {
        const a = t.audit(i);
        return {
          action: a?.kind() ?? '',
          login: a?.operatorLogin() ?? '',
          target: a?.text() ?? '',
          outcome: a?.outcome() ?? '',
          atUnix: a?.atUnix() ?? 0n,
        };
      }),
    }),
  );
}

const EVIDENCE_TITLE: Record<string, string> = {
  order: 'Order',
  order_event: 'Order event',
  ledger: 'Ledger row',
  charge: 'Platform charge',
  unmatched: 'Unmatched payment',
  reconciliation: 'Reconciliation finding',
};

function casePage(operator: ConsoleOperator, d: CaseDetail, notice: SafeHtml | string = ''): SafeHtml {
  const c = d.summary;
  const open = c.state === 'open';
  const moderator = operator.roles.includes('moderator');
  const refundLink =
    d.refundOrderId !== '' && operator.roles.includes('refunder')
      ? html`<p><a id="refund" href="/_gm/ledger/refund?${new URLSearchParams({ order: d.refundOrderId, return: `/_gm/support/${c.code}` }).toString()}">Refund order ${d.refundOrderId}</a> (the console's refund confirmation: the refund rules decide)</p>`
      : '';
  const grantLink =
    c.accountId !== 0n && operator.roles.includes('granter')
      ? html`<p><a id="grant" href="/_gm/grant?${new URLSearchParams({ account: c.accountId.toString(), case: c.code }).toString()}">Grant a make-good</a> for this case (chips, hints or no-ads days with a reason; audited on this case)</p>`
      : '';
  const actions =
    open && moderator
      ? html`<h2>Actions</h2>
<form method="post" action="/_gm/support/${c.code}/reply" id="reply-form">${csrfField(operator)}<label>Reply to the user through the bot (in ${c.language})<br>
<textarea name="text" rows="5" cols="80" maxlength="1000" required></textarea></label><br><button type="submit" id="reply">Send reply</button></form>
<form method="post" action="/_gm/support/${c.code}/resolve" id="resolve-form">${csrfField(operator)}<button type="submit" id="resolve">Resolve</button></form>`
      : '';
  return page(
    `Support case ${c.code}`,
    html`${notice}<p><a href="/_gm/support">All open cases</a></p>
<table id="case"><tr><th>State</th><td id="state">${c.state}</td></tr><tr><th>Waiting</th><td>${open ? ageText(c.ageSeconds) : ''}</td></tr>
<tr><th>Opened</th><td>${utc(c.openedUnix)}</td></tr><tr><th>User</th><td>${c.platform}:${c.userId}</td></tr>
<tr><th>Account</th><td>${c.accountId === 0n ? 'none' : html`<a href="/_gm/users/${c.accountId.toString()}">${c.accountId}</a>`}</td></tr>
<tr><th>Charge</th><td id="charge">${c.chargeId || 'in general'}</td></tr><tr><th>Order</th><td>${c.orderId}</td></tr><tr><th>Language</th><td>${c.language}</td></tr></table>
<h2>The user's words</h2>
${userText(c, false)}
<h2>Evidence</h2>
${
  d.evidence.length === 0
    ? html`<p id="no-evidence">The case names no charge of ours.</p>`
    : html`<table id="evidence" class="fit"><tr><th>What</th><th>When</th><th>Facts</th></tr>
${d.evidence.map((e) => html`<tr data-kind="${e.kind}"><td>${EVIDENCE_TITLE[e.kind] ?? e.kind}</td><td>${utc(e.atUnix)}</td><td>${e.summary}</td></tr>`)}</table>`
}
${refundLink}
${grantLink}
<h2>History</h2>
<table id="history" class="fit"><tr><th>When</th><th>What</th><th>Operator</th><th>Outcome</th><th>Text</th></tr>
${d.history.map((h) => html`<tr data-kind="${h.kind}"><td>${utc(h.atUnix)}</td><td>${h.kind}</td><td>${h.login}</td><td>${h.outcome}</td><td><pre>${h.text}</pre></td></tr>`)}</table>
<h2>Audit</h2>
${
  d.audit.length === 0
    ? html`<p id="no-audit">No operator action on this case or its order yet.</p>`
    : html`<table id="audit"><tr><th>When</th><th>Operator</th><th>Action</th><th>Target</th><th>Outcome</th></tr>
${d.audit.map((a) => html`<tr data-action="${a.action}"><td>${utc(a.atUnix)}</td><td>${a.login}</td><td>${a.action}</td><td>${a.target}</td><td>${a.outcome}</td></tr>`)}</table>`
}
${actions}`,
    operator,
  );
}

function caseCode(req: Request): string | null {
  const code = paramId(req);
  return CASE_ID.test(code) ? code : null;
}

/** GET /_gm/support/:id (viewer): one case, its evidence, history and (moderator) actions. */
export function supportCase(client: HelpdeskClient) {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const code = caseCode(req);
    if (code === null) {
      sendError(res, 404, 'Support', 'No such support case.', operator);
      return;
    }
    try {
      send(res, 200, casePage(operator, await fetchCase(client, operator, code)));
    } catch (err: unknown) {
      if (failureOf(err).errorCode !== 'unknown_support_case') throw err;
      sendError(res, 404, 'Support', 'No such support case.', operator);
    }
  };
}

const OUTCOME_TEXT: Record<string, string> = {
  delivered: 'The reply was delivered.',
  not_delivered: 'The reply was NOT delivered (no bot connected, or the user never started the bot); it is recorded on the case.',
  error: 'The bot reported an error sending the reply; it is recorded on the case.',
};

/**
 * POST /_gm/support/:id/reply and /resolve (moderator, CSRF): the action through the backend
 * (which audits it with the operator), then the case page with what became of it.
 */
export function supportAct(client: HelpdeskClient, action: 'reply' | 'resolve') {
  return async (req: Request, res: Response): Promise<void> => {
    const operator = req.operator;
    if (!operator) return;
    const code = caseCode(req);
    if (code === null) {
      sendError(res, 404, 'Support', 'No such support case.', operator);
      return;
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = action === 'reply' && typeof body['text'] === 'string' ? body['text'].replace(/\r\n/g, '\n') : '';
    try {
      const answer = await client.actOnSupportCase(
        {
          body: encodeTable((b) =>
            fb.SupportCaseAction.createSupportCaseAction(b, b.createString(code), b.createString(action), b.createString(text)),
          ),
        },
        asOperator(operator.token),
      );
      const outcome = decodeTable(
        answer.body,
        (bb) => fb.SupportCaseActionResult.getRootAsSupportCaseActionResult(bb),
        (t) => t.outcome() ?? '',
      );
      const message = action === 'resolve' ? 'The case is resolved.' : (OUTCOME_TEXT[outcome] ?? outcome);
      const notice = html`<p class="${outcome === 'delivered' || action === 'resolve' ? 'notice' : 'error'}" id="done" data-action="${action}" data-outcome="${outcome}">${message}</p>`;
      send(res, 200, casePage(operator, await fetchCase(client, operator, code), notice));
    } catch (err: unknown) {
      const f = failureOf(err);
      if (f.status === 502) throw err;
      sendError(res, f.status, action === 'reply' ? 'Reply refused' : 'Resolve refused', f.message, operator);
    }
  };
}
