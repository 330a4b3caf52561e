import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { createLogger } from '@wordgame/logging';
import type { OperationDoc } from '../src/api/doc.js';
import { mountedRoutes, mountOperations } from '../src/api/mount.js';
import type { Operation } from '../src/api/operation.js';
import { ApiError } from '../src/http/api-error.js';
import { errorHandler, notFound } from '../src/http/errors.js';
import { bindRequestLog, requestContext } from '../src/http/request-context.js';

const logger = createLogger('mount-test', 'silent');

const doc: OperationDoc = { tag: 'test', summary: 'a test route', success: { status: 200, description: 'ok' }, errors: [] };

const operations: Operation[] = [
  {
    name: 'fixed.get',
    method: 'get',
    path: '/api/v1/things',
    auth: 'none',
    doc,
    handle: () => Promise.resolve({ status: 200, body: { op: 'fixed.get' } }),
  },
  {
    name: 'fixed.post',
    method: 'post',
    path: '/api/v1/things',
    auth: 'none',
    doc,
    handle: () => Promise.resolve({ status: 201, body: { op: 'fixed.post' } }),
  },
  {
    name: 'param.get',
    method: 'get',
    path: '/api/v1/things/:id',
    auth: 'none',
    doc,
    handle: ({ req }) => Promise.resolve({ status: 200, body: { op: 'param.get', id: req.params['id'] } }),
  },
  { name: 'fails', method: 'get', path: '/api/v1/fails', auth: 'none', doc, handle: () => Promise.reject(new ApiError('unknown_product')) },
  {
    name: 'guarded',
    method: 'get',
    path: '/api/v1/guarded',
    auth: 'session',
    doc,
    handle: () => Promise.resolve({ status: 200, body: {} }),
  },
];

describe('operation mounting (fixed paths by lookup, parameterised by Express)', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];

  beforeAll(async () => {
    const app = express();
    app.use(requestContext(app, logger));
    const router = express.Router();
    mountOperations(router, operations, {
      sessions: { resolve: () => Promise.resolve(null) },
      metrics: { observe: (operation, status) => seen.push(`${operation} ${status}`) },
    });
    app.use(router);
    app.use(notFound);
    app.use(errorHandler(logger));
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const body = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${base}${path}`, init);
    return {
      status: res.status,
      json: res.status === 200 || res.status === 201 || res.status >= 400 ? ((await res.json()) as Record<string, unknown>) : undefined,
    };
  };

  it('matches a fixed path as Express would: by method, in any case, with or without a trailing slash', async () => {
    expect(await body('/api/v1/things')).toEqual({ status: 200, json: { op: 'fixed.get' } });
    expect(await body('/api/v1/things', { method: 'POST' })).toEqual({ status: 201, json: { op: 'fixed.post' } });
    expect(await body('/API/V1/Things/')).toEqual({ status: 200, json: { op: 'fixed.get' } });
    expect(await body('/api/v1/things?x=1')).toEqual({ status: 200, json: { op: 'fixed.get' } });
  });

  it('serves HEAD with the GET operation and leaves other methods and paths to the 404', async () => {
    const head = await fetch(`${base}/api/v1/things`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect((await body('/api/v1/things', { method: 'DELETE' })).status).toBe(404);
    expect((await body('/api/v1/things//')).status).toBe(404);
    expect((await body('/api/v1/thing')).status).toBe(404);
  });

  it('lists every mounted route, fixed ones from the mount table and parameterised ones from the Express stack', () => {
    const router = express.Router();
    mountOperations(router, operations, { sessions: { resolve: () => Promise.resolve(null) }, metrics: { observe: () => undefined } });
    router.get('/api/v1/direct/:x', (_req, res) => res.end());
    expect(mountedRoutes(router)).toEqual([
      { method: 'GET', path: '/api/v1/things' },
      { method: 'POST', path: '/api/v1/things' },
      { method: 'GET', path: '/api/v1/fails' },
      { method: 'GET', path: '/api/v1/guarded' },
      { method: 'GET', path: '/api/v1/things/:id' },
      { method: 'GET', path: '/api/v1/direct/:x' },
    ]);
  });

  it('still routes parameterised paths', async () => {
    expect(await body('/api/v1/things/42')).toEqual({ status: 200, json: { op: 'param.get', id: '42' } });
  });

  it('sends a failing handler and a refusing guard to the one error handler, and names the operation in metrics', async () => {
    expect(await body('/api/v1/fails')).toEqual({
      status: 404,
      json: { error: { code: 'unknown_product', message: expect.any(String) as string } },
    });
    expect((await body('/api/v1/guarded')).status).toBe(401);
    expect(seen).toEqual(expect.arrayContaining(['fails 404', 'guarded 401', 'fixed.get 200']));
  });
});

describe('request logging', () => {
  it('writes one line per request with its id, operation and caller fields bound along the way', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const app = express();
    app.use(requestContext(app, createLogger('mount-log-test', 'info', sink)));
    const router = express.Router();
    mountOperations(
      router,
      [
        {
          name: 'logged.op',
          method: 'get',
          path: '/logged',
          auth: 'none',
          doc,
          handle: ({ req }) => {
            bindRequestLog(req, { accountId: '42' });
            req.log.info('inside');
            return Promise.resolve({ status: 204 });
          },
        },
      ],
      { sessions: { resolve: () => Promise.resolve(null) }, metrics: { observe: () => undefined } },
    );
    app.use(router);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/logged`, {
        headers: { 'x-request-id': 'req-77' },
      });
      expect(res.status).toBe(204);
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    expect(lines.find((l) => l['msg'] === 'inside')).toMatchObject({ requestId: 'req-77', operation: 'logged.op', accountId: '42' });
    expect(lines.find((l) => l['msg'] === 'request done')).toMatchObject({
      requestId: 'req-77',
      operation: 'logged.op',
      accountId: '42',
      status: 204,
    });
  });
});
