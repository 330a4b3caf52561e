import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '@wordgame/logging';
import { checkBackend, type BackendClients } from '../backend/client.js';
import { errorHandler, notFound } from './errors.js';

export interface HttpDeps {
  logger: Logger;
  registry: Registry;
  backend: BackendClients;
}

/**
 * The gateway's HTTP edge: `/health` (200 only when the backend answers ok), `/metrics`
 * (Prometheus text), `/api/v1` (REST), and JSON errors for everything else.
 */
export function createHttpApp({ logger, registry, backend }: HttpDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);

  app.get('/health', async (_req, res) => {
    try {
      const status = await checkBackend(backend);
      res.status(status.status === 'ok' ? 200 : 503).json({ status: status.status === 'ok' ? 'ok' : 'degraded', backend: status });
    } catch (err: unknown) {
      logger.warn({ err }, 'backend health check failed');
      res.status(503).json({ status: 'degraded', backend: { status: 'unreachable' } });
    }
  });

  app.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });

  const api = express.Router();
  api.use(express.json({ limit: '64kb' }));
  app.use('/api/v1', api);

  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
