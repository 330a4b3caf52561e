import type { ServiceImpl } from '@connectrpc/connect';
import type { Builder } from 'flatbuffers';
import type { Kysely } from 'kysely';
import { backendApi, decodeTable, encodeTable, fb, supportTextProblem, type CommandOutcome } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../db/index.js';
import { audit } from '../operator-audit/index.js';
import { requireRole } from '../operators/index.js';
import { DomainError } from '../rpc/index.js';
import type { Clock } from '../support/index.js';
import {
  appendEvent,
  auditOf,
  caseByCode,
  caseEvents,
  caseForUpdate,
  evidenceOf,
  markResolved,
  openCases,
  type CaseRow,
} from './helpdesk.store.js';

/** What the support desk's console methods work with. */
export interface HelpdeskConsoleDeps {
  db: Kysely<DB>;
  logger: Logger;
  now: Clock;
  /** Sends a free-text private message to a telegram identity through the bot (botcommands/). */
  sendToUser(externalId: string, text: string): Promise<CommandOutcome>;
}

const LIST_DEFAULT = 100;
const LIST_MAX = 200;
const CODE = /^C-[0-9A-Z]{6}$/;

/** The first line of a reply, in the case's language, naming the case. */
const REPLY_HEADING = {
  en: (code: string) => `Support case ${code}:`,
  ru: (code: string) => `Обращение ${code}:`,
} as const;

const unix = (d: Date) => BigInt(Math.floor(d.getTime() / 1000));

function summaryOf(b: Builder, c: CaseRow, now: Date): number {
  return fb.SupportCaseSummary.createSupportCaseSummary(
    b,
    b.createString(c.code),
    b.createString(c.state),
    b.createString(c.platform),
    c.platform_user_id,
    c.account_id ?? 0n,
    b.createString(c.platform_charge_id ?? ''),
    b.createString(c.order_id ?? ''),
    unix(c.opened_at),
    BigInt(Math.max(0, Math.floor((now.getTime() - c.opened_at.getTime()) / 1000))),
    b.createString(c.text),
    b.createString(c.language),
    c.erased_at !== null,
  );
}

function readCode(raw: string | null): string {
  const code = (raw ?? '').trim().toUpperCase();
  if (!CODE.test(code)) throw new DomainError('unknown_support_case', 'no such support case');
  return code;
}

/** A bot command's outcome as the case history records a reply's. */
function replyOutcome(o: CommandOutcome): 'delivered' | 'not_delivered' | 'error' {
  if (o.status === 'delivered') return 'delivered';
  if (o.status === 'not_delivered' || o.status === 'no_bot') return 'not_delivered';
  return 'error';
}

/**
 * Replies to the case's user through the bot (send_to_user, the reply headed by the case's id in
 * its language), then records the reply's text and outcome on the case and the action in the
 * operator audit (without the text: the audit is append-only and outlives an account's deletion).
 * A resolved case takes no reply.
 */
async function reply(deps: HelpdeskConsoleDeps, operatorId: bigint, code: string, text: string) {
  const problem = supportTextProblem(text);
  if (problem !== null) throw new DomainError('invalid_support_reply', problem);
  const words = text.trim();
  const c = await caseByCode(deps.db, code);
  if (c === undefined) throw new DomainError('unknown_support_case', 'no such support case');
  if (c.state !== 'open') throw new DomainError('support_case_closed', 'this support case is resolved already');
  const sent = await deps.sendToUser(c.platform_user_id.toString(), `${REPLY_HEADING[c.language](c.code)}\n${words}`);
  const outcome = replyOutcome(sent);
  await deps.db.transaction().execute(async (trx) => {
    await appendEvent(trx, { caseId: c.id, kind: 'reply', operatorId, text: words, outcome, at: deps.now() });
    await audit(trx, {
      operatorId,
      action: 'support_reply',
      target: c.code,
      outcome,
      detail: sent.status === 'failed' || sent.status === 'error' ? sent.error : '',
    });
  });
  if (outcome !== 'delivered') deps.logger.warn({ caseId: c.code, status: sent.status }, 'support reply not delivered');
  return { state: c.state, outcome };
}

/** Resolves an open case (once: a second press is `support_case_closed`), audited. */
async function resolve(deps: HelpdeskConsoleDeps, operatorId: bigint, code: string) {
  await deps.db.transaction().execute(async (trx) => {
    const c = await caseForUpdate(trx, code);
    if (c === undefined) throw new DomainError('unknown_support_case', 'no such support case');
    if (c.state !== 'open') throw new DomainError('support_case_closed', 'this support case is resolved already');
    const at = deps.now();
    await markResolved(trx, c.id, operatorId, at);
    await appendEvent(trx, { caseId: c.id, kind: 'resolved', operatorId, text: '', outcome: '', at });
    await audit(trx, { operatorId, action: 'support_resolve', target: c.code, outcome: 'resolved' });
  });
  return { state: 'resolved' as const, outcome: '' };
}

