import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import Database from 'better-sqlite3';
import { PaymentOutbox } from '../src/payments/outbox.store.js';
import { openBotDb, type TightenedFile } from '../src/store/db.js';
import { startBot } from './support/bot.js';
import { tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';

const certs = tempCerts();
let seq = 0;
let umaskBefore: number;

/** The permission bits of `path`, as octal text (`'600'`), or `'missing'`. */
function modeOf(path: string): string {
  return existsSync(path) ? (statSync(path).mode & 0o777).toString(8) : 'missing';
}

/** The modes of the database file and its `-wal` / `-shm`, while a connection holds them open. */
function modesOf(path: string): Record<string, string> {
  return { db: modeOf(path), wal: modeOf(`${path}-wal`), shm: modeOf(`${path}-shm`) };
}

const OWNER_ONLY = { db: '600', wal: '600', shm: '600' };

beforeAll(() => {
  umaskBefore = process.umask(0o000);
});
afterAll(() => {
  process.umask(umaskBefore);
  certs.cleanup();
});

describe("the bot's SQLite file under a permissive umask (000)", () => {
  it('creates the file, its -wal and its -shm owner-only (0600), and a missing folder 0700', () => {
    const dir = join(certs.dir, `fresh-${++seq}`, 'nested');
    const path = join(dir, 'outbox.sqlite');
    const outbox = PaymentOutbox.open(path);
    try {
      outbox.add({ platformChargeId: 'stx-perm', orderId: 'order-perm', amount: 50n, platformUserId: 42n });
      expect(modesOf(path)).toEqual(OWNER_ONLY);
      expect(modeOf(dir)).toBe('700');
    } finally {
      outbox.close();
    }
  });

  it('narrows an existing file and a leftover -wal / -shm written world-readable, and reports each', () => {
    const path = join(certs.dir, `old-${++seq}.sqlite`);
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE kept (x INTEGER)');
    old.close();
    chmodSync(path, 0o644);
    for (const sidecar of ['-wal', '-shm']) {
      writeFileSync(`${path}${sidecar}`, Buffer.alloc(0));
      chmodSync(`${path}${sidecar}`, 0o666);
    }
    const tightened: TightenedFile[] = [];
    const db = openBotDb(path, { onTightened: (t) => tightened.push(t) });
    try {
      db.exec('INSERT INTO kept VALUES (1)');
      expect(modesOf(path)).toEqual(OWNER_ONLY);
      expect(tightened).toEqual([
        { file: path, was: '644' },
        { file: `${path}-wal`, was: '666' },
        { file: `${path}-shm`, was: '666' },
      ]);
    } finally {
      db.close();
    }
  });

  it('leaves an owner-only file as it is, reporting nothing', () => {
    const path = join(certs.dir, `quiet-${++seq}.sqlite`);
    openBotDb(path).close();
    const tightened: TightenedFile[] = [];
    const db = openBotDb(path, { onTightened: (t) => tightened.push(t) });
    try {
      db.exec('CREATE TABLE IF NOT EXISTS touched (x INTEGER)');
      expect(modesOf(path)).toEqual(OWNER_ONLY);
      expect(tightened).toEqual([]);
    } finally {
      db.close();
    }
  });
});

describe('the running bot', () => {
  let emu: PlatformEmulator;
  let gateway: TestGateway;
  beforeAll(async () => {
    emu = await startPlatformEmulator();
    gateway = await TestGateway.start(certs);
  });
  afterAll(async () => {
    await gateway.close();
    await emu.stop();
  });

  it('opens its outbox owner-only and logs a world-readable one it narrowed', async () => {
    const path = join(certs.dir, `running-${++seq}.sqlite`);
    openBotDb(path).close();
    chmodSync(path, 0o644);
    const running = await startBot(testConfig(certs, { botlink: gateway.url, platform: emu.apiRoot }, { BOT_OUTBOX_PATH: path }), gateway);
    try {
      expect(modesOf(path)).toEqual(OWNER_ONLY);
      expect(running.lines.filter((l) => l['part'] === 'outbox' && l['file'] === path && l['was'] === '644')).toHaveLength(1);
    } finally {
      await running.app.stop();
    }
  });
});
