import { Code, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { forward, preCheckout } from './payments-support.js';
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
    decodeTable(
      (await intake.resolveChatEligibility({ body: query(platform, externalId) })).body,
      (bb) => fb.ChatEligibility.getRootAsChatEligibility(bb),
      (t) => ({
        registered: t.registered(),
        eligible: t.eligible(),
      }),
    );

  const identity = async (
    externalId: string,
    state: { status?: 'active' | 'suspended' | 'deleted'; suspended_until?: Date | null; chat_muted?: boolean },
  ) => {
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
    expect(await failure(intake.resolveChatEligibility({ body: query('discord', '1') }))).toEqual({
      code: Code.InvalidArgument,
      errorCode: 'invalid_platform',
    });
    expect(await failure(intake.resolveChatEligibility({ body: query('telegram', '') }))).toEqual({
      code: Code.InvalidArgument,
      errorCode: 'invalid_external_id',
    });
  });
});

describe('BotIntakeService as the backend registers it', () => {
  it('answers all three methods: chat eligibility (payments/chat-eligibility/service.ts), pre-checkout and payment intake (payments/stars/intake.ts)', async () => {
    const h = await startHarness({ REAPER_INTERVAL_MS: '0' });
    try {
      const client = h.client(backendApi.BotIntakeService);
      const verdict = await client.resolveChatEligibility({ body: query('telegram', 'nobody') });
      expect(
        decodeTable(
          verdict.body,
          (bb) => fb.ChatEligibility.getRootAsChatEligibility(bb),
          (t) => t.registered(),
        ),
      ).toBe(false);
      const unknownOrder = '00000000-0000-4000-8000-00000000abcd';
      expect(await preCheckout(client, unknownOrder, 5n, 'XTR')).toMatchObject({ ok: false });
      expect(await forward(client, unknownOrder, 'intake-test-charge', 5n)).toBe(false);
    } finally {
      await h.stop();
    }
  });
});
