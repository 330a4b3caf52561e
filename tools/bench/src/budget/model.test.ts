import { predict, size, type TierCosts } from './model.js';

const costs: TierCosts = { gateways: 0.5, backends: 0.6, bot: 0, postgres: 0.15, nats: 0, load: 0.05 };

describe('capacity model', () => {
  it('is bound by the busiest tier per request, and scales that tier with its replicas', () => {
    // 0.15 core per backend at 0.6 ms each: 250/s per backend; gateways 300/s each.
    const one = predict(costs, { gateways: 1, backends: 1 }, 0.15, 2, false);
    expect(one.limitedBy).toBe('backends');
    expect(one.perSecond).toBeCloseTo(250, 6);
    const oneTwo = predict(costs, { gateways: 1, backends: 2 }, 0.15, 2, false);
    expect(oneTwo.limitedBy).toBe('gateways');
    expect(oneTwo.perSecond).toBeCloseTo(300, 6);
    expect(predict(costs, { gateways: 2, backends: 2 }, 0.15, 2, false).perSecond).toBeCloseTo(500, 6);
  });

  it('stops where every process of the flow together fills the machine', () => {
    // 3+3 at 0.3 core each: the tiers allow 1,500/s, but 1.5 ms of CPU per request in all on 2 cores is 1,333/s.
    const heavyDb: TierCosts = { ...costs, postgres: 0.35 };
    const p = predict(heavyDb, { gateways: 3, backends: 3 }, 0.3, 2, false);
    expect(p.limitedBy).toBe('machine');
    expect(p.perSecond).toBeCloseTo(2000 / 1.5, 6);
  });

  it('on a shared machine, stops at the cores the others leave', () => {
    // 0.5 core left, 1.3 ms of CPU per request in all: 385/s, under 2+2's budgets (500/s).
    const p = predict(costs, { gateways: 2, backends: 2 }, 0.15, 0.5, false);
    expect(p.limitedBy).toBe('machine');
    expect(p.perSecond).toBeCloseTo(500 / 1.3, 6);
  });

  it('puts the single bot in the bound of a flow that uses it, whatever the replicas', () => {
    const stars: TierCosts = { ...costs, gateways: 5, backends: 6, bot: 10, postgres: 3 };
    const small = predict(stars, { gateways: 1, backends: 1 }, 0.15, 2, true);
    const big = predict(stars, { gateways: 3, backends: 3 }, 0.15, 2, true);
    expect(small.limitedBy).toBe('bot');
    expect(big.limitedBy).toBe('bot');
    expect(big.perSecond).toBeCloseTo(15, 6);
    expect(predict(stars, { gateways: 3, backends: 3 }, 0.15, 2, false).perSecond).toBeGreaterThan(15);
  });

  it('sizes replicas from per-request CPU with headroom', () => {
    const s = size(costs, 10_000, 1, 0.5);
    expect(s.gatewayCores).toBeCloseTo(5, 6);
    expect(s.gateways).toBe(10);
    expect(s.backends).toBe(12);
    expect(s.postgresCores).toBeCloseTo(1.5, 6);
  });
});
