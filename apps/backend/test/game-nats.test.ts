import { PermissionViolationError, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '@wordgame/logging';
import { connectNats, SEAL_HEADER_BYTES } from '@wordgame/service-kit';
import { startNatsServer, TEST_SERVICE_TOKENS, type NatsTestServer, type NatsUser } from '@wordgame/testkit';
import { chooseWord } from '../src/game/dictionary.js';
import { gameEventSeal, gameSubject } from '../src/game/nats-bus.js';
import { requiredLetter } from '../src/game/rules.js';
import { as } from './support/harness.js';
import { newAccount } from './support/wallet.js';
import { createBody, gameBody, gameEvent, moveBody, startGameHarness, view, type GameHarness } from './game-support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!(await done())) {
    if (performance.now() > until) throw new Error(`timed out: ${what}`);
    await sleep(10);
  }
}

/** The permission violations the server reports on `nc`, as they arrive. */
function permissionErrors(nc: NatsConnection): PermissionViolationError[] {
  const seen: PermissionViolationError[] = [];
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'error' && s.error instanceof PermissionViolationError) seen.push(s.error);
  })();
  return seen;
}

/**
 * A backend with NATS_URL on a real nats-server run with ops/nats/nats.conf: its watchers get what
 * another replica publishes with the backends' seal, and nothing else that lands on the subject.
 */
describe('live game events over a real NATS server', () => {
  let server: NatsTestServer;
  let h: GameHarness;
  const conns: NatsConnection[] = [];
  beforeAll(async () => {
    server = await startNatsServer();
    h = await startGameHarness(server.env('backend'));
  });
  afterAll(async () => {
    for (const nc of conns) await nc.close();
    await h.stop();
    await server.stop();
  });

  const client = async (user: NatsUser) => {
    const nc = await connectNats(
      { servers: [server.url], seed: user.seed, pingIntervalMs: 2_000, name: 'game-nats-test' },
      createLogger('game-nats-test', 'silent'),
    );
    conns.push(nc);
    return nc;
  };
  const rejected = async (reason: string) =>
    (await h.registry.getSingleMetric('backend_nats_rejected_total')?.get())?.values.find((v) => v.labels['reason'] === reason)?.value;
  const watch = (who: bigint, gameId: bigint) => {
    const abort = new AbortController();
    const stream = h.games
      .watchGame({ body: gameBody(gameId) }, { ...as(who, 'direct;web'), signal: abort.signal })
      [Symbol.asyncIterator]();
    return {
      next: async () => {
        const r = await stream.next();
        if (r.done) throw new Error('stream ended');
        return gameEvent(r.value.body);
      },
      stop: () => abort.abort(),
    };
  };

  it('a sealed event reaches the watcher; replayed, forged, stale and garbage ones are dropped and counted, and the gateway NKEY can neither read nor inject', async () => {
    const me = await newAccount(h.database.db);
    const g = view((await h.games.createGame({ body: createBody('classic', true, 0n) }, as(me, 'direct;web'))).body);
    const subject = gameSubject(server.prefix, g.gameId);
    const events = watch(me, g.gameId);
    try {
      expect(await events.next()).toMatchObject({ kind: 'snapshot', gameId: g.gameId });
      // What the backend publishes, as a holder of the backend NKEY sees it.
      const spy = await client(server.backend);
      const captured: Msg[] = [];
      spy.subscribe(subject, { callback: (_err, m) => void captured.push(m) });
      await spy.flush();
      await h.games.playMove({ body: moveBody(g.gameId, 'apple') }, as(me, 'direct;web'));
      expect(await events.next()).toMatchObject({ kind: 'opponent_moved', move: { moveNo: 2, seat: 1, word: 'eagle', byRobot: true } });

      // A resignation another replica publishes (the backends' seal): delivered, and captured too.
      const moved = JSON.parse(new TextDecoder().decode((captured.at(-1) as Msg).data.subarray(SEAL_HEADER_BYTES))) as { game: unknown };
      const resigned = new TextEncoder().encode(JSON.stringify({ kind: 'resigned', game: moved.game, seat: 1 }));
      const now = () => h.clock.now().getTime();
      const peer = gameEventSeal(TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN, now);
      spy.publish(subject, peer.seal(subject, resigned).bytes);
      expect(await events.next()).toMatchObject({ kind: 'opponent_resigned' });
      await waitFor('the peer event captured', () => captured.length >= 3);

      // A holder of the backend NKEY alone: every copy replayed, a forgery, a copy sealed 31 s ago, garbage.
      const copies = [...captured];
      for (const m of copies) spy.publish(subject, m.data);
      spy.publish(subject, gameEventSeal('not-the-backend-service-token-0123456789', now).seal(subject, resigned).bytes);
      spy.publish(subject, gameEventSeal(TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN, () => now() - 31_000).seal(subject, resigned).bytes);
      spy.publish(subject, new Uint8Array([1, 2, 3]));
      await spy.flush();

      // A holder of the gateway NKEY: refused by the server both ways, a valid seal notwithstanding.
      const gw = await client(server.gateway);
      const refused = permissionErrors(gw);
      const reading = (async () => {
        for await (const _ of gw.subscribe(subject)) return 'read an event';
        return 'ended';
      })().catch((err: unknown) => err);
      gw.publish(subject, peer.seal(subject, resigned).bytes);
      await gw.flush();
      await waitFor('two permission violations', () => refused.length >= 2);
      expect(await reading).toBeInstanceOf(PermissionViolationError);
      expect(refused.map((e) => `${e.operation} ${e.subject}`).sort()).toEqual([`publish ${subject}`, `subscription ${subject}`]);

      // Nothing of that reached the watcher: its next event is the next real move.
      const word = chooseWord(requiredLetter('eagle'), new Set(['apple', 'eagle']), true) ?? 'none';
      await h.games.playMove({ body: moveBody(g.gameId, word) }, as(me, 'direct;web'));
      expect(await events.next()).toMatchObject({ kind: 'opponent_moved', move: { moveNo: 4, seat: 1, byRobot: true } });
      await waitFor(
        'each rejection counted',
        async () =>
          (await rejected('replay')) === copies.length &&
          (await rejected('bad_mac')) === 1 &&
          (await rejected('stale')) === 1 &&
          (await rejected('malformed')) === 1,
      );
    } finally {
      events.stop();
    }
  });
});
