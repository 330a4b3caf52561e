import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { MethodCounter, SeriesHistogram, methodRecorder } from '../src/metrics/method-series.js';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The per-procedure recorders expose exactly what prom-client's own Counter and Histogram expose
 * for the same calls: same text, sample for sample (bounds hit exactly, beyond the last, zeros).
 */
describe('method series', () => {
  const call = fc.record({
    method: fc.constantFrom('WalletService/GetWallet', 'WalletService/Buy', 'GameService/Move'),
    seconds: fc.oneof(fc.constantFrom(...BOUNDS, 0, 20), fc.double({ min: 0, max: 30, noNaN: true })),
    ok: fc.boolean(),
    code: fc.constantFrom('not_found', 'unavailable'),
  });

  it('scrapes as prom-client scrapes the same observations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { maxLength: 60 }), async (calls) => {
        const ours = new Registry();
        const theirs = new Registry();
        const requests = new MethodCounter('rpc_requests_total', 'requests', [ours]);
        const duration = new SeriesHistogram('rpc_duration_seconds', 'duration', BOUNDS, [ours]);
        const refRequests = new Counter({
          name: 'rpc_requests_total',
          help: 'requests',
          labelNames: ['method', 'code'],
          registers: [theirs],
        });
        const refDuration = new Histogram({
          name: 'rpc_duration_seconds',
          help: 'duration',
          labelNames: ['method'],
          buckets: BOUNDS,
          registers: [theirs],
        });
        const recorders = new Map<string, ReturnType<typeof methodRecorder>>();
        for (const method of ['WalletService/GetWallet', 'WalletService/Buy', 'GameService/Move']) {
          recorders.set(method, methodRecorder(requests, duration, method));
          refRequests.inc({ method, code: 'ok' }, 0);
          refDuration.zero({ method });
        }
        for (const c of calls) {
          const r = recorders.get(c.method);
          if (c.ok) {
            r?.ok();
            refRequests.inc({ method: c.method, code: 'ok' });
          } else {
            requests.inc({ method: c.method, code: c.code });
            refRequests.inc({ method: c.method, code: c.code });
          }
          r?.observe(c.seconds);
          refDuration.observe({ method: c.method }, c.seconds);
        }
        const sorted = async (r: Registry) => (await r.metrics()).split('\n').sort();
        expect(await sorted(ours)).toEqual(await sorted(theirs));
        // A second scrape does not double the ok counts.
        expect(await sorted(ours)).toEqual(await sorted(theirs));
      }),
      { numRuns: 200 },
    );
  });

  it('scrapes a histogram without labels as prom-client scrapes it (the pool acquire wait)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constantFrom(...BOUNDS, 0, 20), fc.double({ min: 0, max: 30, noNaN: true })), { maxLength: 40 }),
        async (waits) => {
          const ours = new Registry();
          const theirs = new Registry();
          const histogram = new SeriesHistogram('acquire_seconds', 'wait', BOUNDS, [ours], 'none');
          const reference = new Histogram({ name: 'acquire_seconds', help: 'wait', buckets: BOUNDS, registers: [theirs] });
          const series = histogram.series('');
          for (const w of waits) {
            histogram.record(series, w);
            reference.observe(w);
          }
          expect((await ours.metrics()).split('\n').sort()).toEqual((await theirs.metrics()).split('\n').sort());
        },
      ),
      { numRuns: 100 },
    );
  });

  it('exposes no duration series for a procedure recorded without one (streams)', async () => {
    const registry = new Registry();
    const requests = new MethodCounter('rpc_requests_total', 'requests', [registry]);
    const duration = new SeriesHistogram('rpc_duration_seconds', 'duration', BOUNDS, [registry]);
    const stream = methodRecorder(requests, undefined, 'GameService/Watch');
    stream.ok();
    stream.observe(1);
    const text = await registry.metrics();
    expect(text).toContain('rpc_requests_total{method="GameService/Watch",code="ok"} 1');
    expect(text).not.toContain('rpc_duration_seconds_count{method="GameService/Watch"}');
    expect(duration).toBeDefined();
  });

  it('reset zeroes the plain counts with the rest', async () => {
    const registry = new Registry();
    const requests = new MethodCounter('rpc_requests_total', 'requests', [registry]);
    const duration = new SeriesHistogram('rpc_duration_seconds', 'duration', BOUNDS, [registry]);
    const r = methodRecorder(requests, duration, 'WalletService/Buy');
    r.ok();
    r.observe(0.003);
    registry.resetMetrics();
    const text = await registry.metrics();
    expect(text).toContain('rpc_requests_total{method="WalletService/Buy",code="ok"} 0');
    expect(text).toContain('rpc_duration_seconds_count{method="WalletService/Buy"} 0');
  });
});
