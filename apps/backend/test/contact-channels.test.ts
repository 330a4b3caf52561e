import type { KyselyPlugin } from 'kysely';
import { contactChannelsOf, markAccountDeleted } from '../src/accounts/index.js';
import type { Database } from '../src/db/database.js';
import { freshMigratedPostgres } from '../src/testing/databases.js';
import { telegramAccount } from './payments-support.js';
import { newAccount } from './support/wallet.js';

/** The contact channels a payment notice reads: both in one statement. */
describe('contact channels of an account', () => {
  let pg: Database;
  let statements = 0;
  const counting: KyselyPlugin = {
    transformQuery(args) {
      statements += 1;
      return args.node;
    },
    transformResult(args) {
      return Promise.resolve(args.result);
    },
  };
  const channelsOf = async (accountId: bigint) => {
    statements = 0;
    const channels = await contactChannelsOf(pg.db.withPlugin(counting), accountId);
    expect(statements).toBe(1);
    return channels;
  };

  beforeAll(async () => {
    pg = await freshMigratedPostgres();
  });
  afterAll(() => pg.close());

  it('has the telegram identity and the confirmed e-mail of an account with both, in one statement', async () => {
    const id = await telegramAccount(pg.db, '81001', { address: 'both@channels.test', confirmed: true });
    expect(await channelsOf(id)).toEqual({ telegramId: '81001', email: 'both@channels.test' });
  });

  it('has neither for an account without an identity whose address is unconfirmed', async () => {
    const id = await newAccount(pg.db, { address: 'unconfirmed@channels.test', confirmed: false });
    expect(await channelsOf(id)).toEqual({ telegramId: undefined, email: undefined });
  });

  it('has each channel alone: a telegram-only account, a mail-only account', async () => {
    const telegramOnly = await telegramAccount(pg.db, '81002');
    expect(await channelsOf(telegramOnly)).toEqual({ telegramId: '81002', email: undefined });
    const mailOnly = await newAccount(pg.db, { address: 'mail-only@channels.test', confirmed: true });
    expect(await channelsOf(mailOnly)).toEqual({ telegramId: undefined, email: 'mail-only@channels.test' });
  });

  it('has neither for a deleted account, nor for an account that does not exist', async () => {
    const id = await telegramAccount(pg.db, '81003', { address: 'deleted@channels.test', confirmed: true });
    await pg.db.transaction().execute((trx) => markAccountDeleted(trx, id, new Date()));
    expect(await channelsOf(id)).toEqual({ telegramId: undefined, email: undefined });
    expect(await channelsOf(id + 1_000_000n)).toEqual({ telegramId: undefined, email: undefined });
  });
});
