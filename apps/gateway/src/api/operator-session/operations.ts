import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { z } from 'zod';
import type { BackendClients } from '../../backend/index.js';
import { isoFromUnix } from '../fbs-read.js';
import type { Operation } from '../operation.js';
import { jsonBody, parseInput } from '../validation.js';
import { operatorGrantWire } from './wire.js';

const signInBody = z
  .object({
    login: z.string().min(1, 'must not be empty').max(254, 'is too long'),
    password: z.string().min(1, 'must not be empty').max(256, 'is too long'),
  })
  .strict();

/**
 * Sign-in and sign-out of the operator API: the same operators, passwords, sessions, roles,
 * audit and sign-in limits as the console (ConsoleService.SignIn/SignOut). The token answered is
 * the `Authorization: Bearer` of every other /_gm/api call.
 */
export function operatorSessionOperations(backend: BackendClients): Operation[] {
  return [
    {
      name: 'operator.session_open',
      method: 'post',
      path: '/_gm/api/session',
      auth: 'none',
      doc: {
        tag: 'operator',
        summary: 'Operator sign-in',
        body: signInBody,
        examples: { signIn: { login: 'alice', password: 'operator password' } },
        success: { status: 200, description: 'The operator session.', body: operatorGrantWire },
        errors: ['invalid_credentials', 'rate_limited'],
      },
      async handle({ req, call }) {
        const input = parseInput(signInBody, jsonBody(req));
        const body = encodeTable((b) =>
          fb.OperatorSignIn.createOperatorSignIn(b, b.createString(input.login), b.createString(input.password)),
        );
        const grant = await backend.console.signIn({ body }, call);
        return {
          status: 200,
          body: decodeTable(
            grant.body,
            (bb) => fb.OperatorGrant.getRootAsOperatorGrant(bb),
            (t) => ({
              token: t.token() ?? '',
              expires_at: isoFromUnix(t.operator()?.expiresAtUnix() ?? 0n),
              login: t.operator()?.login() ?? '',
              roles: Array.from({ length: t.operator()?.rolesLength() ?? 0 }, (_, i) => t.operator()?.roles(i) ?? ''),
            }),
          ),
        };
      },
    },
    {
      name: 'operator.session_close',
      method: 'delete',
      path: '/_gm/api/session',
      auth: 'operator',
      doc: { tag: 'operator', summary: 'Operator sign-out', success: { status: 204, description: 'Signed out.' }, errors: [] },
      async handle({ call }) {
        await backend.console.signOut({ body: encodeTable((b) => fb.OperatorLookup.createOperatorLookup(b)) }, call);
        return { status: 204 };
      },
    },
  ];
}
