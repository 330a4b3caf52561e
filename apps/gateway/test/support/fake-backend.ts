import { backendApi, encodeTable, fb } from '@wordgame/contracts';
import { serveH2c, type H2cServer } from './h2c.js';

/**
 * A real Connect server (h2c) that implements the backend's SystemService with a status the test
 * controls, so gateway tests exercise the real transport without a database.
 */
export function startStatusBackend(status: () => 'ok' | 'degraded'): Promise<H2cServer> {
  return serveH2c((router) =>
    router.service(backendApi.SystemService, {
      check: () => ({
        body: encodeTable((b) =>
          fb.CheckResponse.createCheckResponse(b, b.createString(status()), b.createString('test'), b.createString('postgres'), 12n, 1n),
        ),
      }),
    }),
  );
}
