import fc from 'fast-check';
import { SendQueue } from '../src/commands/send-queue.js';

type Op = { op: 'push'; value: number } | { op: 'shift' };

describe('SendQueue', () => {
  it('behaves as a bounded FIFO for any sequence of pushes and shifts', () => {
    const ops = fc.array(
      fc.oneof(fc.record({ op: fc.constant('push' as const), value: fc.integer() }), fc.record({ op: fc.constant('shift' as const) })),
      { maxLength: 3_000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), ops, (limit, sequence: Op[]) => {
        const queue = new SendQueue<number>(limit);
        const model: number[] = [];
        for (const step of sequence) {
          if (step.op === 'push') {
            const accepted = queue.push(step.value);
            expect(accepted).toBe(model.length < limit);
            if (accepted) model.push(step.value);
          } else {
            expect(queue.shift()).toBe(model.shift());
          }
          expect(queue.size).toBe(model.length);
        }
        expect(queue.close()).toEqual(model);
        expect(queue.push(1)).toBe(false);
      }),
    );
  });

  it('wakes a waiting consumer on push and on close', async () => {
    const queue = new SendQueue<string>(4);
    const first = queue.wait();
    queue.push('a');
    expect(await first).toBe(true);
    expect(queue.shift()).toBe('a');
    const second = queue.wait();
    expect(queue.close()).toEqual([]);
    expect(await second).toBe(false);
    expect(await queue.wait()).toBe(false);
  });
});
