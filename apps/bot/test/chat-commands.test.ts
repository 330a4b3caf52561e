import { Code, ConnectError } from '@connectrpc/connect';
import type { InlineKeyboardMarkup } from '@grammyjs/types';
import { connector, type botlink } from '@wordgame/contracts';
import { join } from 'node:path';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { openBotDb, SupportDialogues } from '../src/store/index.js';
import { command, startBot, type RunningBot } from './support/bot.js';
import { POLICY_LINKS, tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { waitFor } from './support/wait.js';

const certs = tempCerts();
const MINI_APP = 'https://wallet.wordgame.example/app';
let emu: PlatformEmulator;
let gateway: TestGateway;
/** Every ListStarCharges and OpenSupportCase request the gateway got. */
let listed: botlink.StarChargesRequest[];
let opened: botlink.OpenSupportCaseRequest[];

const CHARGES = [
  {
    orderId: 'ord-2',
    platformPaymentChargeId: 'stxNEWERcharge0000000000000000000000000000000000000000000000000000000002',
    productTitle: 'Сундук фишек',
    amount: 250n,
    paidUnix: 1_790_000_000n,
    state: 'checking',
  },
  {
    orderId: 'ord-1',
    platformPaymentChargeId: 'stxOLDERcharge1',
    productTitle: 'Мешок фишек',
    amount: 50n,
    paidUnix: 1_780_000_000n,
    state: 'refunded',
  },
];

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
});

afterAll(async () => {
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

/** The gateway answers both support RPCs (the case id names the request's position). */
function supportAnswers(): void {
  listed = [];
  opened = [];
  gateway.handlers = {
    listStarCharges: (req) => {
      listed.push(req);
      return Promise.resolve({ charges: CHARGES });
    },
    openSupportCase: (req) => {
      opened.push(req);
      return Promise.resolve({ caseId: `case-${opened.length}` });
    },
  };
}

const sentTo = (userId: number) => emu.control.messages({ chatId: userId, direction: 'from_bot' });
const textsTo = (userId: number) => sentTo(userId).map((m) => m.message.text);

/** Waits until the bot has sent `n` messages to the chat and returns the last. */
async function nthMessage(chatId: number, n: number) {
  await waitFor(() => sentTo(chatId).length >= n, `bot message #${n} in chat ${chatId}`);
  return sentTo(chatId)[n - 1]!;
}

async function health(bot: RunningBot): Promise<Record<string, unknown>> {
  const res = await fetch(`${bot.healthUrl ?? ''}/health`);
  return (await res.json()) as Record<string, unknown>;
}

function countOf(report: Record<string, unknown>, input: string, outcome: string): number {
  const series = report['chatCommands'] as { input: string; outcome: string; count: number }[];
  return series.find((s) => s.input === input && s.outcome === outcome)?.count ?? 0;
}

describe('the command menu at start', () => {
  it('registers start, paysupport, privacy and terms for the default scope (English), en and ru, and the Mini App menu button; a failure is retried', async () => {
    emu.control.reset();
    emu.control.addFault({ method: 'setMyCommands', status: 500, times: 1 });
    const bot = await startBot(
      testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOT_MINI_APP_URL: MINI_APP, BOT_HEALTH_PORT: '0' }),
      gateway,
    );
    try {
      await waitFor(() => emu.control.commandMenu().menuButtons.length > 0, 'menu button set', 20_000);
      const menu = emu.control.commandMenu();
      const names = (language: string) => menu.commands.find((c) => c.languageCode === language)?.commands.map((c) => c.command);
      expect(names('')).toEqual(['start', 'paysupport', 'privacy', 'terms']);
      expect(names('en')).toEqual(['start', 'paysupport', 'privacy', 'terms']);
      expect(names('ru')).toEqual(['start', 'paysupport', 'privacy', 'terms']);
      expect(menu.commands.every((c) => c.scope === 'default')).toBe(true);
      expect(menu.commands.find((c) => c.languageCode === 'ru')?.commands[2]?.description).toBe('Политика конфиденциальности');
      expect(menu.commands.find((c) => c.languageCode === '')?.commands[2]?.description).toBe('Privacy policy');
      expect(menu.menuButtons).toEqual([
        { chat: 'default', button: { type: 'web_app', text: 'Open the game', web_app: { url: MINI_APP } } },
      ]);
      expect(emu.control.calls('setMyCommands').map((c) => c.status)).toEqual([500, 200, 200, 200]);
      expect((await health(bot))['commandMenuRegistered']).toBe(true);
      expect(bot.lines.some((l) => l.msg === 'chat command menu not registered; trying again later')).toBe(true);
    } finally {
      await bot.app.stop();
    }
  });

  it('sets no menu button without BOT_MINI_APP_URL', async () => {
    emu.control.reset();
    const bot = await startBot(testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOT_HEALTH_PORT: '0' }), gateway);
    try {
      await waitFor(() => emu.control.commandMenu().commands.length === 3, 'three command lists');
      await waitFor(() => bot.lines.some((l) => l.msg === 'chat command menu registered'), 'registration logged');
      expect(emu.control.calls('setChatMenuButton')).toEqual([]);
    } finally {
      await bot.app.stop();
    }
  });
});

