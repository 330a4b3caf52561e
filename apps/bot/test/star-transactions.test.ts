import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import type { CompactStarTransaction } from '../src/commands/star-transactions.js';
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
    forwardPayment: () => Promise.resolve({ credited: true }),
  };
  bot = await startBot(testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }), gateway);
});

afterAll(async () => {
  await bot.app.stop();
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

beforeEach(() => emu.control.reset());

async function paid(amount: bigint): Promise<{ platformChargeId: string; userId: number }> {
  const invoice = await command(bot.session, {
    case: 'createInvoice',
    value: { title: 'Chips', description: 'chips', payload: `order-${amount}`, amount },
  });
  const userId = emu.control.createUser({ started: true }).user.id;
  const { preCheckoutQueryId } = emu.control.pay({ link: invoice.result, userId });
  let platformChargeId: string | undefined;
  await waitFor(
    () => (platformChargeId = emu.control.preCheckout(preCheckoutQueryId)?.payment?.telegramPaymentChargeId) !== undefined,
    'payment',
  );
  return { platformChargeId: platformChargeId ?? '', userId };
}

const list = (offset: bigint, limit: bigint) => command(bot.session, { case: 'getStarTransactions', value: { offset, limit } });
const parsed = (result: string) => (JSON.parse(result) as { transactions: CompactStarTransaction[] }).transactions;

describe('get_star_transactions', () => {
  it('answers the platform page as compact JSON: payments with payer and payload, refunds by charge id', async () => {
    const a = await paid(30n);
    const b = await paid(45n);
    await command(bot.session, {
      case: 'refundStarPayment',
      value: { userId: BigInt(a.userId), platformPaymentChargeId: a.platformChargeId },
    });
    const ack = await list(0n, 100n);
    expect(ack).toMatchObject({ delivered: true, error: '' });
    const txs = parsed(ack.result);
    // the platform's order, passed through: chronological by default, newest first when the platform answers so
    expect(txs.map((t) => [t.kind, t.id, t.amount, t.user_id])).toEqual([
      ['payment', a.platformChargeId, 30, a.userId],
      ['payment', b.platformChargeId, 45, b.userId],
      ['refund', a.platformChargeId, 30, a.userId],
    ]);
    expect(txs[1]).toMatchObject({ payload: 'order-45', date: expect.any(Number) as number });
    expect(emu.control.calls('getStarTransactions').map((c) => c.params)).toEqual([{ offset: 0, limit: 100 }]);
    expect(parsed((await list(1n, 1n)).result).map((t) => t.id)).toEqual([b.platformChargeId]);
    emu.control.setStarTransactionsOrder('newest_first');
    expect(parsed((await list(0n, 100n)).result).map((t) => [t.kind, t.id])).toEqual([
      ['refund', a.platformChargeId],
      ['payment', b.platformChargeId],
      ['payment', a.platformChargeId],
    ]);
  });

  it('refuses a bad offset or limit without calling the platform, and reports a platform failure as error', async () => {
    expect(await list(-1n, 10n)).toMatchObject({ delivered: false, error: 'offset must be 0 or more' });
    expect(await list(0n, 0n)).toMatchObject({ delivered: false, error: 'limit must be 1..100' });
    expect(await list(0n, 101n)).toMatchObject({ delivered: false, error: 'limit must be 1..100' });
    expect(emu.control.calls('getStarTransactions')).toEqual([]);
    emu.control.addFault({ method: 'getStarTransactions', status: 400, description: 'Bad Request: nope' });
    const refused = await list(0n, 10n);
    expect(refused.delivered).toBe(false);
    expect(refused.error).toMatch(/nope/);
  });

  it('treats an answer of the wrong shape as an error', async () => {
    emu.control.addFault({
      method: 'getStarTransactions',
      status: 200,
      body: JSON.stringify({ ok: true, result: { transactions: [{ id: 5 }] } }),
    });
    const ack = await list(0n, 10n);
    expect(ack.delivered).toBe(false);
    expect(ack.error).not.toBe('');
  });
});
