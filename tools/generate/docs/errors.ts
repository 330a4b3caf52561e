import { Code, ConnectError } from '@connectrpc/connect';
import { ERROR_CODE_HEADER, ERRORS, type ErrorSpec } from '@wordgame/contracts';
import { failureOf } from '../../../apps/gateway/src/console/backend.js';
import { fromBackendError } from '../../../apps/gateway/src/http/backend-errors.js';
import { code, header, table } from './markdown.js';

const AUDIENCES = new Set(['client', 'service', 'edge']);

/** A Connect code as gRPC names it in snake case, with its number (`invalid_argument (3)`). */
function connectName(connect: Code): string {
  const name = Code[connect];
  return `${name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase()} (${connect})`;
}

/**
 * What is wrong with each registry entry the reference could not show: an HTTP status that is not
 * an error status (4xx or 5xx), a Connect code that does not exist, an empty message, an unknown
 * audience. Empty when the registry is complete.
 */
export function errorProblems(registry: Readonly<Record<string, ErrorSpec>>): string[] {
  return Object.entries(registry).flatMap(([name, spec]) => {
    const problems: string[] = [];
    if (!Number.isInteger(spec.http) || spec.http < 400 || spec.http > 599)
      problems.push(`${name}: HTTP status ${spec.http} is not an error status`);
    if (typeof (Code as Record<number, unknown>)[spec.connect] !== 'string')
      problems.push(`${name}: ${spec.connect} is not a Connect code`);
    if (spec.message.trim() === '') problems.push(`${name}: no default message`);
    if (!AUDIENCES.has(spec.audience)) problems.push(`${name}: unknown audience ${spec.audience}`);
    return problems;
  });
}

/** A backend failure that names `name` in `x-error-code`, as the gateway receives it. */
function backendFailure(name: string, spec: ErrorSpec): ConnectError {
  return new ConnectError(spec.message, spec.connect, { [ERROR_CODE_HEADER]: name });
}

/**
 * What the REST edge answers for a backend failure naming `name` (apps/gateway/src/http/backend-errors.ts):
 * the code itself for a `client` code, else the edge code of its Connect code.
 */
function restAnswer(name: string, spec: ErrorSpec): string {
  const answer = fromBackendError(backendFailure(name, spec));
  if (answer === undefined) throw new Error(`${name}: the REST edge does not map it`);
  return answer.code === name ? `${answer.status} ${code(name)}` : `${answer.status} ${code(answer.code)}`;
}

/** What the operator console answers for a backend failure naming `name` (apps/gateway/src/console/backend.ts). */
function consoleAnswer(name: string, spec: ErrorSpec): string {
  const answer = failureOf(backendFailure(name, spec));
  return `${answer.status} ${code(answer.errorCode)}`;
}

/** docs/reference/errors.md: the registry with its status and code at each edge; throws on an incomplete entry. */
export function renderErrors(registry: Readonly<Record<string, ErrorSpec>> = ERRORS): string {
  const problems = errorProblems(registry);
  if (problems.length > 0) throw new Error(`the error registry is incomplete:\n  ${problems.join('\n  ')}`);
  const entries = Object.entries(registry);
  const rows = entries.map(([name, spec]) => [
    code(name),
    spec.audience,
    String(spec.http),
    connectName(spec.connect),
    spec.audience === 'edge' ? '—' : restAnswer(name, spec),
    spec.audience === 'edge' ? '—' : consoleAnswer(name, spec),
    spec.message,
  ]);
  const byStatus = new Map<number, string[]>();
  for (const [name, spec] of entries) {
    if (spec.audience === 'service') continue;
    byStatus.set(spec.http, [...(byStatus.get(spec.http) ?? []), code(name)]);
  }
  const statusRows = [...byStatus.entries()].sort(([a], [b]) => a - b).map(([status, codes]) => [String(status), codes.join(', ')]);
  return [
    header(
      'Error reference',
      "the error registry (`libs/contracts/src/errors.ts`) and the REST edge's mapping of backend failures (`apps/gateway/src/http/backend-errors.ts`)",
    ),
    'Every failure a client or an operator sees carries one code of a closed set, defined once with its',
    'Connect (gRPC) code, its HTTP status at the REST edge and a default message safe to show. REST errors',
    'are always `{"error":{"code","message"}}`; a Connect failure carries the code in the `x-error-code`',
    'response header.',
    '',
    "Audience: `client` codes are raised by the backend and reach REST clients by name with the backend's",
    'message; `service` codes are raised by the backend for a trusted caller (the gateway, the operator',
    'console, bot intake) and the REST edge answers them by their Connect code instead, never by name;',
    '`edge` codes are raised by an edge itself. A code the gateway does not know (a newer backend) is',
    'answered by its Connect code too.',
    '',
    'The two "answers" columns are what each edge of the gateway answers when a backend failure names a',
    '`client` or `service` code: the REST edge (`/api/v1`, `/_gm/api`) and the operator console (`/_gm`). An',
    '`edge` code is answered with the status of its HTTP status column by the edge that raises it.',
    '',
    '## Codes',
    '',
    table(['code', 'audience', 'HTTP status', 'Connect (gRPC) code', 'REST answers', 'console answers', 'default message'], rows),
    '',
    '## Codes a REST client can receive, by HTTP status',
    '',
    table(['status', 'codes'], statusRows),
    '',
  ].join('\n');
}
