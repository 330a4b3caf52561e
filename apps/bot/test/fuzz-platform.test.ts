import { join } from 'node:path';
import type { botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type FaultSpec, type PlatformEmulator } from '@wordgame/platform-emulator';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { PaymentOutbox } from '../src/payments/outbox.store.js';
import { DeadLetters } from '../src/store/dead-letters.js';
import { startBot, type RunningBot } from './support/bot.js';
import { tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { waitFor } from './support/wait.js';

/**
 * Drives the real bot (in process, real HTTP to the platform emulator, real mTLS bot-link to a
 * test gateway) with random platform answers (status x body shape x delay) on its long poll and
 * random updates (well-formed payments, truncated ones, wrong types, garbage payloads, unknown
 * kinds). After every scenario: the bot still polls and holds its Link, its getUpdates rate stays
 * bounded, every well-formed payment reached ForwardPayment exactly once, and the Health deltas
 * the gateway received equal what the spec's classification (plus the dead-letter addition)
 * predicts from the answers given. BOT_FUZZ_RUNS sets the number of scenarios (default 4).
 */

const RUNS = Number(process.env['BOT_FUZZ_RUNS'] ?? '4');
/** getUpdates calls in any one-second window; the retry floor is 50 ms (20/s) plus answers that carry updates. */
const MAX_POLLS_PER_SECOND = 60;

const certs = tempCerts();
const outboxPath = join(certs.dir, 'fuzz-outbox.sqlite');
let emu: PlatformEmulator;
let gateway: TestGateway;
let bot: RunningBot;
const forwarded: botlink.ForwardPaymentRequest[] = [];

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
  gateway.handlers = {
    forwardPayment: (req) => {
      forwarded.push(req);
      return Promise.resolve({ credited: true });
    },
  };
  bot = await startBot(
    testConfig(
      certs,
      { botlink: gateway.url, platform: emu.apiRoot },
      {
        BOT_OUTBOX_PATH: outboxPath,
        BOT_HEALTH_INTERVAL_MS: '100',
        BOT_POLL_RETRY_INITIAL_MS: '50',
        BOT_POLL_RETRY_MAX_MS: '400',
        PLATFORM_REQUEST_TIMEOUT_MS: '3000',
      },
    ),
    gateway,
  );
  await waitFor(() => emu.control.state().bots[0]?.polling === true, 'the bot polling');
});

afterAll(async () => {
  await bot.app.stop();
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});

/** What one platform answer must add to Health, by the spec's classification (plus the additive fields). */
interface Expect {
  connectFailures: number;
  rateLimited: number;
  deadLetters: number;
  unreadable: number;
}
type Answer = { fault: FaultSpec; expect: Expect };
const none: Expect = { connectFailures: 0, rateLimited: 0, deadLetters: 0, unreadable: 0 };

const smallId = fc.integer({ min: 1, max: 1_000 });
const delay = fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 200 }));

/** 2xx bodies that are a Bot API envelope with an array of updates (the update kinds may still be unusable; the kinds here are ones the bot does not handle, so a malformed one is skipped, not dead-lettered). */
const envelopeBody: fc.Arbitrary<{ body: string; deadLetters: number }> = fc.oneof(
  fc.constant({ body: '{"ok":true,"result":[]}', deadLetters: 0 }),
  fc
    .record({ id: smallId, kind: fc.constantFrom('edited_message', 'channel_post', 'inline_query', 'poll', 'my_chat_member') })
    .map(({ id, kind }) => ({
      body: JSON.stringify({ ok: true, result: [{ update_id: id, [kind]: { anything: 1 } }] }),
      deadLetters: 0,
    })),
  smallId.map((id) => ({
    body: JSON.stringify({
      ok: true,
      result: [{ update_id: id, message: { message_id: 1, chat: { id: 1, type: 'private' }, successful_payment: { currency: 'XTR' } } }],
    }),
    deadLetters: 1,
  })),
);

