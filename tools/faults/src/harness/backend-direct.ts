import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { TEST_SERVICE_TOKENS } from '@wordgame/testkit';

/** The game and console services of ONE backend replica, called as a gateway calls them. */
export interface DirectBackend {
  game: Client<typeof backendApi.GameService>;
  console: Client<typeof backendApi.ConsoleService>;
}

/** Clients of the backend at `url` with the gateway's service token. */
export function directBackend(url: string): DirectBackend {
  const authorization = `Bearer ${TEST_SERVICE_TOKENS.BACKEND_SERVICE_TOKEN}`;
  const transport = createConnectTransport({
    baseUrl: url,
    httpVersion: '2',
    interceptors: [(next) => (req) => (req.header.set('authorization', authorization), next(req))],
  });
  return { game: createClient(backendApi.GameService, transport), console: createClient(backendApi.ConsoleService, transport) };
}

/** The caller headers the gateway sets for a signed-in telegram player. */
export const asPlayer = (accountId: string) => ({
  headers: { 'x-account-id': accountId, 'x-platform': 'telegram', 'x-request-id': `scale-${accountId}` },
});

/** Plays `word` in `gameId` on this replica; answers the number of moves after it. */
export async function playMove(backend: DirectBackend, accountId: string, gameId: bigint, word: string): Promise<number> {
  const res = await backend.game.playMove(
    { body: encodeTable((b) => fb.MovePlay.createMovePlay(b, gameId, b.createString(word))) },
    asPlayer(accountId),
  );
  return decodeTable(
    res.body,
    (bb) => fb.GameView.getRootAsGameView(bb),
    (t) => t.state()?.moves() ?? -1,
  );
}

/** One decoded live event: its kind and, for a move, who made it and the word. */
export interface LiveEvent {
  kind: string;
  seat: number | undefined;
  word: string | undefined;
  byRobot: boolean | undefined;
}

/** Opens WatchGame for `gameId` on this replica; events land in `into` until `signal` aborts. */
export function watch(backend: DirectBackend, accountId: string, gameId: bigint, signal: AbortSignal, into: LiveEvent[]): Promise<void> {
  const stream = backend.game.watchGame(
    { body: encodeTable((b) => fb.GameQuery.createGameQuery(b, gameId)) },
    { ...asPlayer(accountId), signal, timeoutMs: 0 },
  );
  return (async () => {
    try {
      for await (const res of stream) {
        into.push(
          decodeTable(
            res.body,
            (bb) => fb.GameEvent.getRootAsGameEvent(bb),
            (t) => {
              const move = t.move();
              return { kind: t.kind() ?? '', seat: move?.seat(), word: move?.word() ?? undefined, byRobot: move?.byRobot() };
            },
          ),
        );
      }
    } catch {
      // aborted at the end of the test
    }
  })();
}

/** Moderates an account on this replica as the operator of `operatorToken`; answers the chat gate lines. */
export async function moderate(
  backend: DirectBackend,
  operatorToken: string,
  accountId: string,
  action: 'block' | 'unblock',
): Promise<string[]> {
  const res = await backend.console.moderate(
    {
      body: encodeTable((b) =>
        fb.ModerationAction.createModerationAction(b, BigInt(accountId), b.createString(action), 0n, b.createString('scale test')),
      ),
    },
    { headers: { 'x-operator-session': operatorToken } },
  );
  return decodeTable(
    res.body,
    (bb) => fb.ModerationResult.getRootAsModerationResult(bb),
    (t) => Array.from({ length: t.chatGateLength() }, (_, i) => t.chatGate(i) ?? ''),
  );
}
