import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { ALREADY_REFUNDED } from '../src/commands/refund-star-payment.js';
import { command, startBot, type RunningBot } from './support/bot.js';
import { tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { waitFor } from './support/wait.js';

const certs = tempCerts();
let emu: PlatformEmulator;
let gateway: TestGateway;
let bot: RunningBot;

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
  gateway.handlers = {
    validatePreCheckout: () => Promise.resolve({ ok: true, reason: '' }),
    forwardPayment: () => Promise.resolve({ credited: false }),
  };
  bot = await startBot(testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOT_HEALTH_INTERVAL_MS: '100' }), gateway);
});

afterAll(async () => {
  await bot.app.stop();
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

beforeEach(() => emu.control.reset());

/** A stars payment made through the bot (invoice, approved pre-checkout); its charge id and payer. */
async function paid(amount: bigint): Promise<{ platformChargeId: string; userId: bigint }> {
  const invoice = await command(bot.session, {
    case: 'createInvoice',
    value: { title: 'Chips', description: '500 chips', payload: `order-${amount}`, amount },
  });
  const userId = emu.control.createUser({ started: true }).user.id;
  const { preCheckoutQueryId } = emu.control.pay({ link: invoice.result, userId });
  let platformChargeId: string | undefined;
  await waitFor(
    () => (platformChargeId = emu.control.preCheckout(preCheckoutQueryId)?.payment?.telegramPaymentChargeId) !== undefined,
    'payment',
  );
  return { platformChargeId: platformChargeId ?? '', userId: BigInt(userId) };
}

const refund = (userId: bigint, platformPaymentChargeId: string) =>
  command(bot.session, { case: 'refundStarPayment', value: { userId, platformPaymentChargeId } });
const refundCalls = () => emu.control.calls('refundStarPayment');
const reportedApiErrors = () => gateway.sessions.flatMap((s) => s.healths()).reduce((sum, h) => sum + h.apiErrors, 0n);

describe('refund_star_payment', () => {
  it('refunds through the platform with {user_id, telegram_payment_charge_id}: delivered, empty result, stars back once', async () => {
    const { platformChargeId, userId } = await paid(250n);
    const ack = await refund(userId, platformChargeId);
    expect(ack).toMatchObject({ delivered: true, error: '', result: '' });
    expect(refundCalls().map((c) => c.params)).toEqual([{ user_id: Number(userId), telegram_payment_charge_id: platformChargeId }]);
    expect(emu.control.starRefunds()).toEqual([
      expect.objectContaining({ telegramPaymentChargeId: platformChargeId, userId: Number(userId), totalAmount: 250 }),
    ]);
    const logged = bot.lines.find((l) => l.msg === 'star payment refunded' && l['commandId'] === ack.commandId);
    expect(logged).toMatchObject({ platformChargeId, command: 'refundStarPayment' });
  });

  it('acks a repeated refund of the same charge as delivered with result already_refunded, and pays nothing twice', async () => {
    const { platformChargeId, userId } = await paid(40n);
    expect(await refund(userId, platformChargeId)).toMatchObject({ delivered: true, result: '' });
    const again = await refund(userId, platformChargeId);
    expect(again).toMatchObject({ delivered: true, error: '', result: ALREADY_REFUNDED });
    expect(ALREADY_REFUNDED).toBe('already_refunded');
    expect(refundCalls().map((c) => c.description)).toEqual([undefined, 'Bad Request: CHARGE_ALREADY_REFUNDED']);
    expect(emu.control.starRefunds()).toHaveLength(1);
  });

  it("sets error with the platform's status and description for a charge it does not know or that is not the user's", async () => {
    const { platformChargeId, userId } = await paid(10n);
    const unknown = await refund(userId, 'stxNoSuchCharge');
    expect(unknown).toMatchObject({ delivered: false, result: '', error: 'platform 400: Bad Request: CHARGE_NOT_FOUND' });
    const stranger = BigInt(emu.control.createUser().user.id);
    expect(await refund(stranger, platformChargeId)).toMatchObject({
      delivered: false,
      error: 'platform 400: Bad Request: CHARGE_NOT_FOUND',
    });
    expect(emu.control.starRefunds()).toEqual([]);
    expect(bot.lines.some((l) => l.msg === 'star refund failed' && l['commandId'] === unknown.commandId)).toBe(true);
  });

  it.each([
    ['user id 0', 0n, 'stx1', /user_id must be a positive/],
    ['a negative user id', -7n, 'stx1', /user_id must be a positive/],
    ['a user id above 2^53-1', 2n ** 53n, 'stx1', /at most 2\^53-1/],
    ['an empty charge id', 5n, '', /1\.\.256 characters/],
    ['a charge id of 257 characters', 5n, 'x'.repeat(257), /1\.\.256 characters/],
    ['a charge id with a newline', 5n, 'stx1\nstx2', /control characters/],
    ['a charge id with a NUL', 5n, 'stx\u0000', /control characters/],
  ])('refuses %s with an error Ack and no platform call', async (_case, userId, platformChargeId, error) => {
    const ack = await refund(userId, platformChargeId);
    expect(ack.delivered).toBe(false);
    expect(ack.error).toMatch(error);
    expect(refundCalls()).toHaveLength(0);
  });

  it('accepts the largest safe user id and a charge id of exactly 256 characters (the platform then decides)', async () => {
    const ack = await refund(2n ** 53n - 1n, 'é'.repeat(256));
    expect(ack.error).toBe('platform 400: Bad Request: CHARGE_NOT_FOUND');
    expect(refundCalls()).toHaveLength(1);
  });

  it.each([
    ['a 5xx', { status: 502 }, /^platform 502: /],
    ['a dropped connection', { drop: true }, /^platform transport: /],
  ] as const)('sets error for %s, counts it as an api error in Health, and a later retry refunds once', async (_case, fault, error) => {
    const { platformChargeId, userId } = await paid(30n);
    const before = reportedApiErrors();
    emu.control.addFault({ method: 'refundStarPayment', ...fault });
    const ack = await refund(userId, platformChargeId);
    expect(ack.delivered).toBe(false);
    expect(ack.error).toMatch(error);
    expect(ack.error).not.toContain('dev-bot-token');
    await waitFor(() => reportedApiErrors() >= before + 1n, 'api error reported in Health');
    expect(emu.control.starRefunds()).toEqual([]);
    expect(await refund(userId, platformChargeId)).toMatchObject({ delivered: true, result: '' });
    expect(emu.control.starRefunds()).toHaveLength(1);
  });

  it('waits out a 429 and refunds on the retry', async () => {
    const { platformChargeId, userId } = await paid(20n);
    emu.control.addFault({ method: 'refundStarPayment', status: 429, retryAfter: 1 });
    expect(await refund(userId, platformChargeId)).toMatchObject({ delivered: true, error: '' });
    expect(refundCalls().map((c) => c.status)).toEqual([429, 200]);
  });

  it('never writes the bot token into a log line', () => {
    expect(bot.lines.length).toBeGreaterThan(0);
    expect(JSON.stringify(bot.lines)).not.toContain('dev-bot-token');
  });
});