/**
 * backend.v1.HelpdeskService: the console's support desk. Viewing needs the viewer role; replying
 * and resolving the moderator role, each re-checked here from the operator's session. A refund is
 * not an action of this service: the case page links to the console's refund confirmation
 * (ConsoleService.ConsoleRefund and its rules), the one refund path.
 */
export function helpdeskService(deps: HelpdeskConsoleDeps): ServiceImpl<typeof backendApi.HelpdeskService> {
  const { db } = deps;
  return {
    async listSupportCases(req, ctx) {
      await requireRole(db, ctx.requestHeader, 'viewer', 'support_view', deps.now());
      const limit = decodeTable(
        req.body,
        (bb) => fb.SupportCaseQuery.getRootAsSupportCaseQuery(bb),
        (t) => t.limit(),
      );
      if (limit < 0 || limit > LIST_MAX) throw new DomainError('invalid_filter', `a page holds 1-${LIST_MAX} cases`);
      const { rows, total } = await openCases(db, limit || LIST_DEFAULT);
      const now = deps.now();
      return {
        body: encodeTable((b) => {
          const cases = rows.map((c) => summaryOf(b, c, now));
          return fb.SupportCaseList.createSupportCaseList(b, fb.SupportCaseList.createCasesVector(b, cases), BigInt(total));
        }),
      };
    },
    async getSupportCase(req, ctx) {
      await requireRole(db, ctx.requestHeader, 'viewer', 'support_view', deps.now());
      const code = readCode(
        decodeTable(
          req.body,
          (bb) => fb.SupportCaseLookup.getRootAsSupportCaseLookup(bb),
          (t) => t.caseId(),
        ),
      );
      const c = await caseByCode(db, code);
      if (c === undefined) throw new DomainError('unknown_support_case', 'no such support case');
      const [evidence, history, audited] = await Promise.all([
        evidenceOf(db, c.order_id, c.platform_charge_id),
        caseEvents(db, c.id),
        auditOf(db, c.code, c.order_id),
      ]);
      const now = deps.now();
      return {
        body: encodeTable((b) => {
          const summary = summaryOf(b, c, now);
          const ev = evidence.map((e) =>
            fb.SupportEvidence.createSupportEvidence(b, b.createString(e.kind), e.at === null ? 0n : unix(e.at), b.createString(e.summary)),
          );
          const hist = history.map((h) =>
            fb.SupportCaseEntry.createSupportCaseEntry(
              b,
              b.createString(h.kind),
              h.operator_id ?? 0n,
              b.createString(h.login ?? ''),
              b.createString(h.text),
              b.createString(h.outcome),
              unix(h.at),
            ),
          );
          const audit = audited.map((a) =>
            fb.SupportCaseEntry.createSupportCaseEntry(
              b,
              b.createString(a.action),
              a.operator_id ?? 0n,
              b.createString(a.login ?? ''),
              b.createString(a.target),
              b.createString(a.outcome),
              unix(a.at),
            ),
          );
          return fb.SupportCaseDetail.createSupportCaseDetail(
            b,
            summary,
            fb.SupportCaseDetail.createEvidenceVector(b, ev),
            fb.SupportCaseDetail.createHistoryVector(b, hist),
            b.createString(c.order_id ?? ''),
            fb.SupportCaseDetail.createAuditVector(b, audit),
          );
        }),
      };
    },
    async actOnSupportCase(req, ctx) {
      const input = decodeTable(
        req.body,
        (bb) => fb.SupportCaseAction.getRootAsSupportCaseAction(bb),
        (t) => ({ code: t.caseId(), action: t.action() ?? '', text: t.text() ?? '' }),
      );
      if (input.action !== 'reply' && input.action !== 'resolve')
        throw new DomainError('invalid_action', 'the action must be reply or resolve');
      const operator = await requireRole(db, ctx.requestHeader, 'moderator', `support_${input.action}`, deps.now());
      const code = readCode(input.code);
      const done = input.action === 'reply' ? await reply(deps, operator.id, code, input.text) : await resolve(deps, operator.id, code);
      return {
        body: encodeTable((b) =>
          fb.SupportCaseActionResult.createSupportCaseActionResult(
            b,
            b.createString(code),
            b.createString(done.state),
            b.createString(done.outcome),
          ),
        ),
      };
    },
  };
}
