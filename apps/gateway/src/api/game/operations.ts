import { ConnectError } from '@connectrpc/connect';
import { encodeTable, fb, HINT_UNLOCK_HEADER } from '@wordgame/contracts';
import type { Request } from 'express';
import { z } from 'zod';
import type { BackendClients } from '../../backend/index.js';
import type { Operation } from '../operation.js';
import { byField, idParam, jsonBody, parseInput } from '../validation.js';
import { readGame, readHint } from './codec.js';
import { gameWire, hintWire } from './wire.js';

const createBody = z
  .object({
    variant: z.enum(['classic', 'no_repeat']),
    vs_ai: z.boolean().default(false),
    opponent_account_id: idParam.optional(),
  })
  .strict();

const moveBody = z.object({ word: z.string().min(1).max(64) }).strict();

/** The `:id` path parameter of a game route. */
export const gamePath = z.object({ id: idParam });

/** The `:id` path parameter as a game id; anything else is 400 `invalid_game_id`. */
export function gameIdParam(req: Request): bigint {
  return parseInput(gamePath, req.params, 'invalid_game_id').id;
}

const gameErrors = ['invalid_game_id', 'unknown_game'] as const;
const playErrors = [...gameErrors, 'game_finished', 'not_your_turn'] as const;

const gameQuery = (gameId: bigint) => encodeTable((b) => fb.GameQuery.createGameQuery(b, gameId));

/**
 * The word game's REST operations. Reading a game needs a session; anything that changes a game
 * needs a trusted one (a session without a recorded platform is view-only). Bodies and ids as in
 * the README: ids are decimal strings, `hint_unlock_left_seconds` whole seconds.
 */
export function gameOperations(backend: BackendClients): Operation[] {
  return [
    {
      name: 'game.create',
      method: 'post',
      path: '/api/v1/games',
      auth: 'trusted_session',
      doc: {
        tag: 'game',
        summary: 'Start a game against the robot or invite another account',
        body: createBody,
        examples: { robot: { variant: 'classic', vs_ai: true }, invite: { variant: 'no_repeat', opponent_account_id: '42' } },
        success: { status: 201, description: 'The new game.', body: gameWire },
        errors: ['invalid_variant', 'invalid_opponent', 'unknown_account', 'blocked', 'account_deleted'],
      },
      async handle({ req, call }) {
        const input = parseInput(
          createBody,
          jsonBody(req),
          byField({ variant: 'invalid_variant', opponent_account_id: 'invalid_opponent' }),
        );
        const body = encodeTable((b) =>
          fb.GameCreate.createGameCreate(b, b.createString(input.variant), input.vs_ai, input.opponent_account_id ?? 0n),
        );
        return { status: 201, body: readGame((await backend.game.createGame({ body }, call)).body) };
      },
    },
    {
      name: 'game.get',
      method: 'get',
      path: '/api/v1/games/:id',
      auth: 'session',
      doc: {
        tag: 'game',
        summary: 'A game the caller sits in',
        params: gamePath,
        success: { status: 200, description: 'The game.', body: gameWire },
        errors: gameErrors,
      },
      async handle({ req, call }) {
        return { status: 200, body: readGame((await backend.game.getGame({ body: gameQuery(gameIdParam(req)) }, call)).body) };
      },
    },
    {
      name: 'game.move',
      method: 'post',
      path: '/api/v1/games/:id/moves',
      auth: 'trusted_session',
      doc: {
        tag: 'game',
        summary: 'Play a word',
        params: gamePath,
        body: moveBody,
        examples: { word: { word: 'apple' } },
        success: { status: 200, description: "The game after the move (and the robot's answer).", body: gameWire },
        errors: [...playErrors, 'invalid_word', 'unknown_word', 'wrong_letter', 'word_repeated'],
      },
      async handle({ req, call }) {
        const gameId = gameIdParam(req);
        const { word } = parseInput(moveBody, jsonBody(req), 'invalid_word');
        const body = encodeTable((b) => fb.MovePlay.createMovePlay(b, gameId, b.createString(word)));
        return { status: 200, body: readGame((await backend.game.playMove({ body }, call)).body) };
      },
    },
    {
      name: 'game.hint',
      method: 'post',
      path: '/api/v1/games/:id/hints',
      auth: 'trusted_session',
      doc: {
        tag: 'game',
        summary: 'Ask for a hint (a valid next word)',
        description: 'A `hint_locked` refusal carries `Retry-After` with the seconds until hints unlock.',
        params: gamePath,
        success: { status: 200, description: 'The hint.', body: hintWire },
        errors: [...playErrors, 'no_hints_left', 'no_word_available', 'hint_locked', 'account_suspended'],
      },
      async handle({ req, call }) {
        const body = encodeTable((b) => fb.HintAsk.createHintAsk(b, gameIdParam(req)));
        try {
          return { status: 200, body: readHint((await backend.game.useHint({ body }, call)).body) };
        } catch (err: unknown) {
          const left = err instanceof ConnectError ? err.metadata.get(HINT_UNLOCK_HEADER) : null;
          if (left !== null && /^[0-9]{1,6}$/.test(left)) req.res?.set('Retry-After', left);
          throw err;
        }
      },
    },
    {
      name: 'game.resign',
      method: 'post',
      path: '/api/v1/games/:id/resign',
      auth: 'trusted_session',
      doc: {
        tag: 'game',
        summary: 'Resign the game',
        params: gamePath,
        success: { status: 200, description: 'The finished game.', body: gameWire },
        errors: playErrors,
      },
      async handle({ req, call }) {
        return { status: 200, body: readGame((await backend.game.resign({ body: gameQuery(gameIdParam(req)) }, call)).body) };
      },
    },
  ];
}
