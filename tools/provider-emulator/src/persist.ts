import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EmulatorState, PaymentRecord, RefundRecord } from './state.js';

/** The file's shape: payments and refunds as stored, minor-unit amounts as decimal strings. */
interface Snapshot {
  version: 1;
  payments: Array<Omit<PaymentRecord, 'amountMinor' | 'refundedMinor'> & { amountMinor: string; refundedMinor: string }>;
  refunds: Array<Omit<RefundRecord, 'amountMinor'> & { amountMinor: string }>;
}

function snapshotOf(state: EmulatorState): string {
  const snapshot: Snapshot = {
    version: 1,
    payments: [...state.payments.values()].map((p) => ({
      ...p,
      amountMinor: p.amountMinor.toString(),
      refundedMinor: p.refundedMinor.toString(),
    })),
    refunds: [...state.refunds.values()].map((r) => ({ ...r, amountMinor: r.amountMinor.toString() })),
  };
  return `${JSON.stringify(snapshot)}\n`;
}

/**
 * Keeps the emulator's payments and refunds in `file` (JSON), so that a restarted emulator still
 * knows the payments a persistent backend store (PostgreSQL) holds orders for, and refunds
 * of earlier orders keep working. Loads the file if it exists (a payment of a shop no longer
 * configured is dropped), then writes it atomically whenever the state changed (checked every
 * `intervalMs`) and on `stop()`.
 */
export function persistState(state: EmulatorState, file: string, intervalMs = 500): { stop(): void } {
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text !== undefined) {
    const snapshot = JSON.parse(text) as Snapshot;
    if (snapshot.version !== 1) throw new Error(`${file}: unknown state version ${String(snapshot.version)}`);
    for (const p of snapshot.payments) {
      if (state.shops.has(p.shopId))
        state.payments.set(p.object.id, { ...p, amountMinor: BigInt(p.amountMinor), refundedMinor: BigInt(p.refundedMinor) });
    }
    for (const r of snapshot.refunds) {
      if (state.shops.has(r.shopId)) state.refunds.set(r.object.id, { ...r, amountMinor: BigInt(r.amountMinor) });
    }
  }
  let written = snapshotOf(state);
  const save = (): void => {
    const now = snapshotOf(state);
    if (now === written) return;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, now);
    renameSync(`${file}.tmp`, file);
    written = now;
  };
  const timer = setInterval(save, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      save();
    },
  };
}
