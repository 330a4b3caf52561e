import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import {
  botlink,
  decodeTable,
  encodeTable,
  ERROR_CODE_HEADER,
  errorCodeOf,
  fb,
  isChargeIdShape,
  isSupportLanguage,
  STAR_CHARGES_MAX,
  supportTextProblem,
} from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { BackendClients } from '../backend/index.js';
import type { BotlinkMetrics, SupportCallOutcome, SupportRpc } from '../metrics/index.js';
import { BOT_PLATFORM, relayFailure } from './relay.js';

function invalid(message: string): never {
  throw new ConnectError(message, Code.InvalidArgument);
}

function checkUser(platformUserId: bigint): void {
  if (platformUserId <= 0n) invalid('platform_user_id must be a positive platform user id');
}

/** The metric outcome of a failed call. */
function outcomeOf(err: ConnectError): SupportCallOutcome {
  switch (err.code) {
    case Code.InvalidArgument:
      return 'invalid_argument';
    case Code.ResourceExhausted:
      return 'rate_limited';
    case Code.FailedPrecondition:
      return errorCodeOf(err) === 'support_case_limit' ? 'case_limit' : 'error';
    case Code.Unavailable:
      return 'unavailable';
    default:
      return 'error';
  }
}

/**
 * A backend refusal of the user's own doing passes through with its message and code name
 * (`x-error-code`), so the bot can tell the user: ResourceExhausted (`rate_limited`, the wait in the
 * message) and FailedPrecondition `support_case_limit`; everything else as every relay maps it.
 */
function supportFailure(rpc: string, err: unknown, logger: Logger): ConnectError {
  const own =
    err instanceof ConnectError &&
    (err.code === Code.ResourceExhausted || (err.code === Code.FailedPrecondition && errorCodeOf(err) === 'support_case_limit'));
  if (own) {
    const named = errorCodeOf(err);
    return new ConnectError(err.rawMessage, err.code, named === undefined ? undefined : { [ERROR_CODE_HEADER]: named });
  }
  const mapped = relayFailure(rpc, err, logger);
  if (mapped.code === Code.InvalidArgument && err instanceof ConnectError) {
    const named = errorCodeOf(err);
    if (named !== undefined) mapped.metadata.set(ERROR_CODE_HEADER, named);
  }
  return mapped;
}

/**
 * The bot-link's support RPCs (/paysupport), proxied to the backend intake: ListStarCharges and
 * OpenSupportCase. Each input is checked here first (a positive platform user id; limit 0-10; the
 * charge id's shape; the text 1-1000 characters after trimming without control characters but
 * newlines; OpenSupportCase's language en or ru) and refused as InvalidArgument without asking the
 * backend. The per-user limits live in the backend (one count across gateway and backend replicas)
 * and come back as ResourceExhausted. Every call is counted in `botlink_support_calls_total`.
 */
export function createSupportRelayHandlers(backend: BackendClients, metrics: BotlinkMetrics, logger: Logger) {
  /**
   * Checks the input (`check`, whose refusal is the InvalidArgument the bot sees), then runs the
   * backend call; counts the outcome either way. A call the bot gave up on ends as Canceled.
   */
  async function counted<I, T>(
    rpc: SupportRpc,
    name: string,
    ctx: HandlerContext,
    check: () => I,
    run: (input: I) => Promise<T>,
  ): Promise<T> {
    let input: I;
    try {
      input = check();
    } catch (err: unknown) {
      metrics.supportCalls.inc({ rpc, outcome: 'invalid_argument' });
      throw err;
    }
    try {
      const answer = await run(input);
      metrics.supportCalls.inc({ rpc, outcome: 'ok' });
      return answer;
    } catch (err: unknown) {
      const failure = ctx.signal.aborted ? ConnectError.from(ctx.signal.reason, Code.Canceled) : supportFailure(name, err, logger);
      metrics.supportCalls.inc({ rpc, outcome: outcomeOf(failure) });
      throw failure;
    }
  }

  return {
    listStarCharges: (req: botlink.StarChargesRequest, ctx: HandlerContext) =>
      counted(
        'list_star_charges',
        'ListStarCharges',
        ctx,
        () => {
          checkUser(req.platformUserId);
          if (req.limit < 0 || req.limit > STAR_CHARGES_MAX) invalid(`limit must be 0-${STAR_CHARGES_MAX}`);
          // The contract: any language but "ru" reads "en".
          return { limit: req.limit, language: req.language === 'ru' ? 'ru' : 'en' };
        },
        async (q) => {
          const res = await backend.intake.listStarCharges(
            {
              body: encodeTable((b) =>
                fb.StarChargesQuery.createStarChargesQuery(
                  b,
                  b.createString(BOT_PLATFORM),
                  req.platformUserId,
                  q.limit,
                  b.createString(q.language),
                ),
              ),
            },
            { signal: ctx.signal },
          );
          return decodeTable(
            res.body,
            (bb) => fb.StarChargeList.getRootAsStarChargeList(bb),
            (t) =>
              create(botlink.StarChargesResponseSchema, {
                charges: Array.from({ length: t.chargesLength() }, (_, i) => {
                  const c = t.charges(i);
                  return {
                    orderId: c?.orderId() ?? '',
                    platformPaymentChargeId: c?.platformPaymentChargeId() ?? '',
                    productTitle: c?.productTitle() ?? '',
                    amount: c?.amount() ?? 0n,
                    paidUnix: c?.paidUnix() ?? 0n,
                    state: c?.state() ?? '',
                  };
                }),
              }),
          );
        },
      ),

    openSupportCase: (req: botlink.OpenSupportCaseRequest, ctx: HandlerContext) =>
      counted(
        'open_support_case',
        'OpenSupportCase',
        ctx,
        () => {
          checkUser(req.platformUserId);
          if (req.platformPaymentChargeId !== '' && !isChargeIdShape(req.platformPaymentChargeId))
            invalid('platform_payment_charge_id must be 1-256 printable characters without spaces');
          const problem = supportTextProblem(req.text);
          if (problem !== null) invalid(problem);
          const lang = req.language === '' ? 'en' : req.language;
          if (!isSupportLanguage(lang)) invalid('language must be en or ru');
          return lang;
        },
        async (language) => {
          const res = await backend.intake.openSupportCase(
            {
              body: encodeTable((b) =>
                fb.SupportCaseOpening.createSupportCaseOpening(
                  b,
                  b.createString(BOT_PLATFORM),
                  req.platformUserId,
                  b.createString(req.platformPaymentChargeId),
                  b.createString(req.text.trim()),
                  b.createString(language),
                ),
              ),
            },
            { signal: ctx.signal },
          );
          return decodeTable(
            res.body,
            (bb) => fb.SupportCaseOpened.getRootAsSupportCaseOpened(bb),
            (t) => create(botlink.OpenSupportCaseResponseSchema, { caseId: t.caseId() ?? '' }),
          );
        },
      ),
  };
}
