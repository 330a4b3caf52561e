import http from 'node:http';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { startProviderEmulator, type ProviderEmulator } from '@wordgame/provider-emulator';
import { bearer, call, telegramCustomer, type Customer } from '../src/harness/api.js';
import { startCluster, type Cluster, type GatewayReplica } from '../src/harness/cluster.js';
import { freshDatabase, type FreshDatabase } from '../src/harness/postgres.js';
import { report } from '../src/harness/scale.js';
import { CARD_SHOP, TELEGRAM_BOT_TOKEN } from '../src/harness/stack.js';
import type { ServiceProcess } from '../src/harness/service.js';
import { delay, waitFor } from '../src/harness/wait.js';

const SUITE = 'graceful stop';
/** deploy/k8s's BACKEND_DRAIN_DELAY_MS: /readyz answers 503 this long before the listener closes. */
const DRAIN_MS = 2_000;
/** libs/lifecycle's default grace: a stop past it exits 1 ("graceful stop overran"). */
const GRACE_MS = 10_000;
const USER = 7001;

/** One request of a load loop: when it started and how it ended. */
interface Outcome {
  startedAt: number;
  endedAt?: number;
  status?: number;
  error?: string;
  /** The request went out on a kept-alive socket (one the server had accepted and answered on before). */
  reused?: boolean;
}

/** A failed request: node's error code and message, and whether it went out on a reused socket. */
class RequestFailed extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly reused: boolean,
  ) {
    super(message);
  }
}

/** GET over one keep-alive HTTP/1.1 socket (node:http Agent, keepAlive, one socket), as probes and proxies do. */
function keepAliveGet(agent: http.Agent, url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    // node:http's errors come from another realm than jest's (no instanceof Error): read the fields.
    const fail = (err: { code?: unknown; message?: unknown }) =>
      reject(new RequestFailed(typeof err.code === 'string' ? err.code : 'error', String(err.message), req.reusedSocket));
    const req = http.get(url, { agent, headers, timeout: 15_000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', fail);
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', fail);
  });
}

/** Runs `once` back to back (with `gapMs` between) until `until()` is false; every outcome is kept. */
async function loop(once: () => Promise<number>, until: () => boolean, into: Outcome[], gapMs: number): Promise<void> {
  while (until()) {
    const outcome: Outcome = { startedAt: performance.now() };
    into.push(outcome);
    try {
      outcome.status = await once();
    } catch (err: unknown) {
      if (err instanceof RequestFailed) {
        outcome.error = `${err.code}: ${err.message}`;
        outcome.reused = err.reused;
      } else outcome.error = String(err);
    }
    outcome.endedAt = performance.now();
    if (gapMs > 0) await delay(gapMs);
  }
}

const failed = (outcomes: readonly Outcome[], ok: (status: number) => boolean) =>
  outcomes.filter((o) => o.error !== undefined || !ok(o.status ?? 0));
/** Requests in flight at `at` (sent before, answered or failed after). */
const inFlightAt = (outcomes: readonly Outcome[], at: number) => outcomes.filter((o) => o.startedAt < at && (o.endedAt ?? Infinity) > at);
/**
 * Requests that failed although they were sent before `closedAt` (in flight when the listener
 * closed, or on a keep-alive socket it ended under them). From `closedAt` on a request may fail
 * only without having reached the process: refused (ECONNREFUSED), or reset on a new connection
 * (one the kernel had completed in the listen backlog when the listening socket closed: the
 * process never accepted it); a reset on a reused keep-alive socket is a failure.
 */
const failedInFlight = (outcomes: readonly Outcome[], closedAt: number) =>
  outcomes.filter((o) => {
    if (o.startedAt < closedAt) return o.error !== undefined || o.status !== 200;
    if (o.error === undefined) return false;
    return !(o.error.startsWith('ECONNREFUSED') || (o.error.startsWith('ECONNRESET') && o.reused === false));
  });

/**
 * The backend and the gateway, run from their bundles under libs/lifecycle's runService, stop
 * within their grace on SIGTERM while every kind of peer is connected: a keep-alive HTTP/1.1
 * client on the port, the gateways' multiplexed h2c sessions carrying customer calls (backend),
 * the bot's Link and a keep-alive HTTP/1.1 client (gateway). The stop exits 0 inside the grace
 * (the service's own timer decides: no "graceful stop overran"; elapsed time is reported, never
 * asserted, so a loaded machine cannot fail it), and no request the peers had in flight fails.
 */
