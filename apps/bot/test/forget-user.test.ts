import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import Database from 'better-sqlite3';
import { ChatGateRetries, DeadLetters, openBotDb, SupportDialogues } from '../src/store/index.js';
import { command, startBot, type RunningBot } from './support/bot.js';
import { tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { waitFor } from './support/wait.js';

const certs = tempCerts();
let emu: PlatformEmulator;
let gateway: TestGateway;
let bot: RunningBot;
let file: string;
let leaving: number;
let staying: number;

/** An update as the platform sends it, from `userId` in their private chat. */
const messageFrom = (updateId: number, userId: number, extra: Record<string, unknown> = {}) => ({
  update_id: updateId,
  message: {
    message_id: updateId,
    date: 1_900_000_000,
    chat: { id: userId, type: 'private' },
    from: { id: userId, is_bot: false, first_name: 'P' },
    ...extra,
  },
});

/** What the bot's file keeps per user, read through a connection of the test's own. */
function kept(userId: number) {
  const db = new Database(file, { readonly: true });
  try {
    const n = (sqlText: string, ...args: unknown[]) => (db.prepare(sqlText).get(...args) as { n: number }).n;
    return {
      language: n('SELECT COUNT(*) AS n FROM user_languages WHERE user_id = ?', userId),
      retry: n('SELECT COUNT(*) AS n FROM chat_gate_retries WHERE user_id = ?', userId),
      dialogue: n('SELECT COUNT(*) AS n FROM support_dialogues WHERE user_id = ?', userId),
      letters: (db.prepare('SELECT ref, raw FROM dead_letters ORDER BY id').all() as Array<{ ref: string; raw: string }>)
        .filter((l) => l.raw.includes(String(userId)))
        .map((l) => l.ref),
    };
  } finally {
    db.close();
  }
}

/**
 * Every row of every table of the bot's file in which some column's text holds `userId`, as
 * `table: row`: whatever table the bot keeps, a forget must leave nothing of the user but the
 * payments it keeps on purpose.
 */
function rowsNaming(userId: number): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as Array<{
      name: string;
    }>;
    return tables.flatMap(({ name }) => {
      const columns = (db.prepare('SELECT name FROM pragma_table_info(?)').all(name) as Array<{ name: string }>).map((c) => c.name);
      const where = columns.map((c) => `instr(CAST("${c}" AS TEXT), ?) > 0`).join(' OR ');
      const rows = db.prepare(`SELECT * FROM "${name}" WHERE ${where}`).all(...columns.map(() => String(userId)));
      return rows.map((row) => `${name}: ${JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
    });
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
  gateway.handlers = { forwardPayment: () => Promise.resolve({ credited: true }) };
  leaving = emu.control.createUser({ started: true, languageCode: 'ru' }).user.id;
  staying = emu.control.createUser({ started: true, languageCode: 'ru' }).user.id;
  const config = testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot });
  file = config.BOT_OUTBOX_PATH;
  // What an earlier run of the bot left in its file for both users.
  const seed = openBotDb(file);
  const retries = new ChatGateRetries(seed);
  const letters = new DeadLetters(seed);
  const dialogues = new SupportDialogues(seed);
  for (const userId of [leaving, staying]) {
    retries.put({ userId, failures: 2, nextAttemptAt: 4_000_000_000_000, restricted: true });
    dialogues.put({ userId, stage: 'writing', nonce: '0badf00d', chargeIds: ['c1'], chargeId: 'c1', expiresAt: 4_000_000_000_000 });
    letters.park('update', `text-${userId}`, messageFrom(userId % 100_000, userId, { text: 'hello' }), 'handler failed');
  }
  letters.park(
    'update',
    `paid-${leaving}`,
    messageFrom(7, leaving, {
      successful_payment: { currency: 'XTR', total_amount: 5, invoice_payload: 'order-x', telegram_payment_charge_id: 'ch-x' },
    }),
    'handler failed',
  );
  seed.close();
  bot = await startBot(config, gateway);
  // The bot learns each user's language from their messages (the real path).
  for (const userId of [leaving, staying]) emu.control.sendUserMessage({ userId, text: 'hi' });
  await waitFor(() => kept(leaving).language === 1 && kept(staying).language === 1, 'languages learned');
});

afterAll(async () => {
  await bot.app.stop();
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

describe('forget_user', () => {
  it("erases the user's language, chat-gate retry, /paysupport dialogue and parked updates naming them; keeps a parked payment and every other user's entries; acks delivered", async () => {
    expect(kept(leaving)).toEqual({ language: 1, retry: 1, dialogue: 1, letters: [`text-${leaving}`, `paid-${leaving}`] });
    expect(rowsNaming(leaving).map((r) => r.split(':')[0])).toEqual([
      'chat_gate_retries',
      'dead_letters',
      'dead_letters',
      'support_dialogues',
      'user_languages',
    ]);

    const ack = await command(bot.session, { case: 'forgetUser', value: { userId: BigInt(leaving) } });
    expect(ack).toMatchObject({ delivered: true, error: '', result: '' });

    expect(kept(leaving)).toEqual({ language: 0, retry: 0, dialogue: 0, letters: [`paid-${leaving}`] });
    expect(kept(staying)).toEqual({ language: 1, retry: 1, dialogue: 1, letters: [`text-${staying}`] });
    // Nothing else in any table of the file names the user: only the parked payment stays.
    expect(rowsNaming(leaving)).toEqual([expect.stringMatching(/^dead_letters: .*"ref":"paid-/)]);
    expect(bot.lines.find((l) => l.msg === 'user forgotten')).toMatchObject({
      languages: 1,
      chatGateRetries: 1,
      deadLetters: 1,
      supportDialogues: 1,
    });
  });

  it('is idempotent: a repeat (the backend sends until it sees the ack) is delivered and erases nothing more', async () => {
    const again = await command(bot.session, { case: 'forgetUser', value: { userId: BigInt(leaving) } });
    expect(again).toMatchObject({ delivered: true, error: '' });
    expect(kept(staying)).toEqual({ language: 1, retry: 1, dialogue: 1, letters: [`text-${staying}`] });
    expect(kept(leaving)).toEqual({ language: 0, retry: 0, dialogue: 0, letters: [`paid-${leaving}`] });
  });

  it('answers an id that is no platform user id with an error Ack', async () => {
    expect(await command(bot.session, { case: 'forgetUser', value: { userId: 0n } })).toMatchObject({
      delivered: false,
      error: 'user_id must be a platform user id',
    });
  });
});
