import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlatformEmulator } from './index.js';
import type { TgStarTransaction } from './star-transactions.js';
import type { TgUpdate } from './types.js';
import { callApi, controlApi, startCheckedEmulator } from './test-helpers.js';

/**
 * The dev stack restarts the emulator beside a database that keeps its orders: with a state file
 * the star payments (and everything else the flows read) must come back, or reconciliation would
 * report the stored orders as payments the platform never saw.
 */
describe('platform emulator state file', () => {
  let dir: string;
  let emu: PlatformEmulator | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'platform-state-'));
  });
  afterEach(async () => {
    await emu?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps users, chat members, star payments, refunds and update ids across a restart', async () => {
    const stateFile = join(dir, 'platform-emulator.json');
    emu = await startCheckedEmulator({ stateFile });
    const user = 7001;
    expect((await controlApi(emu, 'POST', '/users', { id: user, firstName: 'Ann', started: true })).status).toBe(200);
    const chat = await controlApi<{ id: number }>(emu, 'POST', '/chats', { type: 'supergroup', title: 'Players' });
    expect((await controlApi(emu, 'POST', '/join', { chat_id: chat.body.id, user_id: user })).status).toBe(200);
    const charges: string[] = [];
    for (const amount of [50, 70]) {
      const link = await callApi<string>(emu, 'createInvoiceLink', {
        title: 'Chips',
        description: 'Chips',
        payload: `order-${amount}`,
        currency: 'XTR',
        prices: [{ label: 'Chips', amount }],
      });
      const paid = await controlApi<{ preCheckoutQueryId: string }>(emu, 'POST', '/pay', { link: link.body.result, user_id: user });
      await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: paid.body.preCheckoutQueryId, ok: true });
      const charge = emu.control.preCheckout(paid.body.preCheckoutQueryId)?.payment?.telegramPaymentChargeId;
      if (charge === undefined) throw new Error('payment did not complete');
      charges.push(charge);
    }
    await callApi(emu, 'refundStarPayment', { user_id: user, telegram_payment_charge_id: charges[0] });
    const updates = (await callApi<TgUpdate[]>(emu, 'getUpdates', { timeout: 0 })).body.result ?? [];
    const lastUpdateId = Math.max(...updates.map((u) => u.update_id));
    const before = (await callApi<{ transactions: TgStarTransaction[] }>(emu, 'getStarTransactions')).body.result?.transactions;
    expect(before).toHaveLength(3);
    await emu.stop();
    expect(statSync(stateFile).size).toBeGreaterThan(0);
    expect(readFileSync(stateFile, 'utf8')).toContain(charges[1]);

    emu = await startCheckedEmulator({ stateFile });
    const after = (await callApi<{ transactions: TgStarTransaction[] }>(emu, 'getStarTransactions')).body.result?.transactions;
    expect(after).toEqual(before);
    const member = await callApi<{ status: string }>(emu, 'getChatMember', { chat_id: chat.body.id, user_id: user });
    expect(member.body.result?.status).toBe('member');
    // The refunded charge stays refunded; the other can still be refunded once.
    expect((await callApi(emu, 'refundStarPayment', { user_id: user, telegram_payment_charge_id: charges[0] })).body.ok).toBe(false);
    expect((await callApi(emu, 'refundStarPayment', { user_id: user, telegram_payment_charge_id: charges[1] })).body.ok).toBe(true);
    // Update ids only grow across the restart (a bot that kept its offset still sees new updates).
    const link = await callApi<string>(emu, 'createInvoiceLink', {
      title: 'Chips',
      description: 'Chips',
      payload: 'order-after',
      currency: 'XTR',
      prices: [{ label: 'Chips', amount: 5 }],
    });
    await controlApi(emu, 'POST', '/pay', { link: link.body.result, user_id: user });
    const next = (await callApi<TgUpdate[]>(emu, 'getUpdates', { offset: lastUpdateId + 1, timeout: 0 })).body.result ?? [];
    expect(next.map((u) => Object.keys(u).find((k) => k !== 'update_id'))).toContain('pre_checkout_query');
    expect(Math.min(...next.map((u) => u.update_id))).toBeGreaterThan(lastUpdateId);
  });

  it('writes the file atomically within its interval while running, not only on stop', async () => {
    const stateFile = join(dir, 'platform-emulator.json');
    emu = await startCheckedEmulator({ stateFile });
    await controlApi(emu, 'POST', '/users', { id: 7002, firstName: 'Bob', started: true });
    const deadline = Date.now() + 5_000;
    let text = '';
    while (Date.now() < deadline) {
      try {
        text = readFileSync(stateFile, 'utf8');
        if (text.includes('"Bob"')) break;
      } catch {
        // not written yet
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(JSON.parse(text)).toMatchObject({ version: 1, users: [{ user: { id: 7002, first_name: 'Bob' } }] });
  });
});
