import { Code, ConnectError } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { serveH2c, type H2cServer } from './h2c.js';

/** One call the backend received: the method name and every request header as sent. */
export interface RecordedCall {
  method: string;
  headers: Record<string, string>;
}

/** A session the recording backend knows: kind "" means no recorded platform (untrusted). */
export interface ScriptedSession {
  accountId: bigint;
  kind: string;
  subtype: string;
}

/** A failure the test makes the next Buy answer with. */
export interface ScriptedFailure {
  code: Code;
  errorCode: string;
  message: string;
}

/**
 * A real Connect server (h2c) standing in for the backend where a test must observe exactly what
 * the gateway sends: it records every request's headers and answers from a script (sessions by
 * token, an optional Buy failure). Used for header trust and error-mapping tests; the wallet
 * behaviour itself is tested against the real backend.
 */
export interface RecordingBackend extends H2cServer {
  calls: RecordedCall[];
  sessions: Map<string, ScriptedSession>;
  failBuyWith: ScriptedFailure | undefined;
  callsTo(method: string): RecordedCall[];
}

const walletView = (b: Parameters<Parameters<typeof encodeTable>[0]>[0]) =>
  fb.WalletView.createWalletView(
    b,
    fb.WalletView.createSegmentsVector(b, [fb.SegmentBalance.createSegmentBalance(b, b.createString('direct'), 9_007_199_254_740_993n)]),
    fb.WalletView.createBenefitsVector(b, []),
    fb.WalletView.createSpendOrderVector(b, [b.createString('direct')]),
    true,
    false,
    true,
  );

export async function startRecordingBackend(): Promise<RecordingBackend> {
  const calls: RecordedCall[] = [];
  const sessions = new Map<string, ScriptedSession>();
  const state: Omit<RecordingBackend, keyof H2cServer> = {
    calls,
    sessions,
    failBuyWith: undefined,
    callsTo: (method) => calls.filter((c) => c.method === method),
  };
  const server = await serveH2c(
    (router) => {
      router.service(backendApi.AccountService, {
        resolveSession(req) {
          const token = decodeTable(
            req.body,
            (bb) => fb.SessionLookup.getRootAsSessionLookup(bb),
            (t) => t.token() ?? '',
          );
          const s = sessions.get(token);
          if (!s) throw new ConnectError('unknown session', Code.Unauthenticated, { 'x-error-code': 'session_invalid' });
          const expires = BigInt(Math.floor(Date.now() / 1000) + 3600);
          return {
            body: encodeTable((b) =>
              fb.SessionInfo.createSessionInfo(b, s.accountId, b.createString(s.kind), b.createString(s.subtype), expires),
            ),
          };
        },
        closeSession(req) {
          const token = decodeTable(
            req.body,
            (bb) => fb.SessionClose.getRootAsSessionClose(bb),
            (t) => t.token() ?? '',
          );
          return { body: encodeTable((b) => fb.SessionClosed.createSessionClosed(b, sessions.delete(token))) };
        },
        openTelegramSession() {
          return {
            body: encodeTable((b) =>
              fb.SessionGrant.createSessionGrant(
                b,
                b.createString('tg-token'),
                5n,
                b.createString('telegram'),
                b.createString(''),
                1_900_000_000n,
                true,
              ),
            ),
          };
        },
      });
      router.service(backendApi.WalletService, {
        getWallet() {
          return { body: encodeTable(walletView) };
        },
        buy(req) {
          if (state.failBuyWith) {
            const f = state.failBuyWith;
            throw new ConnectError(f.message, f.code, { 'x-error-code': f.errorCode });
          }
          const productId = decodeTable(
            req.body,
            (bb) => fb.WalletBuy.getRootAsWalletBuy(bb),
            (t) => t.productId(),
          );
          return {
            body: encodeTable((b) => {
              const draws = fb.WalletPurchase.createDrawsVector(b, [fb.SegmentDraw.createSegmentDraw(b, b.createString('direct'), 10n)]);
              const origin = b.createString('direct');
              const wallet = walletView(b);
              fb.WalletPurchase.startWalletPurchase(b);
              fb.WalletPurchase.addProductId(b, productId);
              fb.WalletPurchase.addPrice(b, 10n);
              fb.WalletPurchase.addDraws(b, draws);
              fb.WalletPurchase.addBenefitOrigin(b, origin);
              fb.WalletPurchase.addWallet(b, wallet);
              return fb.WalletPurchase.endWalletPurchase(b);
            }),
          };
        },
      });
      router.service(backendApi.CatalogAdminService, {
        listProducts() {
          return { body: encodeTable((b) => fb.ProductList.createProductList(b, fb.ProductList.createProductsVector(b, []))) };
        },
      });
    },
    [
      (next) => async (req) => {
        calls.push({ method: req.method.name, headers: Object.fromEntries(req.header.entries()) });
        return next(req);
      },
    ],
  );
  return Object.assign(state, server);
}
