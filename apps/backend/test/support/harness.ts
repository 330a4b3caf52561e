import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConnectError, createClient, type Client, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { DomainError, toConnectError } from '@wordgame/contracts';
import { withServiceToken } from '@wordgame/h2-unary';
import { createLogger } from '@wordgame/logging';
import { TEST_RATE_LIMITS, TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { buildBackend, type BackendApp, type BackendOptions } from '../../src/app.js';
import { loadBackendConfig } from '../../src/config/index.js';
import type { Database } from '../../src/db/database.js';
import { freshMigratedPostgres } from '../../src/testing/databases.js';
import { upsertOperator } from '../../src/operators/operators.store.js';
import { OPERATOR_SESSION_HEADER, signIn } from '../../src/operators/sessions.js';

type DescService = Parameters<typeof createClient>[0];

export const TELEGRAM_BOT_TOKEN = '123456:test-telegram-bot-token';
export const VK_APP_SECRET = 'test-vk-app-secret';

/** A real backend on port 0 over a fresh PostgreSQL database, plus a direct handle on that database. */
export interface Harness {
  url: string;
  /** The backend's Prometheus endpoint (BACKEND_METRICS_PORT, port 0 here). */
  metricsUrl: string;
  database: Database & { url: string };
  mailDir: string;
  /** A client whose calls name the harness operator (every role) unless a call sets its own x-operator-session. */
  client<S extends DescService>(service: S): Client<S>;
  /** A client that names no operator: what any caller of the backend's port could do. */
  bareClient<S extends DescService>(service: S): Client<S>;
  /** The harness operator's session token. */
  operatorToken: string;
  /** The running backend (its metrics registry and reconciler). */
  app: BackendApp;
  /**
   * Starts another backend process-alike on the same database and configuration (a second replica);
   * its clients name the harness operator like `client`. Stop it before the harness.
   */
  replica(): Promise<Replica>;
  stop(): Promise<void>;
}

/** A second backend over the harness's database. */
export interface Replica {
  client<S extends DescService>(service: S): Client<S>;
  stop(): Promise<void>;
}

/**
 * Starts buildBackend with test config; `env` overrides any variable. With `warnings`, the
 * backend's warn-and-above log lines are pushed there (parsed JSON); otherwise it logs nothing.
 * `options` reach buildBackend (a test's clock).
 */
export async function startHarness(
  env: Record<string, string> = {},
  warnings?: Array<Record<string, unknown>>,
  options: BackendOptions = {},
): Promise<Harness> {
  const pg = await freshMigratedPostgres();
  const mailDir = await mkdtemp(path.join(tmpdir(), 'backend-mail-'));
  const config = loadBackendConfig({
    BACKEND_PORT: '0',
    BACKEND_METRICS_PORT: '0',
    DATABASE_URL: pg.url,
    BACKEND_TELEGRAM_BOT_TOKEN: TELEGRAM_BOT_TOKEN,
    BACKEND_VK_APP_SECRET: VK_APP_SECRET,
    MAIL_DEV_DIR: mailDir,
    PUBLIC_BASE_URL: 'https://game.example',
    DB_POOL_MAX: '20',
    ...TEST_SERVICE_TOKENS,
    ...TEST_RATE_LIMITS,
    ...env,
  });
  const logger = warnings
    ? createLogger('backend-test', 'warn', { write: (line: string) => void warnings.push(JSON.parse(line) as Record<string, unknown>) })
    : createLogger('backend-test', 'silent');
  const app: BackendApp = buildBackend(config, logger, options);
  const { url, metricsUrl, db } = await app.start();
  await upsertOperator(db, 'harness-operator', 'harness operator password', ['viewer', 'refunder', 'catalog_editor', 'moderator']);
  const { token: operatorToken } = await signIn(db, 'harness-operator', 'harness operator password', 24, new Date());
  const namesOperator: Interceptor = (next) => (req) => {
    if (!req.header.has(OPERATOR_SESSION_HEADER)) req.header.set(OPERATOR_SESSION_HEADER, operatorToken);
    return next(req);
  };
  const transport = backendTransport(url, '2', [namesOperator]);
  const bare = backendTransport(url);
  return {
    url,
    metricsUrl,
    database: pg,
    mailDir,
    operatorToken,
    app,
    client: (service) => createClient(service, transport),
    bareClient: (service) => createClient(service, bare),
    async replica() {
      const other = buildBackend(config, createLogger('backend-replica', 'silent'));
      const started = await other.start();
      const replicaTransport = backendTransport(started.url, '2', [namesOperator]);
      return { client: (service) => createClient(service, replicaTransport), stop: () => other.stop() };
    },
    stop: async () => {
      await app.stop();
      await pg.close();
      await rm(mailDir, { recursive: true, force: true });
    },
  };
}

/** A Connect transport to a test backend that presents the service token, as the gateway does. */
export function backendTransport(
  baseUrl: string,
  httpVersion: '1.1' | '2' = '2',
  interceptors: Interceptor[] = [],
): ReturnType<typeof createConnectTransport> {
  return createConnectTransport({
    baseUrl,
    httpVersion,
    interceptors: [withServiceToken(TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN), ...interceptors],
  });
}

/** Caller headers as the gateway sets them. */
export function as(accountId: bigint, platform: string): { headers: Record<string, string> } {
  return { headers: { 'x-account-id': String(accountId), 'x-platform': platform } };
}

/** The Connect code and x-error-code of an error a call threw (a DomainError from a direct call as the edge encodes it). */
export function errorOf(err: unknown): { code: number; errorCode: string | null } {
  const e = err instanceof DomainError ? toConnectError(err) : ConnectError.from(err);
  return { code: e.code, errorCode: e.metadata.get('x-error-code') };
}

/** The Connect code and x-error-code of a rejected call. */
export async function failure(call: Promise<unknown>): Promise<{ code: number; errorCode: string | null }> {
  try {
    await call;
  } catch (err: unknown) {
    return errorOf(err);
  }
  throw new Error('expected the call to fail');
}

/** Every mail in the dev mailbox, oldest first, as raw text. */
export async function mailbox(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.eml')).sort();
  return Promise.all(names.map((n) => readFile(path.join(dir, n), 'utf8')));
}
