import { performance } from 'node:perf_hooks';
import { inspectorUrl, loadLine, rssKiB, runAudit } from '../services.js';
import { signInCustomers, soakProducts } from './customers.js';
import { checkPayments } from './payments-check.js';
import { settledMemory } from './heap.js';
import { sampleHeader, sampleRow, summary } from './print.js';
import type { SoakResult } from './result.js';
import { SERVICES, startSoakStack, type ServiceName, type SoakStack } from './stack.js';
import { Tally } from './tally.js';
import { BASE_RATES, KINDS, Traffic } from './traffic.js';
import {
  errorVerdict,
  memoryVerdict,
  MIN_SAMPLES_PER_THIRD,
  retainedVerdict,
  type MemoryVerdict,
  type RetainedVerdict,
} from './verdict.js';

/** How long and how hard a soak runs. */
export interface SoakOptions {
  seconds: number;
  /** RSS sampling and error-counting interval. */
  sampleSeconds: number;
  /** Multiplies every kind's base rate (traffic.ts BASE_RATES). */
  rate: number;
  /** Direct and telegram customers each. */
  customers: number;
  /** PostgreSQL server URL; the soak makes and drops its own database there. */
  serverUrl: string;
  /** Rebuild the backend, gateway and bot bundles first (the CLI does; the CI test uses the ones Nx built). */
  rebuildApps: boolean;
  write: (line: string) => void;
}

export type { SoakResult } from './result.js';

/**
 * Empties the emulators' request logs (the platform's Bot API call log, the provider's /v3 request
 * log): they keep every request for tests to assert on, which nothing here reads, and would
 * otherwise grow with the load. Their state (users, invoices, payments, notifications) stays.
 */
async function trimEmulatorLogs(stack: SoakStack): Promise<void> {
  for (const url of [`${stack.platform}/_control/calls`, `${stack.provider}/_control/requests`]) {
    const res = await fetch(url, { method: 'DELETE' });
    if (!res.ok) throw new Error(`DELETE ${url}: ${res.status}`);
  }
}

/** Every service's retained memory (heap.ts), MiB; NaN for one whose inspector did not answer (named in a line). */
async function readRetained(stack: SoakStack, write: (line: string) => void): Promise<Record<ServiceName, number>> {
  const read = await Promise.all(
    SERVICES.map(async (s) => {
      try {
        return (await settledMemory(await inspectorUrl(stack.processes[s]))).retainedMiB;
      } catch (err) {
        write(`!! ${s}: could not read its memory after a full GC: ${err instanceof Error ? err.message : String(err)}`);
        return Number.NaN;
      }
    }),
  );
  return Object.fromEntries(SERVICES.map((s, i) => [s, read[i] ?? Number.NaN])) as Record<ServiceName, number>;
}

/** The sampling interval when none is given: every 2 s for a minute's run, every 5 s for ten minutes (about 30 to 120 samples). */
export function defaultSampleSeconds(seconds: number): number {
  return Math.max(1, Math.min(5, Math.round(seconds / 30)));
}

