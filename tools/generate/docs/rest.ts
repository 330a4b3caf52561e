import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { code, header, table } from './markdown.js';

/** The committed API document, written by `npm run openapi` from the routes (apps/gateway/src/api/openapi). */
export const OPENAPI_DOCUMENT = 'apps/gateway/openapi.json';

type Json = Readonly<Record<string, unknown>>;

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;

function obj(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function refName(ref: unknown): string | undefined {
  const s = str(ref);
  return s?.startsWith('#/components/schemas/') ? s.slice('#/components/schemas/'.length) : undefined;
}

/** A JSON schema in a few words: `Wallet`, `string`, `array of Order`, `"stars" or "card"`. */
function typeOf(schema: unknown): string {
  const s = obj(schema);
  const ref = refName(s['$ref']);
  if (ref !== undefined) return ref;
  if (Array.isArray(s['enum'])) return s['enum'].map((v) => JSON.stringify(v)).join(' or ');
  if (s['const'] !== undefined) return JSON.stringify(s['const']);
  const alternatives = list(s['anyOf']).length > 0 ? list(s['anyOf']) : list(s['oneOf']);
  if (alternatives.length > 0) return alternatives.map(typeOf).join(' or ');
  if (s['type'] === 'array') return `array of ${typeOf(s['items'])}`;
  if (s['type'] === 'object' && s['properties'] !== undefined) {
    const required = new Set(list(s['required']).map(String));
    return `object { ${Object.keys(obj(s['properties']))
      .map((name) => (required.has(name) ? name : `${name}?`))
      .join(', ')} }`;
  }
  if (s['type'] === 'object') return 'object (any keys)';
  return str(s['type']) ?? 'any';
}

/** Top-level fields of an object schema as `name` (type), the optional ones marked `?`. */
function fieldsOf(schema: unknown): string {
  const s = obj(schema);
  const ref = refName(s['$ref']);
  if (ref !== undefined) return code(ref);
  const properties = obj(s['properties']);
  if (Object.keys(properties).length === 0) return typeOf(schema);
  const required = new Set(list(s['required']).map(String));
  const fields = Object.entries(properties).map(([name, field]) => `${code(required.has(name) ? name : `${name}?`)} (${typeOf(field)})`);
  return `{ ${fields.join(', ')} }`;
}

/** The error codes a response lists (`{error:{code}}` narrowed to an enum), by status. */
function errorCodes(responses: Json): string[] {
  return Object.entries(responses)
    .filter(([status]) => Number(status) >= 400)
    .map(([status, response]) => {
      const schema = obj(obj(obj(obj(response)['content'])['application/json'])['schema']);
      const codes = list(obj(obj(obj(obj(schema['properties'])['error'])['properties'])['code'])['enum']).map(String);
      return `${status} ${codes.map(code).join(', ')}`;
    });
}

function successOf(responses: Json): string {
  return Object.entries(responses)
    .filter(([status]) => Number(status) < 400)
    .map(([status, response]) => {
      const content = obj(obj(response)['content']);
      const media = Object.keys(content)[0];
      if (media === undefined) return `${status} (no body)`;
      const schema = obj(content[media])['schema'];
      return `${status} ${media === 'application/json' ? typeOf(schema) : media}`;
    })
    .join('; ');
}

function authOf(operation: Json): string {
  const auth = str(operation['x-auth']);
  switch (auth) {
    case undefined:
    case 'none':
      return 'none';
    case 'session':
      return 'session bearer token';
    case 'trusted_session':
      return 'session bearer token of a trusted session';
    case 'operator':
      return 'operator bearer token';
    default:
      return auth;
  }
}

/** docs/reference/rest.md from the API document: operations by tag, then the named schemas. */
export function renderRest(root: string): string {
  const document = obj(JSON.parse(readFileSync(join(root, OPENAPI_DOCUMENT), 'utf8')));
  const paths = obj(document['paths']);
  const operations = Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((m) => obj(item)[m] !== undefined).map((method) => ({ path, method, op: obj(obj(item)[method]) })),
  );
  const tags = list(document['tags']).map((t) => str(obj(t)['name']) ?? '');
  for (const { op } of operations) for (const t of list(op['tags']).map(String)) if (!tags.includes(t)) tags.push(t);
  const sections = tags.map((tag) => {
    const ops = operations.filter(({ op }) => list(op['tags']).includes(tag));
    const body = ops.map(({ path, method, op }) => {
      const parameters = list(op['parameters']).map((p) => {
        const param = obj(p);
        const name = str(param['name']) ?? '';
        const where = `${str(param['in']) ?? ''}${param['required'] === true ? ', required' : ''}`;
        const text = str(param['description']);
        return `${code(name)} (${where}; ${typeOf(param['schema'])})${text === undefined ? '' : `: ${text}`}`;
      });
      const requestContent = obj(obj(op['requestBody'])['content']);
      const requestMedia = Object.keys(requestContent)[0];
      const lines = [
        `### ${method.toUpperCase()} ${path}`,
        '',
        `${str(op['summary']) ?? ''}. Operation ${code(str(op['operationId']) ?? '')}; auth: ${authOf(op)}.`,
        ...(str(op['description']) === undefined ? [] : ['', str(op['description']) ?? '']),
        '',
        ...parameters.map((p) => `- parameter ${p}`),
        ...(requestMedia === undefined
          ? []
          : [`- request body (${requestMedia}): ${fieldsOf(obj(requestContent[requestMedia])['schema'])}`]),
        `- success: ${successOf(obj(op['responses']))}`,
        `- errors: ${errorCodes(obj(op['responses'])).join('; ')}`,
        '',
      ];
      return lines.join('\n');
    });
    return [`## ${tag}`, '', ...body].join('\n');
  });
  const overview = table(
    ['method', 'path', 'operation', 'auth', 'summary'],
    operations.map(({ path, method, op }) => [
      method.toUpperCase(),
      path,
      code(str(op['operationId']) ?? ''),
      authOf(op),
      str(op['summary']) ?? '',
    ]),
  );
  const schemas = Object.entries(obj(obj(document['components'])['schemas'])).map(([name, schema]) => {
    const s = obj(schema);
    const required = new Set(list(s['required']).map(String));
    const rows = Object.entries(obj(s['properties'])).map(([field, f]) => [
      code(field),
      typeOf(f),
      required.has(field) ? 'yes' : 'no',
      str(obj(f)['description']) ?? '',
    ]);
    return [`### ${name}`, '', rows.length === 0 ? typeOf(schema) : table(['field', 'type', 'required', 'description'], rows), ''].join(
      '\n',
    );
  });
  const info = obj(document['info']);
  return [
    header('REST reference', `the API document \`${OPENAPI_DOCUMENT}\` (itself written by \`npm run openapi\` from the routes)`),
    str(info['description']) ?? '',
    '',
    'The gateway also serves the document at `GET /api/v1/openapi.json`.',
    '',
    '## Operations',
    '',
    overview,
    '',
    ...sections,
    '## Schemas',
    '',
    ...schemas,
  ].join('\n');
}
