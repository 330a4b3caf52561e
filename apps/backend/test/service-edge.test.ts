import http2 from 'node:http2';
import { resolve } from 'node:path';
import { create, toBinary } from '@bufbuild/protobuf';
import { backendApi, encodeTable, fb } from '@wordgame/contracts';
import {
  floodRequest,
  freshDatabase,
  rssBytes,
  startChildService,
  TEST_SERVICE_TOKENS,
  type ChildService,
  type FreshDatabase,
} from '@wordgame/testkit';
import { startHarness, type Harness } from './support/harness.js';
import { newAccount } from './support/wallet.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const TOKEN = TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN;
const DELETE_PATH = '/backend.v1.SocialService/DeleteAccount';
const MiB = 1024 * 1024;

/** The protobuf envelope of a DeleteAccount request (its FlatBuffers body inside). */
function deleteBody(): Buffer {
  const body = encodeTable((b) => fb.AccountDeletion.createAccountDeletion(b));
  return Buffer.from(toBinary(backendApi.DeleteAccountRequestSchema, create(backendApi.DeleteAccountRequestSchema, { body })));
}

/** One raw HTTP/2 unary call; answers status and body text. */
async function rawCall(
  url: string,
  path: string,
  headers: http2.OutgoingHttpHeaders,
  body: Buffer,
): Promise<{ status: number; text: string }> {
  const session = http2.connect(url);
  try {
    return await new Promise((done, fail) => {
      const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/proto', ...headers });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => done({ status, text: Buffer.concat(chunks).toString('utf8') }));
      stream.on('error', fail);
      stream.end(body);
    });
  } finally {
    session.close();
  }
}

describe('backend service edge: only the gateway may call, and it may not flood', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ REAPER_INTERVAL_MS: '0', MODERATION_LAPSE_INTERVAL_MS: '0' });
  });
  afterAll(() => h.stop());

  const deletedAt = async (id: bigint) =>
    (await h.database.db.selectFrom('accounts').select('deleted_at').where('id', '=', id).executeTakeFirstOrThrow()).deleted_at;

  it('refuses X-Account-Id without the service token or with a wrong one (Unauthenticated, nothing acted on); with it the call acts', async () => {
    const id = await newAccount(h.database.db);
    const caller = { 'x-account-id': String(id), 'x-platform': 'direct;web' };
    for (const auth of [
      {},
      { authorization: 'Bearer wrong-token-of-the-right-length-0123456789' },
      { authorization: TOKEN },
      { authorization: `Bearer ${TOKEN}x` },
    ]) {
      const res = await rawCall(h.url, DELETE_PATH, { ...caller, ...auth }, deleteBody());
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text)).toMatchObject({ code: 'unauthenticated' });
    }
    // HTTP/1.1 and JSON go through connect-node, not the fast path: refused the same way.
    const h1 = await fetch(`${h.url}${DELETE_PATH}`, {
      method: 'POST',
      headers: { ...caller, 'content-type': 'application/json' },
      body: '{"body":""}',
    });
    expect(h1.status).toBe(401);
    expect(await h1.json()).toMatchObject({ code: 'unauthenticated' });
    expect(await deletedAt(id)).toBeNull();

    const ok = await rawCall(h.url, DELETE_PATH, { ...caller, authorization: `Bearer ${TOKEN}` }, deleteBody());
    expect(ok.status).toBe(200);
    expect(await deletedAt(id)).not.toBeNull();
  });

  it('keeps GET /health open for readiness probes, and only that', async () => {
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
    expect((await fetch(`${h.url}/nope`)).status).toBe(401);
  });
});

describe('backend request size limit (a child process, its RSS measured)', () => {
  let backend: ChildService;
  let url: string;
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase('edge');
    backend = await startChildService(
      ROOT,
      'apps/backend/src/main.ts',
      {
        ...TEST_SERVICE_TOKENS,
        BACKEND_PORT: '0',
        BACKEND_METRICS_PORT: '0',
        DATABASE_URL: database.url,
        LOG_LEVEL: 'info',
        REAPER_INTERVAL_MS: '0',
        MODERATION_LAPSE_INTERVAL_MS: '0',
        STAR_REFUND_INTERVAL_MS: '0',
      },
      (line) => line['msg'] === 'backend listening',
    );
    url = String(backend.ready['url']);
  }, 90_000);
  afterAll(async () => {
    await backend?.stop();
    await database?.drop();
  });

  it('refuses a 100 MiB body early on the fast path, through connect-node and without a token, with RSS bounded', async () => {
    const before = rssBytes(backend.pid);
    let peak = before;
    const sample = setInterval(() => (peak = Math.max(peak, rssBytes(backend.pid))), 50);
    try {
      const auth = { authorization: `Bearer ${TOKEN}` };
      const fast = await floodRequest(url, { ':path': DELETE_PATH, 'content-type': 'application/proto', ...auth }, 100 * MiB);
      const adapter = await floodRequest(url, { ':path': DELETE_PATH, 'content-type': 'application/json', ...auth }, 100 * MiB);
      const stranger = await floodRequest(url, { ':path': DELETE_PATH, 'content-type': 'application/proto' }, 100 * MiB);
      for (const result of [fast, adapter, stranger]) {
        expect(result.stalled).toBe(false);
        expect(result.sent).toBeLessThan(16 * MiB);
      }
      expect(fast.status).toBe(429); // ResourceExhausted
      expect(adapter.status).toBe(429);
      expect(stranger.status).toBe(401);
      expect((await fetch(`${url}/health`)).status).toBe(200);
    } finally {
      clearInterval(sample);
    }
    expect(peak - before).toBeLessThan(64 * MiB);
  }, 120_000);
});