/**
 * Runs a soak: starts the stack (stack.ts), signs customers in, runs the mixed load (traffic.ts)
 * for `seconds` while sampling every service's RSS each `sampleSeconds` and printing a row per
 * sample, waits for every operation still in flight, then checks payments exactly once, runs the
 * ledger audit and judges memory and errors (verdict.ts). Stops everything and drops the database.
 */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const { write } = options;
  const stack: SoakStack = await startSoakStack(options.serverUrl, options.rebuildApps);
  try {
    const customers = await signInCustomers(stack, options.customers);
    const products = await soakProducts(stack.dbUrl);
    const sampleMs = options.sampleSeconds * 1000;
    const intervals = Math.max(1, Math.round(options.seconds / options.sampleSeconds));
    const t0 = performance.now();
    const tally = new Tally(KINDS, t0, sampleMs, intervals);
    const traffic = new Traffic(stack, customers, products, tally, options.rate);
    const rss: Record<ServiceName, number[]> = { backend: [], gateway: [], bot: [], platform: [], provider: [] };
    const pids = Object.fromEntries(SERVICES.map((s) => [s, stack.processes[s].pid ?? 0])) as Record<ServiceName, number>;

    const rates = Object.entries(BASE_RATES).map(([k, r]) => `${k} ${r * options.rate}/s`);
    write(
      `soak: ${options.seconds} s, RSS every ${options.sampleSeconds} s, ${options.customers} direct + ${options.customers} telegram customers, node ${process.version}`,
    );
    write(`load: ${rates.join(', ')}; 75 % of stars orders paid, card orders 60 % paid, 20 % canceled, 20 % left pending`);
    write(`[${loadLine()}]`);
    write(sampleHeader());
    const load = traffic.run(t0 + options.seconds * 1000);
    const died: string[] = [];
    const warmEnd = Math.max(1, Math.round(intervals / 3));
    let warmRetained: Record<ServiceName, number> | undefined;
    for (let i = 0; i < intervals; i += 1) {
      const wait = t0 + (i + 1) * sampleMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      for (const s of SERVICES) {
        try {
          rss[s].push(rssKiB(pids[s]) / 1024);
        } catch {
          rss[s].push(Number.NaN);
        }
      }
      write(
        sampleRow(
          (i + 1) * options.sampleSeconds,
          SERVICES.map((s) => rss[s].at(-1) ?? Number.NaN),
          tally.interval(i),
        ),
      );
      const gone = stack.exited().filter((s) => !died.includes(s));
      died.push(...gone);
      if (gone.length > 0)
        write(
          `!! ${gone.join(', ')} exited (code ${gone.map((s) => stack.processes[s].exitCode ?? stack.processes[s].signalCode).join(', ')})`,
        );
      await trimEmulatorLogs(stack).catch((err: unknown) =>
        write(`!! could not empty the emulators' request logs: ${err instanceof Error ? err.message : String(err)}`),
      );
      if (i + 1 === warmEnd) warmRetained = await readRetained(stack, write);
    }
    await load;
    const endRetained = await readRetained(stack, write);
    const seconds = (performance.now() - t0) / 1000;
    const payments = await checkPayments(stack.dbUrl, traffic.settled);
    await stack.halt();
    const audit = runAudit(stack.dbUrl);

    const kinds = tally.kindTotals();
    const memory = Object.fromEntries(SERVICES.map((s) => [s, memoryVerdict(rss[s], options.seconds)])) as Record<
      ServiceName,
      MemoryVerdict
    >;
    const retained = Object.fromEntries(
      SERVICES.map((s) => [s, retainedVerdict(warmRetained?.[s] ?? Number.NaN, endRetained[s])]),
    ) as Record<ServiceName, RetainedVerdict>;
    const errors = errorVerdict(tally.errorsPerInterval());
    const reasons = [
      ...died.map((s) => `${s} exited during the run`),
      ...kinds.filter((k) => k.requests === 0).map((k) => `${k.kind} made no requests`),
      ...SERVICES.filter((s) => !retained[s].flat).map((s) =>
        Number.isFinite(retained[s].growthMiB)
          ? `${s} retained memory grew (${retained[s].growthMiB.toFixed(1)} MiB after a full GC from the end of warm-up to the end, slack ${retained[s].allowedMiB.toFixed(1)} MiB)`
          : `${s} retained memory not read`,
      ),
      ...SERVICES.filter((s) => memory[s].judged && !memory[s].flat).map((s) =>
        memory[s].growthMiB > memory[s].allowedMiB
          ? `${s} RSS not flat (last-third median ${memory[s].growthMiB.toFixed(1)} MiB above the second third's, slack ${memory[s].allowedMiB.toFixed(1)} MiB)`
          : `${s} RSS not judged: fewer than ${MIN_SAMPLES_PER_THIRD} samples in a third`,
      ),
      ...(errors.noGrowth ? [] : [`errors grew: ${errors.firstThird} in the first third, ${errors.lastThird} in the last`]),
      ...(payments.wrongCount > 0 ? [`${payments.wrongCount} settled orders not credited exactly as expected`] : []),
      ...(payments.doubleCredits !== 0 ? [`${payments.doubleCredits} orders credited more than once`] : []),
      ...(payments.unmatchedPayments !== 0 ? [`${payments.unmatchedPayments} unmatched payments`] : []),
      ...(audit.clean ? [] : ['ledger audit not clean']),
    ];
    const result: SoakResult = { passed: reasons.length === 0, reasons, seconds, kinds, memory, retained, errors, payments, audit };
    for (const line of summary(result)) write(line);
    return result;
  } finally {
    await stack.stop();
  }
}
