import type { Database } from '../db/index.js';
import type { Clock } from '../support/index.js';
import { probeDatabase } from './system.store.js';

/** What the backend reports about itself to health probes and SystemService.Check. */
export interface SystemStatus {
  status: 'ok' | 'degraded';
  version: string;
  database: 'postgres';
  databaseLatencyUs: bigint;
  uptimeSeconds: bigint;
}

/**
 * Probes the database with a trivial query (bounded by `timeoutMs`) and reports readiness; a
 * database that does not answer makes the backend `degraded`, never a thrown error.
 */
export async function checkSystem(
  database: Database,
  startedAt: number,
  version: string,
  clock: Clock,
  timeoutMs = 2_000,
): Promise<SystemStatus> {
  const t0 = process.hrtime.bigint();
  let ok = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('database probe timed out')), timeoutMs);
    });
    await Promise.race([probeDatabase(database.db), timeout]);
    ok = true;
  } catch {
    ok = false;
  } finally {
    clearTimeout(timer);
  }
  return {
    status: ok ? 'ok' : 'degraded',
    version,
    database: 'postgres',
    databaseLatencyUs: ok ? (process.hrtime.bigint() - t0) / 1000n : -1n,
    uptimeSeconds: BigInt(Math.floor((clock().getTime() - startedAt) / 1000)),
  };
}
