import { createReadiness } from '../src/health/readiness.js';

describe('bot readiness', () => {
  const at = 1_000_000;
  function subject(opts: { link: boolean; lastOk: bigint; probe: () => Promise<unknown> }) {
    let lastOk = opts.lastOk;
    let probes = 0;
    const ready = createReadiness({
      linkConnected: () => opts.link,
      lastOkUnix: () => lastOk,
      probePlatform: async () => {
        probes += 1;
        await opts.probe();
        lastOk = BigInt(at);
      },
      windowS: 60,
      probeTimeoutMs: 100,
      nowUnix: () => at,
    });
    return { ready, probes: () => probes };
  }

  it('is ready with the link up and a platform success inside the window, without asking the platform', async () => {
    const s = subject({ link: true, lastOk: BigInt(at - 30), probe: () => Promise.resolve() });
    expect(await s.ready()).toMatchObject({ status: 'ok', linkConnected: true, platformRecent: true });
    expect(s.probes()).toBe(0);
  });

  it('is not ready while the link is down, whatever the platform says', async () => {
    const s = subject({ link: false, lastOk: BigInt(at), probe: () => Promise.resolve() });
    expect(await s.ready()).toMatchObject({ status: 'degraded', linkConnected: false });
  });

  it('asks the platform when its last success is stale: ready when it answers, not when it fails or hangs', async () => {
    const answers = subject({ link: true, lastOk: BigInt(at - 600), probe: () => Promise.resolve() });
    expect(await answers.ready()).toMatchObject({ status: 'ok', platformRecent: true });
    expect(answers.probes()).toBe(1);
    const fails = subject({ link: true, lastOk: 0n, probe: () => Promise.reject(new Error('ECONNREFUSED')) });
    expect(await fails.ready()).toMatchObject({ status: 'degraded', platformRecent: false, platformLastOkUnix: '0' });
    const hangs = subject({ link: true, lastOk: BigInt(at - 600), probe: () => new Promise(() => undefined) });
    expect(await hangs.ready()).toMatchObject({ status: 'degraded', platformRecent: false });
  });

  it('shares one platform probe between concurrent checks', async () => {
    const s = subject({ link: true, lastOk: 0n, probe: () => new Promise((r) => setTimeout(r, 20)) });
    await Promise.all([s.ready(), s.ready(), s.ready()]);
    expect(s.probes()).toBe(1);
  });
});