describe('faults: graceful stop with peers connected', () => {
  let platform: PlatformEmulator;
  let provider: ProviderEmulator;
  let db: FreshDatabase;
  let cluster: Cluster;
  let customer: Customer;

  const gw = (i: number): GatewayReplica => {
    const g = cluster.gateways[i];
    if (!g) throw new Error(`no gateway ${i}`);
    return g;
  };
  /** Index of the gateway holding the bot's Link (from its logs), or -1. */
  const linkHolder = (): number =>
    cluster.gateways.findIndex((g) => {
      if (!g.process.running) return false;
      let open = false;
      for (const l of g.process.logs) {
        if (l.run !== g.process.starts) continue;
        if (l.entry['msg'] === 'bot link opened') open = true;
        if (l.entry['msg'] === 'bot link ended') open = false;
      }
      return open;
    });
  /** SIGTERM and the time to the exit. */
  const timedStop = async (service: ServiceProcess) => {
    const t0 = performance.now();
    const exit = await service.stop(GRACE_MS + 5_000);
    return { exit, ms: Math.round(performance.now() - t0) };
  };

  beforeAll(async () => {
    platform = await startPlatformEmulator({ tokens: [TELEGRAM_BOT_TOKEN] });
    provider = await startProviderEmulator({ shops: [CARD_SHOP] });
    db = await freshDatabase();
    cluster = await startCluster({
      databaseUrl: db.url,
      platformApiRoot: platform.apiRoot,
      providerApiUrl: provider.apiUrl,
      bots: 1,
      logLevel: 'debug',
      backendEnv: { BACKEND_DRAIN_DELAY_MS: String(DRAIN_MS) },
    });
    customer = await telegramCustomer(gw(0).api, USER);
    await waitFor('bot linked', () => linkHolder() >= 0, 20_000);
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    await provider?.stop();
    await platform?.stop();
    await db?.drop();
  });

  it('a backend exits 0 within drain + bound on SIGTERM under keep-alive HTTP/1.1 and h2 traffic, failing nothing in flight', async () => {
    const [b1] = cluster.backends;
    if (!b1) throw new Error('two backends');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let loading = true;
    let probing = true;
    const viaGateways: Outcome[] = [];
    const probes: Outcome[] = [];
    // Customer calls through both gateways (their h2c sessions to both backends) the whole time;
    // the other backend takes them once this one is gone.
    const load = [0, 1, 0, 1].map((i) =>
      loop(
        async () => (await call(`${gw(i).api}/user/wallet`, { headers: bearer(customer), timeoutMs: 15_000 })).status,
        () => loading,
        viaGateways,
        20,
      ),
    );
    // A probe on one keep-alive socket: it keeps polling until the drain delay is nearly over
    // (the backend still serves everything then), so its socket is open when the listener closes.
    const probe = loop(
      () => keepAliveGet(agent, `${b1.url}/livez`),
      () => probing,
      probes,
      50,
    );
    // Back-to-back probes on another keep-alive socket straight through the close: its socket is
    // busy when the listener closes, so the close has to end it right after its response.
    const busyAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const busyProbes: Outcome[] = [];
    const busyProbe = loop(
      () => keepAliveGet(busyAgent, `${b1.url}/livez`),
      () => b1.process.running,
      busyProbes,
      0,
    );
    await delay(1_000);
    const stopping = timedStop(b1.process);
    const closesAt = performance.now() + DRAIN_MS;
    await delay(DRAIN_MS - 300);
    probing = false;
    await probe;
    const { exit, ms } = await stopping;
    await busyProbe;
    await delay(500);
    loading = false;
    await Promise.all(load);
    agent.destroy();
    busyAgent.destroy();
    const stopped = b1.process.messages('backend stopped', b1.process.starts)[0];
    report(
      SUITE,
      `backend SIGTERM: exit ${String(exit.code)} in ${ms} ms (drain ${DRAIN_MS} ms); steps ${JSON.stringify(stopped?.['steps'])}; ` +
        `${viaGateways.length} calls via gateways, ${probes.length} + ${busyProbes.length} keep-alive probes, ` +
        `${inFlightAt(busyProbes, closesAt).length} in flight at the close`,
    );
    expect(b1.process.messages('graceful stop overran', b1.process.starts)).toEqual([]);
    expect(exit.code).toBe(0);
    expect(failed(viaGateways, (s) => s === 200)).toEqual([]);
    expect(failed(probes, (s) => s === 200)).toEqual([]);
    expect(failedInFlight(busyProbes, closesAt)).toEqual([]);
    expect(inFlightAt(busyProbes, closesAt + 100).length).toBeGreaterThan(0);
    await b1.process.start(120_000);
  }, 120_000);

  it('the gateway holding the bot Link exits 0 within the bound on SIGTERM with a keep-alive HTTP/1.1 client, failing nothing in flight', async () => {
    const holder = linkHolder();
    expect(holder).toBeGreaterThanOrEqual(0);
    const g = gw(holder);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    const calls: Outcome[] = [];
    // Customer calls back to back on two keep-alive sockets to the gateway being stopped until it
    // has exited: calls are in flight when its HTTP listener closes, and every later one is refused.
    const load = [0, 1].map(() =>
      loop(
        () => keepAliveGet(agent, `${g.api}/user/wallet`, bearer(customer)),
        () => g.process.running,
        calls,
        0,
      ),
    );
    await delay(1_000);
    const signalledAt = performance.now();
    const { exit, ms } = await timedStop(g.process);
    await Promise.all(load);
    agent.destroy();
    report(
      SUITE,
      `gateway SIGTERM (holding the bot Link): exit ${String(exit.code)} in ${ms} ms; steps ${JSON.stringify(g.process.messages('gateway stopped', g.process.starts)[0]?.['steps'])}; ${calls.length} keep-alive calls, ${inFlightAt(calls, signalledAt).length} in flight at SIGTERM`,
    );
    expect(g.process.messages('graceful stop overran', g.process.starts)).toEqual([]);
    expect(exit.code).toBe(0);
    expect(failedInFlight(calls, signalledAt)).toEqual([]);
    expect(inFlightAt(calls, signalledAt).length).toBeGreaterThan(0);
    await g.process.start(120_000);
    await waitFor('bot linked again', () => linkHolder() >= 0, 20_000);
  }, 120_000);
});
