import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Code, createClient, type Client } from '@connectrpc/connect';
import { connectNodeAdapter, createConnectTransport } from '@connectrpc/connect-node';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { botIntakeService } from '../src/intake/service.js';
import { failure, startHarness, type Harness } from './support/harness.js';
import { newAccount } from './support/wallet.js';

const query = (platform: string, externalId: string) =>
  encodeTable((b) => fb.ChatEligibilityQuery.createChatEligibilityQuery(b, b.createString(platform), b.createString(externalId)));

describe('BotIntakeService.ResolveChatEligibility', () => {
  let h: Harness;
  let intake: Client<typeof backendApi.BotIntakeService>;

  beforeAll(async () => {
    h = await startHarness();
    intake = h.client(backendApi.BotIntakeService);
  });
  afterAll(() => h.stop());

  const eligibility = async (platform: string, externalId: string) =>
    decodeTable((await intake.resolveChatEligibility({ body: query(platform, externalId) })).body, (bb) => fb.ChatEligibility.getRootAsChatEligibility(bb), (t) => ({
      registered: t.registered(),
      eligible: t.eligible(),
    }));

  const identity = async (externalId: string, state: { status?: 'active' | 'suspended' | 'deleted'; suspended_until?: Date | null; chat_muted?: boolean }) => {
    const id = await newAccount(h.database.db);
    await h.database.db.insertInto('platform_identities').values({ account_id: id, kind: 'telegram', external_id: externalId }).execute();
    if (Object.keys(state).length > 0) await h.database.db.updateTable('accounts').set(state).where('id', '=', id).execute();
  };

  it.each<[string, Parameters<typeof identity>[1], boolean]>([
    ['active', {}, true],
    ['suspended without end', { status: 'suspended', suspended_until: null }, false],
    ['suspended until later', { status: 'suspended', suspended_until: new Date(Date.now() + 3_600_000) }, false],
    ['suspension lapsed', { status: 'suspended', suspended_until: new Date(Date.now() - 1_000) }, true],
    ['chat-muted', { chat_muted: true }, false],
    ['deleted', { status: 'deleted' }, false],
  ])('%s', async (label, state, eligible) => {
    const externalId = `ext-${label.replace(/\W/g, '-')}`;
    await identity(externalId, state);
    expect(await eligibility('telegram', externalId)).toEqual({ registered: true, eligible });
    expect(await eligibility('vk', externalId)).toEqual({ registered: false, eligible: false });
  });

  it('an unknown identity is neither registered nor eligible; bad input is InvalidArgument', async () => {
    expect(await eligibility('telegram', '404')).toEqual({ registered: false, eligible: false });
    expect(await failure(intake.resolveChatEligibility({ body: query('discord', '1') }))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_platform' });
    expect(await failure(intake.resolveChatEligibility({ body: query('telegram', '') }))).toEqual({ code: Code.InvalidArgument, errorCode: 'invalid_external_id' });
  });
});

describe('a partial BotIntakeService implementation', () => {
  it('is accepted by connect-es, which answers Unimplemented for the methods left out', async () => {
    const h = await startHarness();
    const server = http2.createServer(connectNodeAdapter({ routes: (router) => void router.service(backendApi.BotIntakeService, botIntakeService(h.database.db)) }));
    const sessions = new Set<http2.ServerHttp2Session>();
    server.on('session', (session: http2.ServerHttp2Session) => sessions.add(session));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const client = createClient(backendApi.BotIntakeService, createConnectTransport({ baseUrl: `http://127.0.0.1:${port}`, httpVersion: '2' }));
      const verdict = await client.resolveChatEligibility({ body: query('telegram', 'nobody') });
      expect(decodeTable(verdict.body, (bb) => fb.ChatEligibility.getRootAsChatEligibility(bb), (t) => t.registered())).toBe(false);
      const preCheckout = encodeTable((b) => fb.PreCheckoutQuery.createPreCheckoutQuery(b, b.createString('order'), 5n, b.createString('XTR')));
      expect((await failure(client.validatePreCheckout({ body: preCheckout }))).code).toBe(Code.Unimplemented);
      const payment = encodeTable((b) => fb.PlatformPayment.createPlatformPayment(b, b.createString('o'), b.createString('c'), 5n, 1n, b.createString('telegram')));
      expect((await failure(client.forwardPayment({ body: payment }))).code).toBe(Code.Unimplemented);
    } finally {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await h.stop();
    }
  });
});
