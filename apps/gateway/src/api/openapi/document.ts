import type { z } from 'zod';
import type { DocumentedRoute } from '../doc.js';
import { ERROR_SCHEMA, errorResponses } from './errors.js';
import { jsonSchemaOf, templatePath, type Json, type JsonObject } from './json-schema.js';

/** Where the gateway serves the document. */
export const OPENAPI_PATH = '/api/v1/openapi.json';

const SECURITY_SCHEMES: JsonObject = {
  session: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A session token from POST /api/v1/session/{telegram,vk,direct}. Operations marked `x-auth: trusted_session` need a session with a recorded platform; a view-only one is 403 `untrusted_session`.',
  },
  operator: {
    type: 'http',
    scheme: 'bearer',
    description: "An operator session token from POST /_gm/api/session; the operator's roles decide what it may do.",
  },
};

function securityOf(auth: DocumentedRoute['auth']): Json[] {
  if (auth === 'none') return [];
  return [{ [auth === 'operator' ? 'operator' : 'session']: [] }];
}

function parametersOf(schema: z.ZodObject | undefined, where: 'path' | 'query'): JsonObject[] {
  if (schema === undefined) return [];
  const object = jsonSchemaOf(schema, 'input');
  const properties = (object['properties'] ?? {}) as JsonObject;
  const required = new Set((object['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: property,
  }));
}

const IDEMPOTENCY_KEY: JsonObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key answers the stored first result; another request under it is 409 `idempotency_key_reused`.',
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,128}$' },
};

/**
 * A response body's schema: one with a title (a named wire schema) goes to components.schemas once
 * and is referenced, so a shape shared by several routes is written once.
 */
function bodySchema(schema: z.ZodType, components: JsonObject): JsonObject {
  const json = jsonSchemaOf(schema, 'output');
  const title = json['title'];
  if (typeof title !== 'string') return json;
  const known = components[title];
  if (known !== undefined && JSON.stringify(known) !== JSON.stringify(json))
    throw new Error(`two different response schemas are titled ${title}`);
  components[title] = json;
  return { $ref: `#/components/schemas/${title}` };
}

function operationOf(route: DocumentedRoute, operationId: string, components: JsonObject): JsonObject {
  const { doc } = route;
  const parameters = [
    ...parametersOf(doc.params, 'path'),
    ...parametersOf(doc.query, 'query'),
    ...(doc.idempotencyKey === true ? [IDEMPOTENCY_KEY] : []),
  ];
  const operation: JsonObject = { operationId, 'x-operation': route.name, 'x-auth': route.auth, tags: [doc.tag], summary: doc.summary };
  if (doc.description !== undefined) operation['description'] = doc.description;
  operation['security'] = securityOf(route.auth);
  if (parameters.length > 0) operation['parameters'] = parameters;
  if (doc.body !== undefined) {
    const examples: JsonObject = {};
    for (const [name, value] of Object.entries(doc.examples ?? {})) examples[name] = { value: value as Json };
    operation['requestBody'] = { required: true, content: { 'application/json': { schema: jsonSchemaOf(doc.body, 'input'), examples } } };
  }
  const success: JsonObject = { description: doc.success.description };
  if (doc.success.body !== undefined) {
    const mediaType = doc.success.mediaType ?? 'application/json';
    success['content'] =
      mediaType === 'text/event-stream'
        ? { [mediaType]: { schema: { type: 'string' }, 'x-event-data': bodySchema(doc.success.body, components) } }
        : { [mediaType]: { schema: bodySchema(doc.success.body, components) } };
  }
  operation['responses'] = { [String(doc.success.status)]: success, ...errorResponses(route) };
  return operation;
}

/**
 * The OpenAPI 3.1 document of the REST edge (`/api/v1` and the operator API `/_gm/api`), built
 * from the routes' own docs: request schemas are the zod objects the handlers parse with, response
 * schemas the wire schemas of the codecs, errors the edge's code table. operationId is the
 * operation's name (the metrics and log label), suffixed with the method where one name serves two
 * methods. Deterministic: the same routes give the same document byte for byte.
 */
export function apiDocument(routes: readonly DocumentedRoute[]): JsonObject {
  const names = new Map<string, number>();
  for (const r of routes) names.set(r.name, (names.get(r.name) ?? 0) + 1);
  const paths: JsonObject = {};
  const tags: string[] = [];
  const schemas: JsonObject = { Error: ERROR_SCHEMA };
  for (const route of routes) {
    const path = templatePath(route.path);
    const item = (paths[path] ?? {}) as JsonObject;
    const operationId = (names.get(route.name) ?? 0) > 1 ? `${route.name}.${route.method}` : route.name;
    item[route.method] = operationOf(route, operationId, schemas);
    paths[path] = item;
    if (!tags.includes(route.doc.tag)) tags.push(route.doc.tag);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'wordgame gateway REST API',
      version: '1',
      description:
        'The public REST edge `/api/v1` and the operator API `/_gm/api`. Ids and amounts are JSON strings of decimal digits (exact beyond 2^53); amounts are in minor units of their currency (XTR and CHIPS in whole units). Every error is `{"error":{"code","message"}}` with one of the codes listed per response.',
    },
    tags: tags.map((name) => ({ name })),
    paths,
    components: { schemas, securitySchemes: SECURITY_SCHEMES },
  };
}