describe('chat commands', () => {
  let bot: RunningBot;
  beforeAll(async () => {
    emu.control.reset();
    bot = await startBot(
      testConfig(
        certs,
        { botlink: gateway.url, platform: emu.apiRoot },
        {
          BOT_MINI_APP_URL: MINI_APP,
          BOT_HEALTH_PORT: '0',
          BOT_HEALTH_INTERVAL_MS: '200',
          BOT_CHAT_SEND_GAP_MS: '0',
          BOT_COMMAND_RATE_LIMIT: '10',
        },
      ),
      gateway,
    );
    await waitFor(() => emu.control.state().bots[0]?.polling === true, 'bot polling');
  });
  afterAll(async () => {
    await bot.app.stop();
  });
  beforeEach(supportAnswers);

  it('/start welcomes in the sender language with a web_app button opening the Mini App', async () => {
    const ru = emu.control.createUser({ languageCode: 'ru' }).user.id;
    const en = emu.control.createUser({ languageCode: 'en-GB' }).user.id;
    emu.control.sendUserMessage({ userId: ru, text: '/start' });
    emu.control.sendUserMessage({ userId: en, text: '/start' });
    const toRu = await nthMessage(ru, 1);
    const toEn = await nthMessage(en, 1);
    expect(toRu.message.text).toMatch(/^Добро пожаловать/);
    expect(toEn.message.text).toMatch(/^Welcome to Word Game/);
    expect(toRu.message.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Открыть игру', web_app: { url: MINI_APP } }]] });
    expect(toEn.message.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Open the game', web_app: { url: MINI_APP } }]] });
  });

  it('/privacy and /terms answer the configured links; /cmd@ThisBot counts, a command for another bot or an unaddressed one in a group does not', async () => {
    const ru = emu.control.createUser({ languageCode: 'ru' }).user.id;
    emu.control.sendUserMessage({ userId: ru, text: '/privacy' });
    await nthMessage(ru, 1);
    emu.control.sendUserMessage({ userId: ru, text: '/terms@other_bot' });
    emu.control.sendUserMessage({ userId: ru, text: '/terms@Emulator_Bot' });
    await nthMessage(ru, 2);
    expect(textsTo(ru)).toEqual([
      `Наша политика конфиденциальности: ${POLICY_LINKS.PRIVACY_POLICY_URL}`,
      `Наши условия использования: ${POLICY_LINKS.TERMS_OF_SERVICE_URL}`,
    ]);

    const group = emu.control.createChat({ type: 'supergroup', title: 'Players' }).id;
    const en = emu.control.createUser({ languageCode: 'en' }).user.id;
    emu.control.join({ chatId: group, userId: en });
    emu.control.sendUserMessage({ userId: en, chatId: group, text: '/terms' });
    emu.control.sendUserMessage({ userId: en, chatId: group, text: '/privacy@emulator_bot' });
    emu.control.sendUserMessage({ userId: en, chatId: group, text: '/start@emulator_bot' });
    await nthMessage(group, 2);
    expect(sentTo(group).map((m) => m.message.text)).toEqual([
      `Our privacy policy: ${POLICY_LINKS.PRIVACY_POLICY_URL}`,
      expect.stringMatching(/^Welcome/) as string,
    ]);
    // web_app buttons exist only in private chats: a group gets a link button.
    expect(sentTo(group)[1]?.message.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Open the game', url: MINI_APP }]] });
  });

  it('/paysupport lists the sender charges and opens a case about the one pressed with the next message; a text over 1000 characters is refused', async () => {
    const user = emu.control.createUser({ languageCode: 'ru' }).user.id;
    emu.control.sendUserMessage({ userId: user, text: '/paysupport 12345' });
    const list = await nthMessage(user, 1);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ platformUserId: BigInt(user), language: 'ru' });
    const text = list.message.text;
    expect(text).toContain(`1. Сундук фишек: 250 ★, 2026-09-21, проверяется. Платёж ${CHARGES[0]!.platformPaymentChargeId}`);
    expect(text).toContain('2. Мешок фишек: 50 ★, 2026-05-28, возвращено. Платёж stxOLDERcharge1');
    const keyboard = (list.message.reply_markup as InlineKeyboardMarkup).inline_keyboard;
    expect(keyboard.map((row) => row.map((b) => b.text))).toEqual([['О покупке 1'], ['О покупке 2'], ['Другое']]);
    const data = keyboard.map((row) => (row[0] as { callback_data: string }).callback_data);
    for (const d of data) expect(Buffer.byteLength(d)).toBeLessThanOrEqual(64);

    const { callbackQueryId } = emu.control.pressButton({ userId: user, messageId: list.message.message_id, data: data[0]! });
    const ask = await nthMessage(user, 2);
    expect(emu.control.callbackQuery(callbackQueryId)?.answeredAt).toBeDefined();
    expect(ask.message.text).toContain(CHARGES[0]!.platformPaymentChargeId);

    emu.control.sendUserMessage({ userId: user, text: 'ж'.repeat(1001) });
    expect((await nthMessage(user, 3)).message.text).toBe('В сообщении 1001 символов; пожалуйста, уложитесь в 1000 и отправьте снова.');
    expect(opened).toEqual([]);

    const words = '  Звёзды списаны, а фишки не пришли. <b>not markup</b>  ';
    emu.control.sendUserMessage({ userId: user, text: words });
    const done = await nthMessage(user, 4);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({
      platformUserId: BigInt(user),
      platformPaymentChargeId: CHARGES[0]!.platformPaymentChargeId,
      text: words.trim(),
      language: 'ru',
    });
    expect(done.message.text).toBe('Спасибо. Обращение case-1 открыто; мы ответим вам здесь.');

    // The dialogue is over: the next message is ordinary chatter and opens nothing.
    emu.control.sendUserMessage({ userId: user, text: 'thanks!' });
    emu.control.sendUserMessage({ userId: user, text: '/privacy' });
    await nthMessage(user, 5);
    expect(opened).toHaveLength(1);
  });

  it('"something else" opens a case in general; exactly 1000 characters are accepted', async () => {
    const user = emu.control.createUser({ languageCode: 'en' }).user.id;
    emu.control.sendUserMessage({ userId: user, text: '/paysupport' });
    const list = await nthMessage(user, 1);
    const rows = (list.message.reply_markup as InlineKeyboardMarkup).inline_keyboard;
    const other = rows[rows.length - 1]![0] as { text: string; callback_data: string };
    expect(other.text).toBe('Something else');
    emu.control.pressButton({ userId: user, messageId: list.message.message_id, data: other.callback_data });
    expect((await nthMessage(user, 2)).message.text).toBe('Describe your question in one message, up to 1000 characters.');
    emu.control.sendUserMessage({ userId: user, text: '€'.repeat(1000) });
    expect((await nthMessage(user, 3)).message.text).toBe('Thank you. Your support case case-1 is open; we will answer you here.');
    expect(opened[0]).toMatchObject({ platformPaymentChargeId: '', text: '€'.repeat(1000), language: 'en' });
  });

  it('hostile button data (garbled, another user list, a stale list) gets a clear answer and a count, never a case', async () => {
    const mallory = emu.control.createUser({ languageCode: 'en' }).user.id;
    const victim = emu.control.createUser({ languageCode: 'en' }).user.id;
    emu.control.sendUserMessage({ userId: victim, text: '/paysupport' });
    const victimList = await nthMessage(victim, 1);
    const victimData = ((victimList.message.reply_markup as InlineKeyboardMarkup).inline_keyboard[0]![0] as { callback_data: string })
      .callback_data;
    emu.control.sendUserMessage({ userId: mallory, text: '/paysupport' });
    const list = await nthMessage(mallory, 1);
    const before = await health(bot);

    const presses = ['garbage', 'ps:zzzzzzzz:0', `${victimData}`, 'ps:00000000:g', '\u0000\u0001'.repeat(20), 'ps:deadbeef:9'];
    const ids = presses.map(
      (data) => emu.control.pressButton({ userId: mallory, messageId: list.message.message_id, data }).callbackQueryId,
    );
    await waitFor(() => ids.every((id) => emu.control.callbackQuery(id)?.answeredAt !== undefined), 'every press answered');
    const answers = ids.map((id) => emu.control.callbackQuery(id)?.answer?.text);
    expect(answers).toEqual([
      'I did not understand that button. Send /paysupport to start again.',
      'I did not understand that button. Send /paysupport to start again.',
      'That list has expired. Send /paysupport to see your purchases again.',
      'That list has expired. Send /paysupport to see your purchases again.',
      'I did not understand that button. Send /paysupport to start again.',
      'That list has expired. Send /paysupport to see your purchases again.',
    ]);
    const after = await health(bot);
    expect(countOf(after, 'support_button', 'invalid') - countOf(before, 'support_button', 'invalid')).toBe(6);

    // An index past the list is refused too (a press with this list's own tag).
    const own = ((list.message.reply_markup as InlineKeyboardMarkup).inline_keyboard[0]![0] as { callback_data: string }).callback_data;
    const past = emu.control.pressButton({ userId: mallory, messageId: list.message.message_id, data: own.replace(/:0$/, ':7') });
    await waitFor(() => emu.control.callbackQuery(past.callbackQueryId)?.answeredAt !== undefined, 'press past the list answered');
    expect(emu.control.callbackQuery(past.callbackQueryId)?.answer?.text).toMatch(/did not understand/);

    emu.control.sendUserMessage({ userId: mallory, text: 'this is not a case' });
    emu.control.sendUserMessage({ userId: mallory, text: '/terms' });
    await nthMessage(mallory, 2);
    expect(opened).toEqual([]);
    expect(textsTo(mallory)[1]).toMatch(/terms of service/);
  });

  it('an unreachable gateway or backend gets a polite answer and a count', async () => {
    const user = emu.control.createUser({ languageCode: 'en' }).user.id;
    gateway.handlers = { listStarCharges: () => Promise.reject(new ConnectError('backend down', Code.Unavailable)) };
    const before = countOf(await health(bot), 'paysupport', 'unavailable');
    emu.control.sendUserMessage({ userId: user, text: '/paysupport' });
    expect((await nthMessage(user, 1)).message.text).toBe('Sorry, support cannot be reached right now. Please try again in a few minutes.');
    expect(countOf(await health(bot), 'paysupport', 'unavailable')).toBe(before + 1);

    supportAnswers();
    gateway.handlers.openSupportCase = () => Promise.reject(new ConnectError('backend down', Code.Unavailable));
    emu.control.sendUserMessage({ userId: user, text: '/paysupport' });
    const list = await nthMessage(user, 2);
    const data = ((list.message.reply_markup as InlineKeyboardMarkup).inline_keyboard[0]![0] as { callback_data: string }).callback_data;
    emu.control.pressButton({ userId: user, messageId: list.message.message_id, data });
    await nthMessage(user, 3);
    emu.control.sendUserMessage({ userId: user, text: 'my stars are gone' });
    expect((await nthMessage(user, 4)).message.text).toMatch(/^Sorry, support cannot be reached/);
    expect(countOf(await health(bot), 'support_text', 'unavailable')).toBeGreaterThanOrEqual(1);

    // Once the backend answers, the same dialogue's next message opens the case.
    supportAnswers();
    emu.control.sendUserMessage({ userId: user, text: 'my stars are gone' });
    expect((await nthMessage(user, 5)).message.text).toMatch(/case-1/);
  });

  it('reports the chat commands to the gateway as Health deltas (the additive chat_commands), each counted once', async () => {
    const reported = (input: string, outcome: string): bigint =>
      bot.session
        .healths()
        .flatMap((h) => h.chatCommands)
        .filter((c) => c.input === input && c.outcome === outcome)
        .reduce((sum, c) => sum + c.count, 0n);
    const local = countOf(await health(bot), 'terms', 'answered');
    await waitFor(() => reported('terms', 'answered') === BigInt(local), 'earlier terms answers reported');
    const user = emu.control.createUser().user.id;
    emu.control.sendUserMessage({ userId: user, text: '/terms' });
    emu.control.sendUserMessage({ userId: user, text: '/nosuchcommand' });
    await nthMessage(user, 2);
    await waitFor(() => reported('terms', 'answered') === BigInt(local + 1), 'the new answer reported');
    await waitFor(() => reported('unknown', 'answered') >= 1n, 'the unknown command reported');
    expect(sentTo(user)[1]?.message.text).toBe('I know these commands: /start, /paysupport, /privacy, /terms.');
    const healthsBefore = bot.session.healths().length;
    await waitFor(() => bot.session.healths().length >= healthsBefore + 3, 'three more reports');
    expect(reported('terms', 'answered')).toBe(BigInt(local + 1));
  });

  it('a user spamming commands gets one "slow down" per window, then silence, counted', async () => {
    const user = emu.control.createUser({ languageCode: 'en' }).user.id;
    const before = await health(bot);
    for (let i = 0; i < 14; i += 1) emu.control.sendUserMessage({ userId: user, text: '/privacy' });
    await waitForHealth(bot, (h) => Number(h['chatCommandsRateLimited']) - Number(before['chatCommandsRateLimited']) === 4);
    expect(textsTo(user)).toEqual([
      ...Array<string>(10).fill(`Our privacy policy: ${POLICY_LINKS.PRIVACY_POLICY_URL}`),
      'Too many requests at once. Please wait a minute.',
    ]);
    const after = await health(bot);
    expect(countOf(after, 'privacy', 'rate_limited') - countOf(before, 'privacy', 'rate_limited')).toBe(4);
    expect(countOf(after, 'privacy', 'answered') - countOf(before, 'privacy', 'answered')).toBe(10);
  });
});

describe('the pending /paysupport dialogue', () => {
  it('outlives a restart of the bot: the text sent to the next process opens the case about the pressed charge', async () => {
    emu.control.reset();
    supportAnswers();
    const file = join(certs.dir, 'dialogue-restart.sqlite');
    const config = testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOT_OUTBOX_PATH: file, BOT_CHAT_SEND_GAP_MS: '0' });
    const first = await startBot(config, gateway);
    const user = emu.control.createUser({ languageCode: 'en' }).user.id;
    try {
      emu.control.sendUserMessage({ userId: user, text: '/paysupport' });
      const list = await nthMessage(user, 1);
      const rows = (list.message.reply_markup as InlineKeyboardMarkup).inline_keyboard;
      const second = (rows[1]![0] as { callback_data: string }).callback_data;
      emu.control.pressButton({ userId: user, messageId: list.message.message_id, data: second });
      await nthMessage(user, 2);
    } finally {
      await first.app.stop();
    }
    const next = await startBot(config, gateway);
    try {
      emu.control.sendUserMessage({ userId: user, text: 'refunded but the chips stayed?' });
      expect((await nthMessage(user, 3)).message.text).toMatch(/case-1/);
      expect(opened[0]).toMatchObject({ platformPaymentChargeId: 'stxOLDERcharge1', text: 'refunded but the chips stayed?' });
    } finally {
      await next.app.stop();
    }
  });

  it('is kept in the bot file only until its window ends (expired dialogues are not returned and are pruned)', () => {
    let now = 1_000_000;
    const db = openBotDb(join(certs.dir, `dialogues-${now}.sqlite`));
    try {
      const dialogues = new SupportDialogues(db, () => now);
      dialogues.put({ userId: 7, stage: 'writing', nonce: '0badf00d', chargeIds: ['c1'], chargeId: 'c1', expiresAt: now + 600_000 });
      expect(dialogues.get(7)).toMatchObject({ stage: 'writing', chargeId: 'c1', chargeIds: ['c1'] });
      expect(dialogues.get(8)).toBeUndefined();
      now += 600_000;
      expect(dialogues.get(7)).toBeUndefined();
      expect(dialogues.prune()).toBe(1);
      expect(db.prepare('SELECT COUNT(*) AS n FROM support_dialogues').get()).toEqual({ n: 0n });
    } finally {
      db.close();
    }
  });
});

