import { createLogger } from '@wordgame/logging';
import { createTicker } from './ticker.js';

describe('createTicker', () => {
  it('stop waits for a tick in flight, but not for one that never ends', async () => {
    const lines: string[] = [];
    const logger = createLogger('ticker-test', 'warn', { write: (line: string) => void lines.push(line) });
    let started!: () => void;
    const tickStarted = new Promise<void>((resolve) => (started = resolve));
    let settled = false;
    const ticker = createTicker(
      () => {
        started();
        return new Promise<void>(() => undefined).finally(() => (settled = true));
      },
      1,
      logger,
      'hung loop',
    );
    ticker.start();
    await tickStarted;
    await ticker.stop();
    expect(settled).toBe(false);
    expect(lines.some((l) => l.includes('tick still in flight') && l.includes('hung loop'))).toBe(true);
  });

  it('stop resolves once a finishing tick is done', async () => {
    let done = false;
    let started!: () => void;
    const tickStarted = new Promise<void>((resolve) => (started = resolve));
    const ticker = createTicker(
      async () => {
        started();
        await new Promise((r) => setImmediate(r));
        done = true;
      },
      1,
      createLogger('ticker-test', 'silent'),
      'quick loop',
    );
    ticker.start();
    await tickStarted;
    await ticker.stop();
    expect(done).toBe(true);
  });
});
