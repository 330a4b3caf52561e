import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@wordgame/logging';
import { ensureDevCerts, type DevCerts } from '@wordgame/testkit';
import { buildGateway } from '../src/app.js';
import { freshDatabase, startBackendProcess, type BackendProcess, type FreshDatabase } from './support/backend-process.js';
import { testGatewayConfig } from './support/gateway-config.js';

const logger = createLogger('gateway-test', 'silent');

/** Starts a gateway on `env`, answers the status of GET `path`, and stops it. */
async function probe(certs: DevCerts, env: Record<string, string>, paths: string[]): Promise<number[]> {
  const gateway = buildGateway(testGatewayConfig(certs, env), logger);
  const { httpUrl } = await gateway.start();
  try {
    return await Promise.all(paths.map(async (path) => (await fetch(`${httpUrl}${path}`)).status));
  } finally {
    await gateway.stop();
  }
}

describe('gateway /livez and /readyz against the real backend', () => {
  let dir: string;
  let certs: DevCerts;
  let db: FreshDatabase;
  let backend: BackendProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-probes-'));
    certs = ensureDevCerts(dir);
    db = await freshDatabase();
    backend = await startBackendProcess(db.url);
  });
  afterAll(async () => {
    await backend.stop();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is ready when the backend answers the service-token call, live either way', async () => {
    expect(await probe(certs, { BACKEND_URL: backend.url }, ['/livez', '/readyz'])).toEqual([200, 200]);
  });

  it('is not ready when the backend refuses its service token', async () => {
    expect(await probe(certs, { BACKEND_URL: backend.url, BACKEND_SERVICE_TOKEN: 'w'.repeat(40) }, ['/livez', '/readyz'])).toEqual([
      200, 503,
    ]);
  });

  it('is not ready when nothing answers at BACKEND_URL', async () => {
    expect(await probe(certs, { BACKEND_URL: 'http://127.0.0.1:1' }, ['/livez', '/readyz'])).toEqual([200, 503]);
  });
});