/** 2xx bodies that are no usable envelope: each stamps liveness and is one unreadable answer (a failed poll). */
const malformedBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '{}',
    'null',
    '[]',
    'true',
    '<html><body>OK</body></html>',
    '{"ok":true}',
    '{"ok":false}',
    '{"ok":"true","result":[]}',
  ),
  fc
    .constantFrom('"abc"', '{}', '1', '[1,2]', '[{"update_id":"7"}]', '[{"update_id":1.5}]', '[{"update_id":-1}]', '[null]')
    .map((result) => `{"ok":true,"result":${result}}`),
  fc.nat({ max: 60 }).map((n) => '{"ok":true,"result":[{"update_id":1,"message":{"message_id":1}}]}'.slice(0, n)),
);

const answer: fc.Arbitrary<Answer> = fc.oneof(
  fc.record({ status: fc.constantFrom(200, 202), body: envelopeBody, delayMs: delay }).map(({ status, body, delayMs }) => ({
    fault: { method: 'getUpdates', status, body: body.body, delayMs },
    expect: { ...none, deadLetters: body.deadLetters },
  })),
  fc
    .record({
      status: fc.constantFrom(200, 204),
      body: malformedBody,
      contentType: fc.constantFrom('application/json', 'text/html'),
      delayMs: delay,
    })
    .map(({ status, body, contentType, delayMs }) => ({
      fault: { method: 'getUpdates', status, body, contentType, delayMs },
      expect: { ...none, unreadable: 1 },
    })),
  fc
    .record({ status: fc.constantFrom(500, 502, 503, 504), delayMs: delay })
    .map(({ status, delayMs }) => ({ fault: { method: 'getUpdates', status, delayMs }, expect: { ...none, connectFailures: 1 } })),
  fc
    .record({ status: fc.constantFrom(400, 401, 404, 409), delayMs: delay })
    .map(({ status, delayMs }) => ({ fault: { method: 'getUpdates', status, delayMs }, expect: none })),
  delay.map((delayMs) => ({ fault: { method: 'getUpdates', drop: true, delayMs }, expect: { ...none, connectFailures: 1 } })),
  fc.constant({ fault: { method: 'getUpdates', status: 429, retryAfter: 1 }, expect: { ...none, rateLimited: 1 } }),
  fc.integer({ min: 1, max: 300 }).map((delayMs) => ({ fault: { method: 'getUpdates', delayMs }, expect: none })),
);

/** An update offered through the emulator's queue: `good` payments must be forwarded, `bad` ones parked. */
type Injected = { kind: 'good' } | { kind: 'text' } | { kind: 'bad'; payload: Record<string, unknown> };

const paymentFields = { currency: 'XTR', total_amount: 5, invoice_payload: 'order-x', telegram_payment_charge_id: 'stx-x' };
const injected: fc.Arbitrary<Injected> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'good' as const }), weight: 3 },
  fc.constant({ kind: 'text' as const }),
  fc.subarray(Object.keys(paymentFields), { minLength: 1 }).map((missing) => ({
    kind: 'bad' as const,
    payload: { message: message(Object.fromEntries(Object.entries(paymentFields).filter(([k]) => !missing.includes(k)))) },
  })),
  fc
    .record({
      field: fc.constantFrom(...Object.keys(paymentFields)),
      value: fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null), fc.boolean(), fc.double()),
    })
    .filter(
      ({ field, value }) =>
        typeof value !== typeof paymentFields[field as keyof typeof paymentFields] ||
        (field === 'total_amount' && !(Number.isInteger(value) && (value as number) > 0)) ||
        value === '',
    )
    .map(({ field, value }) => ({ kind: 'bad' as const, payload: { message: message({ ...paymentFields, [field]: value }) } })),
  fc
    .oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }))
    .map((garbage) => ({ kind: 'bad' as const, payload: { message: garbage } })),
  fc.constant({ kind: 'bad' as const, payload: { chat_member: { chat: 'nope' } } }),
  fc.constant({ kind: 'bad' as const, payload: { pre_checkout_query: { id: 7 } } }),
);

function message(successfulPayment: Record<string, unknown>): Record<string, unknown> {
  return {
    message_id: 1,
    date: 1,
    from: { id: 4242, is_bot: false, first_name: 'P' },
    chat: { id: 4242, type: 'private' },
    successful_payment: successfulPayment,
  };
}