describe('per-chat pacing', () => {
  it('spaces the answers to one chat at least BOT_CHAT_SEND_GAP_MS apart', async () => {
    emu.control.reset();
    const bot = await startBot(
      testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOT_CHAT_SEND_GAP_MS: '1500' }),
      gateway,
    );
    try {
      await waitFor(() => emu.control.state().bots[0]?.polling === true, 'bot polling');
      const user = emu.control.createUser().user.id;
      for (const text of ['/start', '/privacy', '/terms']) emu.control.sendUserMessage({ userId: user, text });
      await nthMessage(user, 3);
      const times = emu.control
        .calls('sendMessage')
        .filter((c) => c.params['chat_id'] === user)
        .map((c) => Date.parse(c.at));
      expect(times).toHaveLength(3);
      // Lower bounds only: a loaded machine makes the gaps longer, never shorter.
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1_000);
      expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(1_000);
    } finally {
      await bot.app.stop();
    }
  });
});

describe('one pace per chat for everything the bot sends there', () => {
  it('after a support reply (send_to_user, sent at once under its Ack deadline) the command answers to that chat wait BOT_CHAT_SEND_GAP_MS', async () => {
    emu.control.reset();
    const bot = await startBot(
      testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOT_CHAT_SEND_GAP_MS: '1500' }),
      gateway,
    );
    try {
      await waitFor(() => emu.control.state().bots[0]?.polling === true, 'bot polling');
      const user = emu.control.createUser({ languageCode: 'en', started: true }).user.id;
      const recipient = { kind: connector.PlatformKind.TELEGRAM, externalId: String(user) };
      const reply = 'Support case C-AAAAAA: we are on it';
      expect(await command(bot.session, { case: 'sendToUser', value: { recipient, text: reply } })).toMatchObject({
        delivered: true,
        error: '',
      });
      emu.control.sendUserMessage({ userId: user, text: '/privacy' });
      emu.control.sendUserMessage({ userId: user, text: '/terms' });
      await nthMessage(user, 3);
      const sends = emu.control
        .calls('sendMessage')
        .filter((c) => c.params['chat_id'] === user && c.status === 200)
        .map((c) => ({ text: String(c.params['text']), at: Date.parse(c.at) }))
        .sort((a, b) => a.at - b.at);
      expect(sends.map((c) => c.text)).toEqual([
        reply,
        expect.stringMatching(/^Our privacy policy/) as string,
        expect.stringMatching(/terms of service/) as string,
      ]);
      // Lower bounds only: a loaded machine makes the gaps longer, never shorter.
      expect(sends[1]!.at - sends[0]!.at).toBeGreaterThanOrEqual(1_000);
      expect(sends[2]!.at - sends[1]!.at).toBeGreaterThanOrEqual(1_000);
    } finally {
      await bot.app.stop();
    }
  });
});

async function waitForHealth(bot: RunningBot, condition: (report: Record<string, unknown>) => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (condition(await health(bot))) return;
    if (Date.now() > deadline) throw new Error('timed out waiting for the health report');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
