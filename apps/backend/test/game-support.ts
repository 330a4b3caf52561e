import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import type { Registry } from 'prom-client';
import { buildBackend } from '../src/app.js';
import { loadBackendConfig } from '../src/config/index.js';
import type { Database } from '../src/db/database.js';
import type { Segment } from '../src/gate/context.js';
import { appendOperations } from '../src/ledger/postings/append.js';
import { freshMigratedPostgres } from '../src/testing/databases.js';
import { addBenefits } from '../src/ledger/postings/index.js';
import { TEST_RATE_LIMITS, TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { backendTransport } from './support/harness.js';

/** A clock tests move by hand; the backend's game rules read it through `now()`. */
export class TestClock {
  constructor(private ms: number) {}
  readonly now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
  set(at: Date): void {
    this.ms = at.getTime();
  }
}

/** A real backend on port 0 over a fresh PostgreSQL database, with a test clock. */
export interface GameHarness {
  database: Database & { url: string };
  clock: TestClock;
  games: Client<typeof backendApi.GameService>;
  social: Client<typeof backendApi.SocialService>;
  account: Client<typeof backendApi.AccountService>;
  /** The backend's metrics registry. */
  registry: Registry;
  stop(): Promise<void>;
}

export async function startGameHarness(env: Record<string, string> = {}): Promise<GameHarness> {
  const pg = await freshMigratedPostgres();
  const mailDir = await mkdtemp(path.join(tmpdir(), 'game-mail-'));
  const clock = new TestClock(Date.parse('2030-01-15T10:00:00.000Z'));
  const config = loadBackendConfig({
    ...TEST_SERVICE_TOKENS,
    ...TEST_RATE_LIMITS,
    BACKEND_PORT: '0',
    BACKEND_METRICS_PORT: '0',
    DATABASE_URL: pg.url,
    MAIL_DEV_DIR: mailDir,
    REAPER_INTERVAL_MS: '0',
    MODERATION_LAPSE_INTERVAL_MS: '0',
    ...env,
  });
  const app = buildBackend(config, createLogger('game-test', 'silent'), { now: clock.now });
  const { url } = await app.start();
  const transport = backendTransport(url);
  return {
    database: pg,
    clock,
    games: createClient(backendApi.GameService, transport),
    social: createClient(backendApi.SocialService, transport),
    account: createClient(backendApi.AccountService, transport),
    registry: app.metricsRegistry(),
    stop: async () => {
      await app.stop();
      await pg.close();
      await rm(mailDir, { recursive: true, force: true });
    },
  };
}

/** Grants hint benefits to an origin the way a purchase does: the benefit row and its ledger row together. */
export async function grantHints(db: Database['db'], accountId: bigint, origin: Segment, hints: bigint): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await addBenefits(trx, accountId, origin, { hints, noAdsDays: 0n, noAdsForever: false }, new Date());
    await appendOperations(trx, [{ account_id: accountId, kind: 'grant', benefit_origin: origin, hints_delta: hints, note: 'test hints' }]);
  });
}

export const createBody = (variant: string, vsAi: boolean, opponent = 0n) =>
  encodeTable((b) => fb.GameCreate.createGameCreate(b, b.createString(variant), vsAi, opponent));
export const gameBody = (gameId: bigint) => encodeTable((b) => fb.GameQuery.createGameQuery(b, gameId));
export const moveBody = (gameId: bigint, word: string) => encodeTable((b) => fb.MovePlay.createMovePlay(b, gameId, b.createString(word)));
export const hintBody = (gameId: bigint) => encodeTable((b) => fb.HintAsk.createHintAsk(b, gameId));
export const targetBody = (accountId: bigint) => encodeTable((b) => fb.SocialTarget.createSocialTarget(b, accountId));

export function readState(t: InstanceType<typeof fb.StateView> | null) {
  if (t === null) throw new Error('no state in the table');
  return {
    turn: t.turn(),
    lastWord: t.lastWord(),
    moves: t.moves(),
    hintUnlockLeftSeconds: t.hintUnlockLeftSeconds(),
    status: t.status(),
    requiredLetter: t.requiredLetter(),
    winner: t.winner(),
    finishReason: t.finishReason(),
  };
}

function readSeats(n: number, at: (i: number) => InstanceType<typeof fb.SeatView> | null) {
  return Array.from({ length: n }, (_, i) => {
    const s = at(i);
    return {
      seat: s?.seat(),
      accountId: s?.accountId(),
      displayName: s?.displayName(),
      deleted: s?.deleted(),
      robot: s?.robot(),
      score: s?.score(),
      hintsUsed: s?.hintsUsed(),
    };
  });
}

export function readView(t: InstanceType<typeof fb.GameView>) {
  return {
    gameId: t.gameId(),
    variant: t.variant(),
    vsAi: t.vsAi(),
    noRepeatWords: t.noRepeatWords(),
    seats: readSeats(t.seatsLength(), (i) => t.seats(i)),
    state: readState(t.state()),
    yourSeat: t.yourSeat(),
    words: Array.from({ length: t.wordsLength() }, (_, i) => t.words(i)),
  };
}

export const view = (body: Uint8Array) => decodeTable(body, (bb) => fb.GameView.getRootAsGameView(bb), readView);

export const hintGrant = (body: Uint8Array) =>
  decodeTable(
    body,
    (bb) => fb.HintGrant.getRootAsHintGrant(bb),
    (t) => ({
      word: t.word(),
      source: t.source(),
      benefitOrigin: t.benefitOrigin(),
      allowanceLeft: t.allowanceLeft(),
      state: readState(t.state()),
    }),
  );

export const gameEvent = (body: Uint8Array) =>
  decodeTable(
    body,
    (bb) => fb.GameEvent.getRootAsGameEvent(bb),
    (t) => {
      const move = t.move();
      const v = t.view();
      return {
        kind: t.kind(),
        gameId: t.gameId(),
        move: move && { moveNo: move.moveNo(), seat: move.seat(), word: move.word(), points: move.points(), byRobot: move.byRobot() },
        state: t.state() === null ? null : readState(t.state()),
        seats: readSeats(t.seatsLength(), (i) => t.seats(i)),
        view: v && readView(v),
      };
    },
  );