const step = fc.oneof(
  answer.map((a) => ({ type: 'answer' as const, ...a })),
  fc.record({ update: injected, pauseMs: fc.integer({ min: 0, max: 50 }) }).map((u) => ({ type: 'update' as const, ...u })),
);

const reported = (): Expect & { rateLimited: number } =>
  gateway.sessions
    .flatMap((s) => s.healths())
    .reduce(
      (sum, h) => ({
        connectFailures: sum.connectFailures + Number(h.connectFailures),
        rateLimited: sum.rateLimited + Number(h.rateLimited),
        deadLetters: sum.deadLetters + Number(h.deadLetters),
        unreadable: sum.unreadable + Number(h.platformUnreadableResponses),
      }),
      { ...none },
    );
const apiErrors = (): number => gateway.sessions.flatMap((s) => s.healths()).reduce((sum, h) => sum + Number(h.apiErrors), 0);

function maxPollsPerSecond(): number {
  const times = emu.control.calls('getUpdates').map((c) => Date.parse(c.at));
  let max = 0;
  for (let i = 0, j = 0; j < times.length; j += 1) {
    while (times[j]! - times[i]! >= 1_000) i += 1;
    max = Math.max(max, j - i + 1);
  }
  return max;
}

function stored<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(outboxPath, { readonly: true });
  db.defaultSafeIntegers(true);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

describe('the bot against a hostile chat platform (fuzz)', () => {
  it(
    `survives ${RUNS} random scenarios of answers and updates, losing no payment and counting by the spec`,
    async () => {
      const expected: Expect = { ...reported() };
      let scenario = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
          scenario += 1;
          const charges: string[] = [];
          for (const [i, s] of steps.entries()) {
            if (s.type === 'answer') {
              emu.control.addFault(s.fault);
              expected.connectFailures += s.expect.connectFailures;
              expected.rateLimited += s.expect.rateLimited;
              expected.deadLetters += s.expect.deadLetters;
              expected.unreadable += s.expect.unreadable;
              continue;
            }
            await new Promise((resolve) => setTimeout(resolve, s.pauseMs));
            if (s.update.kind === 'good') {
              const charge = `fz-${scenario}-${i}`;
              charges.push(charge);
              emu.control.injectUpdate({
                message: message({ ...paymentFields, invoice_payload: `order-${charge}`, telegram_payment_charge_id: charge }),
              });
            } else if (s.update.kind === 'text') {
              emu.control.sendUserMessage({ userId: emu.control.createUser().user.id, text: 'hello' });
            } else {
              expect(emu.control.injectUpdate(s.update.payload)).toMatchObject({ queued: true });
              expected.deadLetters += 1;
            }
          }
          await waitFor(() => emu.control.faults().length === 0, 'every platform answer taken', 30_000);
          await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'every update confirmed', 30_000);
          await waitFor(
            () => charges.every((c) => forwarded.some((f) => f.platformPaymentChargeId === c)),
            'every well-formed payment forwarded',
            30_000,
          );
          const pollsBefore = emu.control.calls('getUpdates').length;
          await waitFor(() => emu.control.calls('getUpdates').length > pollsBefore, 'the bot still polling', 30_000);
          await waitFor(
            () => {
              const r = reported();
              return (
                r.connectFailures === expected.connectFailures &&
                r.rateLimited === expected.rateLimited &&
                r.deadLetters === expected.deadLetters &&
                r.unreadable === expected.unreadable
              );
            },
            'Health matching the classification',
            5_000,
          ).catch(() => undefined);
          expect(reported()).toEqual(expected);
          expect(apiErrors()).toBe(0);
          expect(bot.app.linkConnected).toBe(true);
          for (const charge of charges) expect(forwarded.filter((f) => f.platformPaymentChargeId === charge)).toHaveLength(1);
          expect(maxPollsPerSecond()).toBeLessThanOrEqual(MAX_POLLS_PER_SECOND);
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
      expect(stored((db) => new PaymentOutbox(db).pending())).toEqual([]);
      expect(stored((db) => new DeadLetters(db).list())).toHaveLength(expected.deadLetters);
    },
    60_000 + RUNS * 30_000,
  );
});
