import { runSoak } from './soak/run.js';
import { KINDS } from './soak/traffic.js';

/**
 * The soak's CI form: the same code as `npm run soak` with SOAK_SECONDS=60 (RSS every 2 s), on
 * real processes (backend, gateway, bot bundles, built by Nx before the suite, and both
 * emulators) and a fresh PostgreSQL database. It holds when every kind of operation ran, memory after a full GC stayed flat in every process,
 * errors did not grow, every settled payment was credited exactly once (or not at all when
 * canceled), nothing is unmatched and the ledger audit is clean.
 */
describe('soak, 60 s', () => {
  it('holds a mixed load: flat memory, no error growth, payments exactly once, audit clean', async () => {
    const lines: string[] = [];
    // Printed even when the run throws: the lines so far say how far it got.
    const result = await runSoak({
      seconds: 60,
      sampleSeconds: 2,
      rate: 1,
      customers: 8,
      serverUrl: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
      rebuildApps: false,
      write: (line) => lines.push(line),
    }).finally(() => process.stdout.write(`${lines.join('\n')}\n`));

    expect(result.reasons).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.kinds.map((k) => k.kind)).toEqual([...KINDS]);
    for (const kind of result.kinds) expect(kind.requests).toBeGreaterThan(0);
    expect(result.payments.paid).toBeGreaterThan(0);
    expect(result.payments.failed).toBeGreaterThan(0);
    expect(result.payments.wrongCount).toBe(0);
    expect(result.payments.doubleCredits).toBe(0);
    expect(result.audit.clean).toBe(true);
    // What survives a full GC is judged; RSS is printed (a 60 s run sits inside V8's heap ramp).
    for (const retained of Object.values(result.retained)) expect(retained.flat).toBe(true);
    for (const memory of Object.values(result.memory)) expect(memory.judged).toBe(false);
  }, 180_000);
});
