import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '@wordgame/logging';
import type { World, WorldSnapshot } from './state.js';

/** A world kept in a file: `touch()` after a change, `stop()` writes what is left. */
export interface PersistedWorld {
  touch(): void;
  stop(): void;
}

/**
 * Keeps the emulated world (users, chats and members, messages, invoices, pre-checkout queries,
 * star payments and refunds, update ids) in `file`, so a restarted emulator still knows the star
 * payments that a persistent backend store (PostgreSQL) holds orders for: reconciliation
 * and refunds of earlier orders keep working. Loads the file if it exists, then, once touched,
 * writes it atomically (a temporary file renamed over it) within `intervalMs`, and on `stop()` (always: in-process control calls do not touch it).
 */
export function persistWorld(world: World, file: string, logger: Logger, intervalMs = 500): PersistedWorld {
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text !== undefined) {
    const snapshot = JSON.parse(text) as WorldSnapshot;
    if (snapshot.version !== 1) throw new Error(`${file}: unknown state version ${String(snapshot.version)}`);
    world.restore(snapshot);
    logger.info({ file, payments: snapshot.payments.length, users: snapshot.users.length }, 'platform emulator state loaded');
  }
  let dirty = false;
  const save = (): void => {
    dirty = false;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, `${JSON.stringify(world.toSnapshot())}\n`);
    renameSync(`${file}.tmp`, file);
  };
  const timer = setInterval(() => {
    if (!dirty) return;
    try {
      save();
    } catch (err: unknown) {
      logger.error({ err, file }, 'writing the platform emulator state failed');
    }
  }, intervalMs);
  timer.unref();
  return {
    touch() {
      dirty = true;
    },
    stop() {
      clearInterval(timer);
      save();
    },
  };
}
