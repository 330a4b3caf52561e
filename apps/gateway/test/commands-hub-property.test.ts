import fc from 'fast-check';
import { Registry } from 'prom-client';
import { botlink } from '@wordgame/contracts';
import { create } from '@bufbuild/protobuf';
import { createLogger } from '@wordgame/logging';
import { CommandHub, type Link } from '../src/commands/hub.js';
import type { Outcome } from '../src/commands/outcome.js';
import { createBotlinkMetrics } from '../src/metrics/botlink-metrics.js';

/** Property runs on real servers take what a loaded machine gives them; the deadline only catches a hang. */
const PROPERTY_DEADLINE_MS = 600_000;

type Step =
  | { op: 'send' }
  | { op: 'write'; count: number }
  | { op: 'ack'; pick: number; answer: 'delivered' | 'not_delivered' | 'error' }
  | { op: 'ackUnknown' }
  | { op: 'drop' }
  | { op: 'connect'; owns: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ op: 'send' as const }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('write' as const), count: fc.integer({ min: 1, max: 5 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('ack' as const),
      pick: fc.nat(),
      answer: fc.constantFrom('delivered' as const, 'not_delivered' as const, 'error' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'ackUnknown' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'drop' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('connect' as const), owns: fc.boolean() }) },
);

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('command hub invariants (real hub, Links driven by the test)', () => {
  it(
    'settles every send exactly once, writes each command at most once, and never replays after a Link ends',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 120 }), async (steps) => {
          const registry = new Registry();
          const metrics = createBotlinkMetrics(registry);
          const hub = new CommandHub({ metrics, logger: createLogger('prop', 'silent'), queueLimit: 8 });
          const links: Link[] = [];
          const written = new Map<string, Link>();
          const everWritten = new Set<string>();
          const results: Array<{ outcome?: Outcome; settledTimes: number; expected?: Outcome }> = [];
          const expectedById = new Map<string, { index: number }>();
          let instance = 0;
          const open = (owns: boolean) => {
            const id = `i${instance % 3}`;
            instance += 1;
            const link = hub.open({ instanceId: id, ownsUpdates: owns, peer: 'bot' });
            links.push(link);
            return link;
          };
          const live = () => links.filter((l) => l.endReason === undefined);
          const sendCount = { n: 0 };

          for (const s of steps) {
            if (s.op === 'send') {
              const index = results.length;
              const slot: (typeof results)[number] = { settledTimes: 0 };
              results.push(slot);
              sendCount.n += 1;
              void hub.send({ case: 'chatGate', value: { externalId: String(index), allow: true } }, { timeoutMs: 3_600_000 }).then((o) => {
                slot.outcome = o;
                slot.settledTimes += 1;
              });
              if (live().length === 0) slot.expected = { status: 'no_bot' };
            } else if (s.op === 'write') {
              for (const link of live()) {
                for (let i = 0; i < s.count; i++) {
                  const command = link.queue.shift();
                  if (!command) break;
                  if (command.settled) continue;
                  expect(everWritten.has(command.commandId)).toBe(false);
                  everWritten.add(command.commandId);
                  written.set(command.commandId, link);
                  expectedById.set(command.commandId, {
                    index: Number((command.message.command?.payload.value as botlink.ChatGateCommand).externalId),
                  });
                }
              }
            } else if (s.op === 'ack') {
              const ids = [...written.keys()];
              if (ids.length === 0) continue;
              const id = ids[s.pick % ids.length] as string;
              const link = written.get(id) as Link;
              written.delete(id);
              const ack = create(botlink.AckSchema, {
                commandId: id,
                delivered: s.answer === 'delivered',
                error: s.answer === 'error' ? 'boom' : '',
                result: s.answer === 'delivered' ? `r${id}` : '',
              });
              const slot = results[(expectedById.get(id) as { index: number }).index];
              if (slot && link.endReason === undefined && slot.expected === undefined) {
                slot.expected =
                  s.answer === 'delivered'
                    ? { status: 'delivered', result: `r${id}` }
                    : s.answer === 'error'
                      ? { status: 'failed', error: 'boom' }
                      : { status: 'not_delivered' };
              }
              hub.ack(link, ack);
            } else if (s.op === 'ackUnknown') {
              const link = live()[0];
              if (link) hub.ack(link, create(botlink.AckSchema, { commandId: 'unknown', delivered: true }));
            } else if (s.op === 'drop') {
              const link = live()[0];
              if (link) hub.end(link, 'stream_closed');
            } else {
              open(s.owns);
            }
            expect(hub.connected).toBe(live().length);
          }
          await tick();
          hub.close();
          await tick();

          for (const slot of results) {
            expect(slot.settledTimes).toBe(1);
            if (slot.expected) expect(slot.outcome).toEqual(slot.expected);
            else
              expect(['link_lost', 'queue_full']).toContain(slot.outcome?.status === 'error' ? slot.outcome.error : slot.outcome?.status);
          }
          for (const link of links) expect(link.queue.shift()).toBeUndefined();
          const counted = (await metrics.commands.get()).values.reduce((sum, v) => sum + v.value, 0);
          expect(counted).toBe(sendCount.n);
          expect((await metrics.connectedBots.get()).values[0]?.value).toBe(0);
        }),
        { numRuns: 200 },
      );
    },
    PROPERTY_DEADLINE_MS,
  );
});
