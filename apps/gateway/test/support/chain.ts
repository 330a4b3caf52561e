import { createHash, randomBytes } from 'node:crypto';
import { freshDatabase, startBackendProcess, type BackendProcess, type FreshDatabase } from './backend-process.js';
import { startEdge, type Edge } from './edge.js';
import { operatorApiToken } from './operator-api.js';

export { grantChips } from '@wordgame/testkit';

/** Secrets the chain's backend is configured with, so tests can sign launch data. */
export const TELEGRAM_BOT_TOKEN = '123456:test-bot-token';
export const VK_APP_SECRET = 'vk-test-app-secret';

/** The whole chain: HTTP edge -> real backend process -> a fresh PostgreSQL database. */
export interface Chain {
  db: FreshDatabase;
  backend: BackendProcess;
  edge: Edge;
  /** Bearer token of an operator (refunder, catalog_editor) signed in through the operator API. */
  operatorToken: string;
  stop(): Promise<void>;
}

export async function startChain(): Promise<Chain> {
  const db = await freshDatabase();
  let backend: BackendProcess | undefined;
  try {
    backend = await startBackendProcess(db.url, {
      BACKEND_TELEGRAM_BOT_TOKEN: TELEGRAM_BOT_TOKEN,
      BACKEND_VK_APP_SECRET: VK_APP_SECRET,
      PUBLIC_BASE_URL: 'http://gateway.test',
    });
    const edge = await startEdge(backend.url, { sessionCacheMs: 5_000 });
    const operatorToken = await operatorApiToken(db.url, edge.url);
    const started = backend;
    return {
      db,
      backend: started,
      edge,
      operatorToken,
      stop: async () => {
        await edge.close();
        await started.stop();
        await db.drop();
      },
    };
  } catch (err: unknown) {
    await backend?.stop();
    await db.drop();
    throw err;
  }
}

/** A session with no recorded platform (as sessions made before platforms were recorded): untrusted. */
export async function untrustedSession(db: FreshDatabase, accountId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.query(
    `insert into sessions (token_hash, account_id, platform_kind, platform_subtype, expires_at) values ($1, $2, null, null, now() + interval '1 hour')`,
    [createHash('sha256').update(token).digest('hex'), accountId],
  );
  return token;
}
