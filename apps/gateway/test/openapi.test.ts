import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Registry } from 'prom-client';
import { mountedRoutes } from '../src/api/mount.js';
import { generateDocument, OPENAPI_FILE, renderDocument } from '../src/api/openapi/generate.js';
import { templatePath } from '../src/api/openapi/json-schema.js';
import { OPENAPI_PATH } from '../src/api/openapi/document.js';
import { ALL_ERROR_CODES, errorStatus, type DocErrorCode } from '../src/api/openapi/error-table.js';
import { createApiRouter, documentedRoutes, operationTable } from '../src/api/router.js';
import { backendSessionResolver } from '../src/auth/resolver.js';
import { SessionCache } from '../src/auth/session-cache.js';
import { createBackendClients, type BackendClients } from '../src/backend/client.js';
import { createApiMetrics } from '../src/http/metrics.js';
import { startEdge, type Edge } from './support/edge.js';

type Obj = Record<string, unknown>;
const committedPath = resolve(import.meta.dirname, '../../..', OPENAPI_FILE);
const committed = JSON.parse(readFileSync(committedPath, 'utf8')) as Obj;
const paths = committed['paths'] as Record<string, Record<string, Obj>>;

/** Clients to an address nothing listens on: the tests here only read the routes, no handler calls the backend. */
let backend: BackendClients;
beforeAll(() => {
  backend = createBackendClients('http://127.0.0.1:9', 'openapi-test');
});
afterAll(() => backend.close());

const routes = () => documentedRoutes(operationTable(backend, backendSessionResolver(backend.account, new SessionCache(0))));

describe('the committed API document (apps/gateway/openapi.json)', () => {
  it('equals a fresh generation (run `npm run openapi` after changing a route)', () => {
    // Compared as data: the repository formatter may re-wrap the JSON without changing it.
    expect(committed).toEqual(JSON.parse(renderDocument(generateDocument())));
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(committed);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('resolves every $ref inside the document', () => {
    const schemas = (committed['components'] as { schemas: Obj }).schemas;
    const refs = [...JSON.stringify(committed).matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1] ?? '');
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of new Set(refs))
      expect([ref, ref.startsWith('#/components/schemas/') && Object.hasOwn(schemas, ref.slice(21))]).toEqual([ref, true]);
  });

  it('lists every route the API router mounts, and nothing it does not', () => {
    const router = createApiRouter({
      backend,
      sessions: backendSessionResolver(backend.account, new SessionCache(0)),
      metrics: createApiMetrics(new Registry()),
    });
    const mounted = mountedRoutes(router).map((r) => `${r.method} ${templatePath(r.path)}`);
    expect(mounted.length).toBeGreaterThan(25);
    const documented = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect([...documented].sort()).toEqual([...new Set(mounted)].sort());
    expect(mounted).toContain(`GET ${OPENAPI_PATH}`);
    expect(mounted).toContain('GET /api/v1/games/{id}/events');
  });

  it('has an operationId, a security requirement, a success and the error responses of its codes on every operation', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method} ${path}`;
        expect([where, typeof op['operationId']]).toEqual([where, 'string']);
        expect(ids.has(op['operationId'] as string)).toBe(false);
        ids.add(op['operationId'] as string);
        expect(Array.isArray(op['security'])).toBe(true);
        const responses = op['responses'] as Record<string, Obj>;
        expect(Object.keys(responses).some((s) => s.startsWith('2'))).toBe(true);
        expect(Object.keys(responses)).toContain('500');
        for (const [status, response] of Object.entries(responses)) {
          if (status.startsWith('2')) continue;
          const schema = (response['content'] as Record<string, { schema: Obj }>)['application/json']?.schema;
          const codes = ((((schema?.['properties'] as Obj)['error'] as Obj)['properties'] as Obj)['code'] as { enum: string[] }).enum;
          expect(codes.length).toBeGreaterThan(0);
          for (const code of codes) {
            expect(ALL_ERROR_CODES).toContain(code);
            expect([where, code, errorStatus(code as DocErrorCode)]).toEqual([where, code, Number(status)]);
          }
        }
      }
    }
  });

  it('gives every request body at least one example, and every example validates against the zod schema the handler parses with', () => {
    let checked = 0;
    for (const route of routes()) {
      const op = paths[templatePath(route.path)]?.[route.method];
      const content = (op?.['requestBody'] as { content: Record<string, { examples: Record<string, { value: unknown }> }> } | undefined)
        ?.content;
      const examples = Object.entries(content?.['application/json']?.examples ?? {});
      if (route.doc.body === undefined) {
        expect([route.name, content]).toEqual([route.name, undefined]);
        continue;
      }
      expect([route.name, examples.length > 0]).toEqual([route.name, true]);
      for (const [name, { value }] of examples) {
        const result = route.doc.body.safeParse(value);
        expect([route.name, name, result.success ? 'valid' : result.error.issues]).toEqual([route.name, name, 'valid']);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(15);
  });

  it('an example the handler would refuse fails the check (the zod schema is the one that validates)', () => {
    const buy = routes().find((r) => r.name === 'wallet.buy');
    expect(buy?.doc.body?.safeParse({ product_id: 12 }).success).toBe(false);
    expect(buy?.doc.body?.safeParse({ product_id: '12' }).success).toBe(true);
  });
});

describe('GET /api/v1/openapi.json', () => {
  let edge: Edge;
  beforeAll(async () => {
    // The real HTTP edge; its backend address has no listener, and this route never calls it.
    edge = await startEdge('http://127.0.0.1:9');
  });
  afterAll(() => edge.close());

  it('serves the committed document without authentication', async () => {
    const res = await fetch(`${edge.url}${OPENAPI_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(committed);
  });
});
