import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { createConnectUnaryTransport, withServiceToken } from '@wordgame/h2-unary';
import type { Logger } from '@wordgame/logging';
import { createBackendPool, type BackendPool } from './pool.js';

/** Typed Connect clients for the backend's services, over one multiplexed h2c connection. */
export interface BackendClients {
  system: Client<typeof backendApi.SystemService>;
  account: Client<typeof backendApi.AccountService>;
  wallet: Client<typeof backendApi.WalletService>;
  catalogAdmin: Client<typeof backendApi.CatalogAdminService>;
  /** The backend intake: chat eligibility, pre-checkout and forwarded payments behind the bot-link's unary RPCs. */
  intake: Client<typeof backendApi.BotIntakeService>;
  /** The caller's paid orders (caller headers required). */
  payments: Client<typeof backendApi.PaymentsService>;
  /** Provider notifications (no caller headers). */
  notification: Client<typeof backendApi.NotificationService>;
  /** Operator API sign-in and sign-out (ConsoleService.SignIn / SignOut). */
  console: Client<typeof backendApi.ConsoleService>;
  /** Operator refunds (the operator's session token in x-operator-session; the backend checks the role). */
  refund: Client<typeof backendApi.RefundService>;
  /** The word game, including the WatchGame server stream (caller headers required). */
  game: Client<typeof backendApi.GameService>;
  /** Friend requests, blocks and account deletion (caller headers required). */
  social: Client<typeof backendApi.SocialService>;
  /** The player's data export; an operator's export and deletion on request (caller headers, or the operator's session). */
  privacy: Client<typeof backendApi.PrivacyService>;
  /** Promo code redemption (caller headers required). */
  promos: Client<typeof backendApi.PromoService>;
  /** The player's stars subscriptions (caller headers) and the console's subscription figures (the operator's session). */
  subscriptions: Client<typeof backendApi.SubscriptionService>;
  /** The replicas the calls are spread over. */
  pool: BackendPool;
  /** Closes the connection to the backend (gateway stop). */
  close(): void;
}

/**
 * Unary calls (every REST operation) go through the fast Connect unary transport (libs/h2-unary); the one streaming
 * method (WatchGame) through connect-node's. Both speak the Connect protocol over h2c and present
 * `token` (BACKEND_SERVICE_TOKEN) on every call, without which the backend refuses it. With
 * several URLs (or a name with several DNS addresses) calls spread over the replicas (pool.ts).
 * `fast` false sends unary calls through connect-node too (GATEWAY_FAST_PATH).
 */
export function createBackendClients(
  urls: string | readonly string[],
  token: string,
  refreshMs = 10_000,
  logger?: Logger,
  fast = true,
): BackendClients {
  const transport = createBackendPool({
    urls: typeof urls === 'string' ? [urls] : urls,
    refreshMs,
    ...(logger ? { logger } : {}),
    factory: (baseUrl) => {
      const streams = createConnectTransport({
        baseUrl,
        httpVersion: '2',
        defaultTimeoutMs: 10_000,
        interceptors: [withServiceToken(token)],
      });
      return createConnectUnaryTransport({ baseUrl, token, defaultTimeoutMs: 10_000, streams, fast });
    },
  });
  return {
    pool: transport,
    system: createClient(backendApi.SystemService, transport),
    account: createClient(backendApi.AccountService, transport),
    wallet: createClient(backendApi.WalletService, transport),
    catalogAdmin: createClient(backendApi.CatalogAdminService, transport),
    intake: createClient(backendApi.BotIntakeService, transport),
    payments: createClient(backendApi.PaymentsService, transport),
    notification: createClient(backendApi.NotificationService, transport),
    console: createClient(backendApi.ConsoleService, transport),
    refund: createClient(backendApi.RefundService, transport),
    game: createClient(backendApi.GameService, transport),
    social: createClient(backendApi.SocialService, transport),
    privacy: createClient(backendApi.PrivacyService, transport),
    promos: createClient(backendApi.PromoService, transport),
    subscriptions: createClient(backendApi.SubscriptionService, transport),
    close: () => transport.close(),
  };
}

/** The backend's own view of its status, decoded from the FlatBuffers body. */
export interface BackendStatus {
  status: string;
  version: string;
  database: string;
  databaseLatencyUs: string;
  uptimeSeconds: string;
}

/** Calls SystemService.Check with a bounded deadline. */
export async function checkBackend(clients: BackendClients, timeoutMs = 2_000): Promise<BackendStatus> {
  const res = await clients.system.check({ body: encodeTable((b) => fb.CheckRequest.createCheckRequest(b)) }, { timeoutMs });
  return decodeTable(
    res.body,
    (bb) => fb.CheckResponse.getRootAsCheckResponse(bb),
    (t) => ({
      status: t.status() ?? '',
      version: t.version() ?? '',
      database: t.database() ?? '',
      databaseLatencyUs: t.databaseLatencyUs().toString(),
      uptimeSeconds: t.uptimeSeconds().toString(),
    }),
  );
}
