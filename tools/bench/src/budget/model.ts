/**
 * The capacity model of the budgeted replicas bench (docs/scaling.md, "Capacity model"): a flow's
 * throughput on N gateways and M backends, each process held to `budget` cores, is the smallest of
 * what each tier's CPU allows, given each tier's CPU per request measured on 1 + 1:
 *
 *   X = min( N·budget / c_gateways, M·budget / c_backends, 1·budget / c_bot,
 *            free / (c_gateways + c_backends + c_bot + c_postgres + c_nats + c_load) )
 *
 * where `free` is the machine's cores less what everything else on it used meanwhile (measured
 * per phase: the whole machine's busy CPU less the bench's own processes). On a quiet machine free
 * is all cores and the budgets bound; on a shared, saturated one the last term does.
 *
 * c_gateways is all gateways' CPU per request together (on 1 + 1, the one gateway's): the model
 * assumes that replicas add no work per request. The last term is the machine: every process of
 * the flow, PostgreSQL, NATS and the load generator (unbudgeted) included, shares its free cores.
 */

/** CPU per request of each tier, in ms (the sum over that tier's processes). */
export interface TierCosts {
  gateways: number;
  backends: number;
  /** The updates-owner bot; 0 for flows that do not touch it. */
  bot: number;
  postgres: number;
  nats: number;
  /** The load generator (and, for stars, the emulators it runs in-process). */
  load: number;
}

/** A topology: gateways, backends (one bot always). */
export interface Topology {
  gateways: number;
  backends: number;
}

/** One tier's bound, requests per second. */
export interface Bound {
  tier: 'gateways' | 'backends' | 'bot' | 'machine';
  perSecond: number;
}

/** The model's prediction: the throughput and the tier whose bound it is, with every bound. */
export interface Prediction {
  perSecond: number;
  limitedBy: Bound['tier'];
  bounds: Bound[];
}

/**
 * Predicts the throughput of `t` from per-request `costs` (measured on 1 + 1), each Node process
 * held to `budget` cores, with `free` cores of the machine left by everything else. `usesBot` says
 * whether the flow goes through the bot, held to `botBudget` cores.
 */
export function predict(costs: TierCosts, t: Topology, budget: number, free: number, usesBot: boolean, botBudget = budget): Prediction {
  const bound = (n: number, c: number) => (c > 0 ? (n * budget * 1000) / c : Number.POSITIVE_INFINITY);
  const all = costs.gateways + costs.backends + (usesBot ? costs.bot : 0) + costs.postgres + costs.nats + costs.load;
  const bounds: Bound[] = [
    { tier: 'gateways', perSecond: bound(t.gateways, costs.gateways) },
    { tier: 'backends', perSecond: bound(t.backends, costs.backends) },
    ...(usesBot ? [{ tier: 'bot' as const, perSecond: costs.bot > 0 ? (botBudget * 1000) / costs.bot : Number.POSITIVE_INFINITY }] : []),
    { tier: 'machine', perSecond: all > 0 ? (Math.max(0, free) * 1000) / all : Number.POSITIVE_INFINITY },
  ];
  const least = bounds.reduce((a, b) => (b.perSecond < a.perSecond ? b : a));
  return { perSecond: least.perSecond, limitedBy: least.tier, bounds };
}

/**
 * Resources for `perSecond` of a flow at these per-request costs: cores per tier (each tier's CPU at
 * that rate) and the replicas at `budget` cores each, rounded up with `headroom` (0.7 = run each
 * process at most 70 % busy).
 */
export function size(
  costs: TierCosts,
  perSecond: number,
  budget: number,
  headroom: number,
): { gatewayCores: number; backendCores: number; postgresCores: number; gateways: number; backends: number; botCores: number } {
  const cores = (ms: number) => (perSecond * ms) / 1000;
  return {
    gatewayCores: cores(costs.gateways),
    backendCores: cores(costs.backends),
    postgresCores: cores(costs.postgres),
    botCores: cores(costs.bot),
    gateways: Math.ceil(cores(costs.gateways) / (budget * headroom)),
    backends: Math.ceil(cores(costs.backends) / (budget * headroom)),
  };
}
